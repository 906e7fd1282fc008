"""``tournament_status ID [--json | --follow]``: a tournament's state and standings.

``--follow`` shows its progress until it is over (the server's dealer plays it), then the
final standings: what an organiser who started one from the shell watches.
"""

from __future__ import annotations

import json
import sys
import time
from typing import TextIO

from django.core.management.base import CommandError

from places.management.base import OneLineCommand, columns, place_id
from places.management.progress import Progress
from places.reads.tournaments import TournamentView, tournament


class Command(OneLineCommand):
    help = "Print a tournament's state and standings (name, points per game, interval, games)."

    def add_arguments(self, parser):
        parser.add_argument("id", help="the tournament's id")
        parser.add_argument(
            "--json", dest="as_json", action="store_true", help="print the whole tournament as JSON"
        )
        parser.add_argument(
            "--follow",
            action="store_true",
            help="show the games played (on stderr) until the tournament is over, then the standings",
        )
        parser.add_argument(
            "--interval", type=float, default=1.0, help="with --follow: seconds between reads"
        )

    def handle(self, *args, id, as_json: bool, follow: bool, interval: float, **options):
        pk = place_id(id, "tournament")
        found = tournament(pk)
        if found is None:
            raise CommandError(f"no tournament {pk}")
        if follow:
            found = self._follow(found, max(interval, 0.05), options.get("stderr") or sys.stderr)
        if as_json:
            self.stdout.write(json.dumps(found.as_dict(), ensure_ascii=False))
        else:
            self.stdout.write(render(found))

    def _follow(self, found: TournamentView, interval: float, stream: TextIO) -> TournamentView:
        progress = Progress(stream, f"tournament {found.id}", found.games_total, unit="games")
        while found.state != "finished":
            leader = found.standings[0].name if found.standings and found.games_finished else ""
            note = f"{len(found.running)} places running" + (f", {leader} leads" if leader else "")
            progress.update(found.games_finished, note)
            time.sleep(interval)
            found = tournament(found.id) or found
        progress.done = found.games_finished
        progress.finish("over")
        return found


def _fixed(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"


def render(t: TournamentView) -> str:
    lines = [
        f"tournament {t.id} {t.title!r}: {t.state}",
        f"{t.format}, {len(t.entrants)} entrants, {len(t.tables)} tables of {t.game_count} games"
        f" ({t.games_finished} of {t.games_total} played; {len(t.running)} places running)",
        "",
    ]
    rows = [["#", "entrant", "points/game", "95% interval", "avg rank", "games"]]
    for i, s in enumerate(t.standings, 1):
        interval = f"{_fixed(s.low)} – {_fixed(s.high)}" if s.games else "–"
        rows.append(
            [
                str(i),
                s.name,
                _fixed(s.points_per_game),
                interval,
                _fixed(s.average_rank),
                str(s.games),
            ]
        )
    return "\n".join(lines + columns(rows))
