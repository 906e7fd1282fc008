"""Practice: a place of one user and four house bots, made and started in one request.

The house bots are users the server plays itself (``places/services/house.py``),
made on demand: ``house-greedy-1`` … (a user sits only once in a place, so four
bots of one strategy are four users). A user may keep only a few practice places
unfinished at a time (``PRACTICE_PLACES_PER_USER``): each one costs the server
the house bots' moves.

What one user can make the house play is bounded (docs/operations.md, "Limits"):
at most ``PRACTICE_PLACES_PER_USER`` practices at once, at most
``PRACTICE_GAMES_PER_WINDOW`` games asked for in ``PRACTICE_GAMES_WINDOW`` seconds,
and no turn of the user's shorter than ``PRACTICE_MIN_TIME_LIMIT``, so that a user
who never answers makes the house play at most one game per few such turns. A
practice whose user is gone stops after the game being played
(``places/reads/practice.py``). Since anyone may sign up, one person may hold many
accounts: what one client address asks for, whatever its accounts, is bounded as
well (``PRACTICE_PLACES_PER_ADDRESS``, ``PRACTICE_GAMES_PER_ADDRESS``), counted from
the address each practice keeps (``Place.practice_address``), so the count holds
across processes and restarts.
"""

from __future__ import annotations

import math
import random
import secrets
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from daifugo.rules import DAIHINMIN_2011_NAME, UECDA_NAME, UnknownRules, profile_and_variant
from places import errors
from places.models import (
    ADDRESS_LENGTH,
    ENDED,
    PLAYERS_PER_PLACE,
    JoinCode,
    Place,
    Player,
)
from places.services.addresses import lock_address
from places.services.house import check_strategy, house_users
from places.services.lifecycle import start_place
from places.services.setup import create_place, seed_problems
from places.services.uecda_seats import check_uecda_strategy, expire_waiting_practices

TITLE = "Practice"
HOUSE_SEATS = PLAYERS_PER_PLACE - 1
DEFAULT_BOTS = ("greedy",) * HOUSE_SEATS
DEFAULT_GAMES = 5
MAX_GAMES = 100
DEFAULT_PACE = 0.0
MAX_PACE = 10.0
DEFAULT_TIME_LIMIT = 10.0
MAX_TIME_LIMIT = 600.0
MAX_TIME_BANK = 600.0
#: The rules a practice may be played by: the 2011 game on the site, or UECda over TCP.
PRACTICE_RULES = (DAIHINMIN_2011_NAME, UECDA_NAME)
#: Practice moves no rating unless asked: beating house bots over and over is no skill.
DEFAULT_RATED = False


@dataclass(frozen=True)
class Practice:
    """A practice place, started: the user sits at ``seat`` among ``players`` (seat order).
    A ``uecda`` practice waits for the user's client, which takes the seat with
    ``join_code`` (None for the 2011 rules)."""

    place: Place
    player: str
    seat: int
    players: list[str]
    join_code: str | None = None


