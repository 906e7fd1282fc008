"""``start_place ID``: starts a waiting place, as the admin's start action does."""

from __future__ import annotations

from places import services
from places.errors import Refused
from places.management.base import OneLineCommand, place_id, refused
from places.models import Place


class Command(OneLineCommand):
    help = "Start a waiting place; the dealer of a running server then drives it."

    def add_arguments(self, parser):
        parser.add_argument("id", help="the place's id")

    def handle(self, *args, id, **options):
        pk = place_id(id)
        try:
            # the running server's dealer takes the first step: events sent
            # from this process would reach no socket of the server's
            services.schedule_start(pk)
        except Refused as e:
            raise refused(e) from None
        state = Place.objects.values_list("state", flat=True).get(pk=pk)
        self.stdout.write(f"place {pk} {state}")
