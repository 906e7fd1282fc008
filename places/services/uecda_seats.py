"""UECda places on the shared server: their seats' join codes, and their matches' start and end.

A ``uecda`` place made by :func:`places.services.setup.create_place` (a practice, the
admin) waits for its players' clients on the server's UECda port
(:mod:`places.uecda.shared`). Each seat not played by a house bot gets a join code,
the secret its client sends as its name in the 20070 handshake (the stock client's
``-n``): whoever holds it plays that seat. It is shown to that seat's user and to
staff only (:mod:`places.reads.join_codes`). A ``uecda`` tournament's tables have no
codes of their own: each entrant has one (:func:`give_entrant_codes`), which opens its
tables one after the other, in table order. Once every such seat is connected the
listener calls :func:`begin_match`, plays the match and stores its games with
:func:`places.services.uecda.store_match_games`; a match that cannot go on is
:func:`abort_match`-ed, and one that a stopped server left running is aborted when the
next listener starts (:func:`abort_unplayed`).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from daifugo.rules import UECDA_NAME, Rules
from daifugo.view import BOOK_UECDA
from places import errors
from places.leases import DRIVER_ID, lease_length
from places.models import Entrant, EntrantCode, HouseBot, JoinCode, Place, Player, Tournament
from places.reads.join_codes import code_digest
from places.services.house import check_strategy

#: No 0/O, 1/I/L: a code is read off a page and typed on a command line.
ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
#: All the stock client's ``-n`` carries (a char[15]); 31**14 is about 2**69.
CODE_LENGTH = 14


def new_code() -> str:
    return "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))


def check_uecda_strategy(name: str) -> str:
    """The name if a UECda house seat can play it, else ``UNKNOWN_STRATEGY``."""
    return check_strategy(name, BOOK_UECDA, "UECda house strategy")


def give_codes(place: Place) -> dict[int, str]:
    """A join code for each seat of a new ``uecda`` place that no house bot plays, by seat
    (none for a tournament's table: its entrants' codes open it, :func:`give_entrant_codes`).

    Inside the caller's transaction (the one that made the place). A house bot's seat
    must play a UECda strategy (``UNKNOWN_STRATEGY``), one seat at least is a client's,
    and a tournament's table seats its entrants only (``INVALID_PLACE``).
    """
    players = list(Player.objects.filter(place=place).order_by("seat"))
    house = dict(
        HouseBot.objects.filter(user__in=[p.user_id for p in players]).values_list(
            "user_id", "strategy"
        )
    )
    for strategy in house.values():
        check_uecda_strategy(strategy)
    clients = [p for p in players if p.user_id not in house]
    if not clients:
        raise errors.Refused(
            errors.INVALID_PLACE,
            "a uecda place starts when its clients connect: five house bots would never start it",
        )
    if place.tournament_id is not None:
        entrants = set(
            Entrant.objects.filter(tournament_id=place.tournament_id).values_list(
                "user_id", flat=True
            )
        )
        if any(p.user_id not in entrants for p in clients):
            raise errors.Refused(
                errors.INVALID_PLACE,
                "a uecda tournament's table seats its entrants only: their codes open it",
            )
        return {}
    codes = {}
    for player in clients:
        code = new_code()
        JoinCode.objects.create(player=player, code=code, digest=code_digest(code))
        codes[player.seat] = code
    return codes


def give_entrant_codes(tournament: Tournament) -> dict[str, str]:
    """A join code for each entrant of a new ``uecda`` tournament that no house bot is,
    by name: its client's name for every table (:func:`places.reads.join_codes.seat_of_code`).
    Inside the caller's transaction (the one that made the tournament)."""
    codes = {}
    for entrant in tournament.entrants.filter(user__house_bot__isnull=True).select_related("user"):
        code = new_code()
        EntrantCode.objects.create(entrant=entrant, code=code, digest=code_digest(code))
        codes[entrant.user.get_username()] = code
    return codes


