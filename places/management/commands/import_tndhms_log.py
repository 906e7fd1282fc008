"""``import_tndhms_log FILE [--rated] [--keep-going] [--title T]``: a tndhms match as a place.

Reads a tndhms FLAG_LOGGER log (UECDA.md §7) and makes a finished ``uecda`` place
of it (``places.services.uecda``): the log checked line by line first (refused at
its first bad line; with ``--keep-going`` a game with a garbled line, such as tndhms's
logger overflow, is left out and named), then every game refereed by the engine and written, in one
transaction. The file is read as it goes, never whole: memory stays the same
whatever its size. Progress goes to stderr, the outcome to stdout.
"""

from __future__ import annotations

import sys
import time

from django.core.management.base import CommandError

from places.errors import Refused
from places.management.base import OneLineCommand, refused
from places.management.progress import Progress
from places.services import uecda


class Command(OneLineCommand):
    help = (
        "Make a finished place of a tndhms log (the uecda rules): its players, a record "
        "per game, standings and profiles. Every game is refereed by the engine; a game "
        "it plays otherwise, or one with a garbled line, refuses the whole log unless "
        "--keep-going."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="a tndhms FLAG_LOGGER log (logs/*.log)")
        parser.add_argument(
            "--rated", action="store_true", help="its games move the players' ratings"
        )
        parser.add_argument(
            "--keep-going",
            action="store_true",
            help="import the games it can read and the engine agrees with, and list the others"
            " with the reason",
        )
        parser.add_argument("--title", help="the place's title (default: tndhms and its start)")

    def handle(self, *args, file: str, rated: bool, keep_going: bool, title, **options):
        stream = options.get("stderr") or sys.stderr
        try:
            log = open(file, "rb")  # noqa: SIM115 - closed below, after the import
        except OSError as e:
            raise CommandError(f"cannot read {file}: {e.strerror}") from None
        bar: list[Progress] = []

        def progress(done: int, total: int) -> None:
            if not bar:
                bar.append(Progress(stream, "import_tndhms_log", total, unit="games"))
            bar[0].update(done)

        started = time.monotonic()
        try:
            done = uecda.import_tndhms_log(
                log, rated=rated, keep_going=keep_going, title=title, progress=progress
            )
        except Refused as e:
            raise refused(e) from None
        except OSError as e:
            raise CommandError(f"cannot read {file}: {e.strerror}") from None
        finally:
            log.close()
            if bar:
                bar[0].finish()
        seconds = time.monotonic() - started
        place = done.place
        self.stdout.write(
            f"place {place.id} {place.title!r}: {done.games} of {place.game_count} games,"
            f" {done.turns} turns imported in {seconds:.1f} s ({'rated' if rated else 'unrated'})"
        )
        if done.left_out:
            self.stdout.write(
                f"{len(done.left_out)} not imported (a garbled line, or the engine plays them"
                " otherwise):"
            )
            for d in done.left_out:
                self.stdout.write(f"  {d}")
