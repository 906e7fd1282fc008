"""``create_place TITLE --player NAME … [--rules uecda]``: a new waiting place; prints its id alone.

A ``uecda`` place is played over the server's UECda port by its players' clients, each
with its seat's join code (``join_codes PLACE`` prints them); house bots' seats need none.
"""

from __future__ import annotations

from django.core.management.base import CommandError

from daifugo.rules import DAIHINMIN_2011_NAME
from places import services
from places.errors import Refused
from places.management.base import OneLineCommand, refused, seconds, whole_number


class Command(OneLineCommand):
    help = "Create a place for five players (--player once per seat, in seat order)."

    def add_arguments(self, parser):
        parser.add_argument("title")
        parser.add_argument(
            "--player",
            action="append",
            default=[],
            metavar="NAME",
            help="a player's user name; once per seat, in seat order",
        )
        parser.add_argument("--games", default="50", help="games to play (default 50)")
        parser.add_argument(
            "--pace",
            default="0.5",
            help='"manual" (steps only on next_turn) or seconds between steps (default 0.5)',
        )
        parser.add_argument(
            "--timeout", default="10", help="a player's time limit per turn in seconds (default 10)"
        )
        parser.add_argument("--seed", default="", help="makes the deals reproducible")
        parser.add_argument(
            "--rules",
            default=DAIHINMIN_2011_NAME,
            help="the rules (default %(default)s): daihinmin-2011, uecda or a variant of it "
            "(uecda+11back+no-lock, docs/rules.md); uecda: played by the players' clients over "
            "the UECda port, each with its join code (join_codes PLACE); --pace is unused",
        )

    def handle(self, *args, title, player, games, pace, timeout, seed, rules, **options):
        game_count = whole_number("--games", games)
        pace_s = self.pace(pace)
        time_limit = seconds("--timeout", timeout)
        seed = str(seed)
        try:
            place = services.create_place(
                title,
                list(player),
                game_count=game_count,
                pace=pace_s,
                time_limit=time_limit,
                seed=seed,
                rules=rules,
            )
        except Refused as e:
            raise refused(e) from None
        self.stdout.write(str(place.id))

    @staticmethod
    def pace(text) -> float | None:
        if isinstance(text, str) and text.strip().lower() == "manual":
            return None
        try:
            return seconds("--pace", text)
        except CommandError:
            raise CommandError(
                f'--pace must be "manual" or a number of seconds >= 0, not {str(text)!r}'
            ) from None
