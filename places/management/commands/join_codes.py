"""``join_codes PLACE …`` or ``join_codes --tournament T``: the join codes of ``uecda`` places.

One line a coded seat, ``PLACE SEAT NAME CODE``, places in the order given (a
tournament's in table order: the order each entrant's client plays them in), for the
organiser who hands each player their codes: whoever holds a code plays its seat
(``places/services/uecda_seats.py``). House bots' seats have none.
"""

from __future__ import annotations

from django.core.management.base import CommandError

from places.management.base import OneLineCommand
from places.models import Place, Tournament
from places.reads.join_codes import place_codes


class Command(OneLineCommand):
    help = "Print the join codes of uecda places' seats: PLACE SEAT NAME CODE, one seat a line."

    def add_arguments(self, parser):
        parser.add_argument("place", type=int, nargs="*", help="a place's id")
        parser.add_argument("--tournament", type=int, help="every table of this tournament")

    def handle(self, *args, place: list[int], tournament: int | None, **options):
        places = list(place)
        if tournament is not None:
            if not Tournament.objects.filter(pk=tournament).exists():
                raise CommandError(f"no tournament {tournament}")
            tables = Place.objects.filter(tournament_id=tournament).order_by("table_no")
            places += list(tables.values_list("id", flat=True))
        if not places:
            raise CommandError("name a place, or a tournament (--tournament T)")
        missing = set(places) - set(
            Place.objects.filter(pk__in=places).values_list("id", flat=True)
        )
        if missing:
            raise CommandError(f"no place {min(missing)}")
        for place_id in places:
            for seat, name, code in place_codes(place_id):
                self.stdout.write(f"{place_id} {seat} {name} {code}")
