"""``join_codes PLACE``: the join codes of a ``uecda`` place's seats, one line each.

``SEAT NAME CODE`` for every seat a client takes (house bots' seats have none), for the
organiser who hands each player their code: whoever holds a code plays its seat
(``places/services/uecda_seats.py``). Nothing is printed for a place without codes.
"""

from __future__ import annotations

from django.core.management.base import CommandError

from places.management.base import OneLineCommand
from places.models import Place
from places.reads.join_codes import place_codes


class Command(OneLineCommand):
    help = "Print the join codes of a uecda place's seats: SEAT NAME CODE, one seat a line."

    def add_arguments(self, parser):
        parser.add_argument("place", type=int, help="the place's id")

    def handle(self, *args, place: int, **options):
        if not Place.objects.filter(pk=place).exists():
            raise CommandError(f"no place {place}")
        for seat, name, code in place_codes(place):
            self.stdout.write(f"{seat} {name} {code}")
