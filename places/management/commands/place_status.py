"""``place_status ID [--json]``: where a place stands, and who leads."""

from __future__ import annotations

import json

from django.core.management.base import CommandError

from places.management.base import OneLineCommand, place_id, standings_lines
from places.models import Place
from places.reads.standings import status as place_status


class Command(OneLineCommand):
    help = "Print a place's state, the game being played and the standings."

    def add_arguments(self, parser):
        parser.add_argument("id", help="the place's id")
        parser.add_argument(
            "--json", dest="as_json", action="store_true", help="print the same as JSON"
        )

    def handle(self, *args, id, as_json: bool, **options):
        pk = place_id(id)
        place = Place.objects.filter(pk=pk).first()
        if place is None:
            raise CommandError(f"no place {pk}")
        status = place_status(place)
        if as_json:
            self.stdout.write(_dumps(status))
        else:
            self.stdout.write(render(status))


def _dumps(data: dict) -> str:
    return json.dumps(data, ensure_ascii=False)


def render(status: dict) -> str:
    pace = "manual" if status["pace"] is None else f"{status['pace']:g} s"
    lines = [
        f"place {status['place']} {status['title']!r}: {status['state']}",
        f"game {status['game_no']} of {status['game_count']}"
        f" ({status['games_played']} finished; pace {pace}, time limit {status['time_limit']:g} s)",
        "",
    ]
    return "\n".join(lines + standings_lines(status["standings"]))