def check_practice(
    bots: Sequence[str] = DEFAULT_BOTS,
    game_count: int = DEFAULT_GAMES,
    pace: float = DEFAULT_PACE,
    time_limit: float = DEFAULT_TIME_LIMIT,
    seed: str = "",
    time_bank: float = 0.0,
    rated: bool = DEFAULT_RATED,
    rules: str = DAIHINMIN_2011_NAME,
) -> str:
    """Refuse settings a practice may not have (``INVALID_PARAMETER``, ``UNKNOWN_STRATEGY``);
    returns the rules profile (``rules`` may name a variant of it).

    A rated practice has no seed of the player's: a chosen seed deals the same hands and
    plays the same house moves again, so its games could be learnt by heart and the
    leaderboard farmed. Only deals the server draws may move a rating.
    """
    if len(bots) != HOUSE_SEATS:
        raise errors.Refused(
            errors.INVALID_PARAMETER,
            f"bots: {HOUSE_SEATS} strategies, comma-separated, not {len(bots)}",
        )
    try:
        profile = profile_and_variant(rules)[0]
    except UnknownRules as e:
        raise errors.Refused(errors.INVALID_PARAMETER, f"rules: {e}") from None
    if profile not in PRACTICE_RULES:
        raise errors.Refused(
            errors.INVALID_PARAMETER, f"rules: {' or '.join(PRACTICE_RULES)}, not {rules[:40]!r}"
        )
    if profile == UECDA_NAME and not (settings.UECDA_PUBLIC_PORT or settings.UECDA_PORT):
        raise errors.Refused(
            errors.INVALID_PARAMETER, "rules: this server has no UECda port (UECDA_PORT)"
        )
    check = check_strategy if profile == DAIHINMIN_2011_NAME else check_uecda_strategy
    for name in bots:
        check(name)
    problems = []
    if not 1 <= game_count <= MAX_GAMES:
        problems.append(f"games: 1 to {MAX_GAMES}")
    if not (math.isfinite(pace) and 0 <= pace <= MAX_PACE):
        problems.append(f"pace: 0 to {MAX_PACE:g} seconds")
    shortest = settings.PRACTICE_MIN_TIME_LIMIT
    if not (math.isfinite(time_limit) and shortest <= time_limit <= MAX_TIME_LIMIT):
        problems.append(f"time_limit: {shortest:g} to {MAX_TIME_LIMIT:g} seconds")
    if not (math.isfinite(time_bank) and 0 <= time_bank <= MAX_TIME_BANK):
        problems.append(f"time_bank: 0 to {MAX_TIME_BANK:g} seconds")
    problems.extend(f"seed: {rule}" for rule in seed_problems(seed))
    if rated and seed:
        problems.append("rated: a practice with a chosen seed is unrated; leave out the seed")
    if problems:
        raise errors.Refused(errors.INVALID_PARAMETER, "; ".join(problems))
    return profile


def practices_of(user_id: int) -> QuerySet[Place]:
    """The user's practice places (only those ``POST /practice`` made: a tournament's
    table of the user and four house bots is no practice of theirs)."""
    seated = Player.objects.filter(user_id=user_id).values("place_id")
    return Place.objects.filter(practice=True, pk__in=seated)


def practices_from(address: str) -> QuerySet[Place]:
    """The practice places asked for from this client address, by any of its accounts."""
    return Place.objects.filter(practice=True, practice_address=address[:ADDRESS_LENGTH])


def unfinished_practices(user_id: int) -> int:
    """The user's practice places not yet over."""
    return practices_of(user_id).exclude(state__in=ENDED).count()


def check_games_left(
    practices: QuerySet[Place],
    game_count: int,
    now: datetime,
    limit: int,
    code: errors.Code,
    whose: str = "",
) -> None:
    """Refuse a practice that would take ``practices`` past ``limit`` games asked for in the
    last ``PRACTICE_GAMES_WINDOW`` seconds (``code``, with ``Retry-After``: when enough of
    them have left the window); ``whose`` says whose games they are in the message.

    The games asked for count, played or not: what a practice may still make the house play.
    """
    window = timedelta(seconds=settings.PRACTICE_GAMES_WINDOW)
    recent = list(
        practices.filter(created_at__gt=now - window)
        .order_by("created_at")
        .values_list("created_at", "game_count")
    )
    asked = sum(n for _, n in recent)
    if asked + game_count <= limit:
        return
    wait = window
    freed = 0
    for created_at, n in recent:  # the oldest leave the window first
        freed += n
        if asked - freed + game_count <= limit:
            wait = created_at + window - now
            break
    seconds = max(1, math.ceil(wait.total_seconds()))
    raise errors.Refused(
        code,
        f"{asked} practice games asked for{whose} in the last {window.total_seconds():g} s, "
        f"at most {limit}: try again in {seconds} s",
        headers={"Retry-After": str(seconds)},
    )


