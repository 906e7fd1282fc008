"""``start_tournament ID``: start a waiting tournament; the server's dealer runs its places."""

from __future__ import annotations

from places import services
from places.errors import Refused
from places.management.base import OneLineCommand, place_id, refused


class Command(OneLineCommand):
    help = "Start a waiting tournament: its first places start; the server's dealer runs them."

    def add_arguments(self, parser):
        parser.add_argument("id", help="the tournament's id")

    def handle(self, *args, id, **options):
        try:
            started = services.start_tournament(place_id(id, "tournament"))
        except Refused as e:
            raise refused(e) from None
        self.stdout.write(f"tournament {id} started: {started} of its places starting now")