@dataclass(frozen=True)
class MatchPlan:
    """What the listener needs to play a place's match: the players by seat (their names
    and, for house seats, their strategies), the games, the seed, the clock (the
    place's time limit per move and bank per game), the rules, and whether it deals
    duplicate deals (a duplicate tournament's table: ``play_match``'s ``duplicate``)."""

    place_id: int
    title: str
    game_count: int
    seed: str
    names: list[str]
    house: dict[int, str]
    time_limit: float
    time_bank: float
    rules: Rules
    duplicate: bool = False


def begin_match(place_id: int) -> MatchPlan:
    """Start a waiting ``uecda`` place whose clients are all connected: it is running,
    this process's on a lease (``Place.driver``, kept by the match: ``keep_lease``), so
    that a place whose process died is aborted (``abort_orphaned_matches``).

    ``ALREADY_STARTED`` (or ``ALREADY_OVER``) when it is not waiting any more: staff
    stopped it, or it expired, while its clients connected. A place without a seed
    gets one drawn now, as ``uecda_match`` does: its records name it once it is over.
    """
    with transaction.atomic():
        # the row locked: a stop or an expiry at the same moment either wins or waits
        place = Place.objects.select_for_update().get(pk=place_id)
        if place.rules != UECDA_NAME:
            raise errors.Refused(errors.INVALID_PLACE, f"place {place_id} is no uecda place")
        if place.state != Place.State.WAITING:
            code = (
                errors.ALREADY_STARTED
                if place.state == Place.State.RUNNING
                else errors.ALREADY_OVER
            )
            raise errors.Refused(code, f"place {place_id} is {place.state}")
        now = timezone.now()
        place.state = Place.State.RUNNING
        place.started_at = now
        place.seed = place.seed or secrets.token_hex(8)
        place.driver = DRIVER_ID
        place.lease_until = now + lease_length()
        place.save(
            update_fields=["state", "started_at", "seed", "driver", "lease_until", "updated_at"]
        )
        players = list(Player.objects.filter(place=place).order_by("seat").select_related("user"))
        house = dict(
            HouseBot.objects.filter(user__in=[p.user_id for p in players]).values_list(
                "user_id", "strategy"
            )
        )
    return MatchPlan(
        place.id,
        place.title,
        place.game_count,
        place.seed,
        [p.name for p in players],
        {p.seat: house[p.user_id] for p in players if p.user_id in house},
        place.time_limit,
        place.time_bank,
        place.game_rules,
        place.duplicate_deals,
    )


def abort_match(place_id: int, now: datetime | None = None) -> bool:
    """End a waiting or running ``uecda`` place that will not be played to its end:
    ``aborted``, with the games it finished. False when it was over already."""
    with transaction.atomic():
        place = Place.objects.select_for_update().get(pk=place_id)
        if place.state not in (Place.State.WAITING, Place.State.RUNNING):
            return False
        place.state = Place.State.ABORTED
        place.finished_at = now or timezone.now()
        place.save(update_fields=["state", "finished_at", "updated_at"])
    return True


def abort_unplayed() -> list[int]:
    """Abort the running shared-server ``uecda`` places (those with join codes, and
    tournaments' tables): their matches lived in a listener that is gone (the server
    stopped). For the one process that owns the UECda port, when its listener starts."""
    running = (
        Place.objects.filter(rules=UECDA_NAME, state=Place.State.RUNNING)
        .filter(Q(players__join_code__isnull=False) | Q(tournament__isnull=False))
        .distinct()
        .values_list("id", flat=True)
    )
    return [pk for pk in list(running) if abort_match(pk)]


def expire_waiting_practices(practices: QuerySet[Place], older_than: datetime) -> list[int]:
    """Abort the waiting ``uecda`` practices among ``practices`` (a user's, an address's)
    made before ``older_than``: a practice whose client never came counts no more against
    the practices held at once."""
    stale = practices.filter(
        rules=UECDA_NAME, state=Place.State.WAITING, created_at__lt=older_than
    ).values_list("id", flat=True)
    return [pk for pk in list(stale) if abort_match(pk)]
