"""``create_user NAME --password PW [--staff]`` or ``create_user NAME --house STRATEGY``:
a user, new or changed."""

from __future__ import annotations

from django.core.management.base import CommandError

from places.errors import Refused
from places.management.base import OneLineCommand, refused
from places.services import house as house_bots


class Command(OneLineCommand):
    help = (
        "Create a user, or set an existing user's password "
        "(and staff flag, when --staff or --no-staff is given); "
        "or make the user a house bot, played by the server with a sample strategy (--house)."
    )

    def add_arguments(self, parser):
        parser.add_argument("name")
        how = parser.add_mutually_exclusive_group(required=True)
        how.add_argument("--password", help="the user logs in with it (and plays over the wire)")
        how.add_argument(
            "--house",
            metavar="STRATEGY",
            help="the server plays this user itself: "
            + ", ".join(house_bots.STRATEGY_NAMES)
            + " (no password: nobody logs in as it)",
        )
        parser.add_argument(
            "--staff",
            action="store_true",
            default=None,
            help="may use the admin pages and the staff endpoints",
        )
        parser.add_argument(
            "--no-staff", dest="staff", action="store_false", default=None, help="no longer staff"
        )

    def handle(
        self,
        *args,
        name: str,
        password: str | None,
        house: str | None,
        staff: bool | None,
        **options,
    ):
        if password is not None and not password:
            raise CommandError("the password must not be empty")
        if house is not None and staff:
            raise CommandError("a house bot cannot be staff: nobody logs in as it")
        # The name is checked when the user is made (places.services.accounts).
        # Bots get whatever password their script gives them: the password
        # validators are for people choosing one in a form.
        try:
            if house is not None:
                user, created = house_bots.make_house_user(name, house)
            else:
                user, created = house_bots.make_wire_user(name, password, staff)
        except Refused as e:
            raise refused(e) from None
        what = "created" if created else "updated"
        if house is not None:
            self.stdout.write(f"{what} house bot {name} ({house})")
            return
        flag = " (staff)" if user.is_staff else ""
        self.stdout.write(f"{what} user {name}{flag}")
