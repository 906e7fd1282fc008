"""``analyse ID [--games A-B] [--playouts N] [--workers W]``: analyse a place's finished
games (docs/analysis.md) and keep each analysis, as the replay page's button does, but
here and now: a progress bar on stderr, each game's players on stdout."""

from __future__ import annotations

import sys
from concurrent.futures import ProcessPoolExecutor

from django.core.management.base import CommandError

from daifugo.analysis import DEFAULT_PLAYOUTS, analyse
from daifugo.numbers import ID_MAX, option, whole
from places.management.base import OneLineCommand, place_id
from places.management.progress import Progress
from places.models import Game
from places.reads.records import place_head, record_of
from places.services.analysis import store


def game_range(text: str | None, finished: int) -> range:
    """``A-B`` (or ``N``) as games, within the finished ones; None: every finished game."""
    if text is None:
        return range(1, finished + 1)
    first, _, last = text.partition("-")
    a, b = whole(first, ID_MAX), whole(last or first, ID_MAX)
    if a is None or b is None:
        raise CommandError(f"--games is A-B or N (whole numbers), not {text[:40]!r}")
    if not 1 <= a <= b:
        raise CommandError(f"--games {text}: from game 1 up, the first no later than the last")
    if b > finished:
        raise CommandError(f"--games {text}: only games 1-{finished} are finished")
    return range(a, b + 1)


class Command(OneLineCommand):
    help = (
        "Analyse a place's finished games by Monte Carlo (each decision's candidates, the "
        "loss and its mark, each player's accuracy) and keep the analyses, served at "
        "/places/ID/games/N/analysis.json."
    )

    def add_arguments(self, parser):
        parser.add_argument("id", help="the place's id")
        parser.add_argument(
            "--games", metavar="A-B", help="the games (default: every finished one)"
        )
        parser.add_argument(
            "--playouts",
            type=option(ID_MAX),
            default=DEFAULT_PLAYOUTS,
            help=f"playouts a decision, shared by its moves (default {DEFAULT_PLAYOUTS})",
        )
        parser.add_argument(
            "--workers",
            type=option(ID_MAX),
            default=2,
            help="processes evaluating decisions (default 2)",
        )

    def handle(self, *args, id, games: str | None, playouts: int, workers: int, **options):
        if playouts < 1:
            raise CommandError("--playouts is at least 1")
        stream = options.get("stderr") or sys.stderr
        pk = place_id(id)
        head = place_head(pk, staff=True)  # the operator's: every finished game
        if head is None:
            raise CommandError(f"no place {pk}")
        wanted = game_range(games, head.finished)
        pool = ProcessPoolExecutor(workers) if workers > 1 else None
        try:
            for no in wanted:
                record = record_of(head, no)
                if record is None:
                    raise CommandError(f"game {no} of place {pk} has no record")
                bar = Progress(stream, f"analyse game {no}", 0, unit="decisions", every=2.0)

                def progress(done: int, total: int, bar: Progress = bar) -> None:
                    bar.total = total
                    bar.update(done)

                document = analyse(record, playouts, pool=pool, progress=progress)
                bar.finish()
                store(Game.objects.get(place_id=pk, no=no), playouts, document)
                players = ", ".join(
                    f"{p['name']} {p['accuracy']} % ({p['mean_loss']} a decision)"
                    for p in document["players"]
                )
                self.stdout.write(f"game {no}: {players}")
        finally:
            if pool is not None:
                pool.shutdown()
