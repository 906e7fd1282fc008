"""``create_tournament TITLE --entrant NAME … --format round-robin|duplicate``: a new
waiting tournament with every place of its schedule; prints its id alone."""

from __future__ import annotations

from daifugo.rules import DAIHINMIN_2011_NAME
from places import services
from places.errors import Refused
from places.management.base import OneLineCommand, refused, seconds, whole_number
from places.models import Tournament


class Command(OneLineCommand):
    help = "Create a tournament of five or more entrants (--entrant once per entrant)."

    def add_arguments(self, parser):
        parser.add_argument("title")
        parser.add_argument(
            "--entrant", action="append", default=[], metavar="NAME", help="a user name; once each"
        )
        parser.add_argument(
            "--format",
            default=Tournament.Format.ROUND_ROBIN,
            choices=list(Tournament.Format.values),
            help="round-robin (default) or duplicate",
        )
        parser.add_argument("--games", default="10", help="games per table (default 10)")
        parser.add_argument("--pace", default="0", help="seconds between steps (default 0)")
        parser.add_argument("--timeout", default="10", help="time limit per turn, s (default 10)")
        parser.add_argument(
            "--time-bank", default="0", help="time bank per player and game, s (default 0: none)"
        )
        parser.add_argument(
            "--seed", default="", help="reproducible deals (duplicate: drawn if none)"
        )
        parser.add_argument("--max-running", default="4", help="places running at once (default 4)")
        parser.add_argument("--unrated", action="store_true", help="its games move no rating")
        parser.add_argument(
            "--rules",
            default=DAIHINMIN_2011_NAME,
            help="the rules (default %(default)s): daihinmin-2011, uecda or a variant of it "
            "(uecda+11back, docs/rules.md); uecda: each entrant's client plays its "
            "tables over the UECda port, in table order, with the entrant's one join code "
            "(join_codes --tournament T)",
        )

    def handle(
        self,
        *args,
        title,
        entrant,
        format,
        games,
        pace,
        timeout,
        time_bank,
        seed,
        max_running,
        unrated,
        rules,
        **options,
    ):
        try:
            tournament = services.create_tournament(
                title,
                list(entrant),
                format=format,
                game_count=whole_number("--games", games),
                pace=seconds("--pace", pace),
                time_limit=seconds("--timeout", timeout),
                time_bank=seconds("--time-bank", time_bank),
                seed=str(seed),
                max_running=whole_number("--max-running", max_running),
                rated=not unrated,
                rules=rules,
            )
        except Refused as e:
            raise refused(e) from None
        self.stdout.write(str(tournament.id))
