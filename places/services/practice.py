"""Practice: a place of one user and four house bots, made and started in one request.

The house bots are users the server plays itself (``places/services/house.py``),
made on demand: ``house-greedy-1`` … (a user sits only once in a place, so four
bots of one strategy are four users). A user may keep only a few practice places
unfinished at a time (``PRACTICE_PLACES_PER_USER``): each one costs the server
the house bots' moves.
"""

from __future__ import annotations

import math
import random
import secrets
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Count, Q

from places import errors
from places.models import PLAYERS_PER_PLACE, Place, Player
from places.services.house import check_strategy, house_users
from places.services.lifecycle import start_place
from places.services.setup import create_place, seed_problems

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
#: Practice moves no rating unless asked: beating house bots over and over is no skill.
DEFAULT_RATED = False


@dataclass(frozen=True)
class Practice:
    """A practice place, started: the user sits at ``seat`` among ``players`` (seat order)."""

    place: Place
    player: str
    seat: int
    players: list[str]


def check_practice(
    bots: Sequence[str] = DEFAULT_BOTS,
    game_count: int = DEFAULT_GAMES,
    pace: float = DEFAULT_PACE,
    time_limit: float = DEFAULT_TIME_LIMIT,
    seed: str = "",
    time_bank: float = 0.0,
    rated: bool = DEFAULT_RATED,
) -> None:
    """Refuse settings a practice may not have (``INVALID_PARAMETER``, ``UNKNOWN_STRATEGY``)."""
    if len(bots) != HOUSE_SEATS:
        raise errors.Refused(
            errors.INVALID_PARAMETER,
            f"bots: {HOUSE_SEATS} strategies, comma-separated, not {len(bots)}",
        )
    for name in bots:
        check_strategy(name)
    problems = []
    if not 1 <= game_count <= MAX_GAMES:
        problems.append(f"games: 1 to {MAX_GAMES}")
    if not (math.isfinite(pace) and 0 <= pace <= MAX_PACE):
        problems.append(f"pace: 0 to {MAX_PACE:g} seconds")
    if not (math.isfinite(time_limit) and 0 < time_limit <= MAX_TIME_LIMIT):
        problems.append(f"time_limit: more than 0 and at most {MAX_TIME_LIMIT:g} seconds")
    if not (math.isfinite(time_bank) and 0 <= time_bank <= MAX_TIME_BANK):
        problems.append(f"time_bank: 0 to {MAX_TIME_BANK:g} seconds")
    problems.extend(f"seed: {rule}" for rule in seed_problems(seed))
    if problems:
        raise errors.Refused(errors.INVALID_PARAMETER, "; ".join(problems))


def unfinished_practices(user_id: int) -> int:
    """The user's places not yet over in which the four other players are house bots."""
    seated = Player.objects.filter(user_id=user_id).values("place_id")
    return (
        Place.objects.exclude(state=Place.State.FINISHED)
        .filter(pk__in=seated)
        .annotate(house=Count("players", filter=Q(players__user__house_bot__isnull=False)))
        .filter(house=HOUSE_SEATS)
        .count()
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
) -> Practice:
    """Make a place of the user and four house bots of ``bots``, and start it.

    The user sits in a random seat (drawn from the seed when there is one). At
    pace 0 the house bots play at once until the user must act.
    """
    check_practice(bots, game_count, pace, time_limit, seed, time_bank, rated)
    users = get_user_model()
    with transaction.atomic():
        # the user's row, locked: two practices at once count each other
        user = users.objects.select_for_update().get(pk=user_id)
        limit = settings.PRACTICE_PLACES_PER_USER
        if unfinished_practices(user_id) >= limit:
            raise errors.Refused(
                errors.TOO_MANY_PRACTICES,
                f"{user.get_username()} has {limit} unfinished practice places: "
                "finish one first (or wait for its turns to time out)",
            )
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
        )
    start_place(place.id)  # its own change: the events go out after its commit, in order
    place.refresh_from_db()
    return Practice(place, user.get_username(), seat, names)