def check_address(address: str, game_count: int, now: datetime) -> None:
    """Refuse a practice past what one address may hold and ask for, whatever its accounts:
    ``PRACTICE_PLACES_PER_ADDRESS`` unfinished (``TOO_MANY_ADDRESS_PRACTICES``) and
    ``PRACTICE_GAMES_PER_ADDRESS`` games in the window (``TOO_MANY_ADDRESS_PRACTICE_GAMES``).
    Inside the caller's transaction."""
    lock_address("practice", address)
    practices = practices_from(address)
    expire_waiting_practices(practices, now - timedelta(seconds=settings.UECDA_PRACTICE_WAIT))
    limit = settings.PRACTICE_PLACES_PER_ADDRESS
    if practices.exclude(state__in=ENDED).count() >= limit:
        raise errors.Refused(
            errors.TOO_MANY_ADDRESS_PRACTICES,
            f"this address has {limit} unfinished practice places (of any of its accounts): "
            "finish one first (or wait for its turns to time out)",
        )
    check_games_left(
        practices,
        game_count,
        now,
        settings.PRACTICE_GAMES_PER_ADDRESS,
        errors.TOO_MANY_ADDRESS_PRACTICE_GAMES,
        " from this address",
    )


def start_practice(
    user_id: int,
    bots: Sequence[str] = DEFAULT_BOTS,
    *,
    game_count: int = DEFAULT_GAMES,
    pace: float = DEFAULT_PACE,
    time_limit: float = DEFAULT_TIME_LIMIT,
    seed: str = "",
    time_bank: float = 0.0,
    rated: bool = DEFAULT_RATED,
    rules: str = DAIHINMIN_2011_NAME,
    address: str | None = None,
) -> Practice:
    """Make a place of the user and four house bots of ``bots``, and start it.

    ``address`` is the client's (``api/throttle.py``'s ``address_of``): what it may hold
    and ask for is bounded too (:func:`check_address`). None (a practice made from the
    shell or a test, not asked for over HTTP) is bounded per user alone.

    The user sits in a random seat (drawn from the seed when there is one). At
    pace 0 the house bots play at once until the user must act. A ``uecda`` practice
    has no pace: it waits for the user's client on the UECda port, which starts it
    (``places/uecda/shared.py``); one no client joined within ``UECDA_PRACTICE_WAIT``
    seconds is aborted here, when the user asks for another.
    """
    profile = check_practice(bots, game_count, pace, time_limit, seed, time_bank, rated, rules)
    uecda = profile == UECDA_NAME
    users = get_user_model()
    with transaction.atomic():
        # the user's row, locked: two practices at once count each other
        user = users.objects.select_for_update().get(pk=user_id)
        limit = settings.PRACTICE_PLACES_PER_USER
        now = timezone.now()
        stale = now - timedelta(seconds=settings.UECDA_PRACTICE_WAIT)
        expire_waiting_practices(practices_of(user_id), stale)
        if unfinished_practices(user_id) >= limit:
            raise errors.Refused(
                errors.TOO_MANY_PRACTICES,
                f"{user.get_username()} has {limit} unfinished practice places: "
                "finish one first (or wait for its turns to time out)",
            )
        check_games_left(
            practices_of(user_id),
            game_count,
            now,
            settings.PRACTICE_GAMES_PER_WINDOW,
            errors.TOO_MANY_PRACTICE_GAMES,
        )
        if address is not None:
            check_address(address, game_count, now)
        wanted = Counter(bots)
        made = {name: iter(house_users(name, n)) for name, n in wanted.items()}
        names = [next(made[name]).get_username() for name in bots]
        chooser = random.Random(f"daihinmin-practice:{seed}") if seed else secrets.SystemRandom()
        seat = chooser.randrange(PLAYERS_PER_PLACE)
        names.insert(seat, user.get_username())
        place = create_place(
            TITLE,
            names,
            game_count=game_count,
            pace=pace,
            time_limit=time_limit,
            seed=seed,
            time_bank=time_bank,
            rated=rated,
            practice=True,
            practice_address=(address or "")[:ADDRESS_LENGTH],
            rules=rules,
        )
    if uecda:
        code = JoinCode.objects.get(player__place=place, player__seat=seat).code
        return Practice(place, user.get_username(), seat, names, code)
    start_place(place.id)  # its own change: the events go out after its commit, in order
    place.refresh_from_db()
    return Practice(place, user.get_username(), seat, names)
