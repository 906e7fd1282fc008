"""``join_codes PLACE …`` or ``join_codes --tournament T``: the join codes of ``uecda`` places.

For places, one line a coded seat, ``PLACE SEAT NAME CODE``, places in the order given:
whoever holds a code plays its seat (``places/services/uecda_seats.py``). For a
tournament, one line an entrant that plays by a client, ``ENTRANT NAME CODE`` (its
number in the schedule, from 0): the one code its client sends for every table, each in
its turn. House bots have none. For the organiser, who hands each player their code.
"""

from __future__ import annotations

from django.core.management.base import CommandError

from daifugo.numbers import ID_MAX, option
from places.management.base import OneLineCommand
from places.models import Place, Tournament
from places.reads.join_codes import place_codes, tournament_codes


class Command(OneLineCommand):
    help = (
        "Print the join codes of uecda places' seats (PLACE SEAT NAME CODE, one seat a line), "
        "or of a uecda tournament's entrants (ENTRANT NAME CODE, one entrant a line)."
    )

    def add_arguments(self, parser):
        parser.add_argument("place", type=option(ID_MAX, 1), nargs="*", help="a place's id")
        parser.add_argument(
            "--tournament", type=option(ID_MAX, 1), help="a tournament's entrants instead"
        )

    def handle(self, *args, place: list[int], tournament: int | None, **options):
        if tournament is not None:
            if place:
                raise CommandError("name places, or a tournament (--tournament T), not both")
            if not Tournament.objects.filter(pk=tournament).exists():
                raise CommandError(f"no tournament {tournament}")
            for no, name, code in tournament_codes(tournament):
                self.stdout.write(f"{no} {name} {code}")
            return
        if not place:
            raise CommandError("name a place, or a tournament (--tournament T)")
        missing = set(place) - set(Place.objects.filter(pk__in=place).values_list("id", flat=True))
        if missing:
            raise CommandError(f"no place {min(missing)}")
        for place_id in place:
            for seat, name, code in place_codes(place_id):
                self.stdout.write(f"{place_id} {seat} {name} {code}")
