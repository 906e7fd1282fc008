"""``stop_place ID``: aborts a waiting or running place, as the admin's stop action does."""

from __future__ import annotations

from places import services
from places.errors import Refused
from places.management.base import OneLineCommand, place_id, refused
from places.models import Place


class Command(OneLineCommand):
    help = (
        "Stop (abort) a waiting or running place: the game in play is dropped (not rated, "
        "no record) and the place is 'aborted'. A running place is stopped by the running "
        "server's dealer within its next round."
    )

    def add_arguments(self, parser):
        parser.add_argument("id", help="the place's id")

    def handle(self, *args, id, **options):
        pk = place_id(id)
        try:
            # a running place: the server's dealer stops it, so that the end_place
            # it sends reaches the server's sockets (none from this process would)
            services.schedule_stop(pk)
        except Refused as e:
            raise refused(e) from None
        state = Place.objects.values_list("state", flat=True).get(pk=pk)
        self.stdout.write(f"place {pk} {'stopping' if state == Place.State.RUNNING else state}")
