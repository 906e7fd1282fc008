"""Setting places up: creating them, and what staff may change before and while they run.

Creation, settings and seats are changed here and only here (the admin's forms call
these too), each in one transaction that locks the place's row, so that a place
started meanwhile keeps the games, seed and players it started with.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from django.contrib.auth import get_user_model
from django.db import transaction

from daifugo.rules import DAIHINMIN_2011_NAME, UECDA_NAME, UnknownRules, profile_and_variant
from places import errors
from places.models import PLAYERS_PER_PLACE, TITLE_MAX_LENGTH, HouseBot, Place, Player
from places.services.house import check_strategy
from places.services.lifecycle import next_turn
from places.services.uecda_seats import give_codes

MAX_GAMES = 100_000
MAX_SECONDS = 86_400  # a pace or time limit beyond a day is a typo, and overflows datetimes
SEED_MAX_LENGTH = 64
#: What may still change once a place has started (the dealer reads these at each step).
EDITABLE_WHEN_STARTED = ("title", "pace", "time_limit")
#: What is fixed once a place has started.
FIXED_WHEN_STARTED = ("game_count", "seed", "time_bank", "rated")


def _setting_problems(
    title: str,
    game_count: int,
    pace: float | None,
    time_limit: float,
    seed: str,
    time_bank: float = 0.0,
) -> list[str]:
    problems = []
    if not title or len(title) > TITLE_MAX_LENGTH:
        problems.append(f"the title must have 1 to {TITLE_MAX_LENGTH} characters")
    if not 1 <= game_count <= MAX_GAMES:
        problems.append(f"a place plays at least one game and at most {MAX_GAMES}")
    problems.extend(f"the seed has {rule}" for rule in seed_problems(seed))
    return problems + timing_problems(pace, time_limit, time_bank)


def seed_problems(seed: str, max_length: int = SEED_MAX_LENGTH) -> list[str]:
    """The rules a seed breaks, each said on its own ("at most 64 characters").

    A NUL is refused apart from the length: PostgreSQL's text cannot hold it, and a
    short seed holding one is not too long.
    """
    problems = []
    if len(seed) > max_length:
        problems.append(f"at most {max_length} characters")
    if "\x00" in seed:
        problems.append("no NUL character (\\x00)")
    return problems


def timing_problems(pace: float | None, time_limit: float, time_bank: float) -> list[str]:
    """What is wrong with a place's clock (a tournament's places' too)."""
    problems = []
    if pace is not None and not (math.isfinite(pace) and 0 <= pace <= MAX_SECONDS):
        problems.append(f"the pace is manual or 0 to {MAX_SECONDS} seconds")
    if not (math.isfinite(time_limit) and 0 < time_limit <= MAX_SECONDS):
        problems.append(f"the time limit must be more than 0 and at most {MAX_SECONDS} seconds")
    if not (math.isfinite(time_bank) and 0 <= time_bank <= MAX_SECONDS):
        problems.append(f"the time bank is 0 (none) to {MAX_SECONDS} seconds")
    return problems


def _players(usernames: Sequence[str], problems: list[str]) -> dict:
    """The users of these names, by name; what is wrong with the list goes to ``problems``."""
    if len(usernames) != PLAYERS_PER_PLACE:
        problems.append(f"a place needs {PLAYERS_PER_PLACE} players, not {len(usernames)}")
    if len(set(usernames)) != len(usernames):
        problems.append("a user can sit only once in a place")
    users = {u.username: u for u in get_user_model().objects.filter(username__in=usernames)}
    missing = [n for n in usernames if n not in users]
    if missing:
        problems.append("unknown user: " + ", ".join(missing))
    return users


def create_place(
    title: str,
    usernames: Sequence[str],
    *,
    game_count: int = 50,
    pace: float | None = 0.5,
    time_limit: float = 10.0,
    seed: str = "",
    time_bank: float = 0.0,
    rated: bool = True,
    **schedule,
) -> Place:
    """A new waiting place with its players seated in the given order.

    ``schedule`` is a tournament's (``tournament``, ``table_no``, ``duplicate_deals``), or
    ``practice`` and ``practice_address`` for ``POST /practice``'s; ``rules`` ``uecda``
    makes a place of the shared server's UECda port, whose seats not played by house bots
    get join codes (``places/services/uecda_seats.py``), and no pace (its clients set it);
    a variant of it (``uecda+11back``) too, its switches kept in ``variant``.
    """
    problems = []
    try:
        schedule["rules"], schedule["variant"] = profile_and_variant(
            schedule.get("rules", DAIHINMIN_2011_NAME)
        )
    except UnknownRules as e:
        problems.append(str(e))
    if schedule.get("rules") == UECDA_NAME:
        pace = None
    problems += _setting_problems(title, game_count, pace, time_limit, seed, time_bank)
    users = _players(usernames, problems)
    if problems:
        raise errors.Refused(errors.INVALID_PLACE, "; ".join(problems))
    with transaction.atomic():
        place = Place.objects.create(
            title=title,
            game_count=game_count,
            pace=pace,
            time_limit=time_limit,
            seed=seed,
            time_bank=time_bank,
            rated=rated,
            **schedule,
        )
        Player.objects.bulk_create(
            Player(place=place, user=users[name], seat=seat) for seat, name in enumerate(usernames)
        )
        if place.rules == UECDA_NAME:  # played over TCP: each client's seat by its code
            give_codes(place)
        else:  # a house seat plays a strategy of the 2011 rules (no stock)
            for strategy in HouseBot.objects.filter(user__in=users.values()).values_list(
                "strategy", flat=True
            ):
                check_strategy(strategy)
    return place


def edit_place(place_id: int, **settings) -> tuple[list[str], bool]:
    """Change a place's settings: ``EDITABLE_WHEN_STARTED`` at any time, the others while
    it waits (a setting that may not change any more is left as it is).

    Returns the settings changed, and whether a manual place between steps was given a
    pace and resumed: with nothing scheduled, it would wait for a ``next_turn`` nobody sends.
    """
    with transaction.atomic():
        place = Place.objects.select_for_update().get(pk=place_id)
        waiting = place.state == Place.State.WAITING
        allowed = EDITABLE_WHEN_STARTED + (FIXED_WHEN_STARTED if waiting else ())
        changed = {k: v for k, v in settings.items() if k in allowed}
        manual = place.pace is None
        for name, value in changed.items():
            setattr(place, name, value)
        problems = _setting_problems(
            place.title, place.game_count, place.pace, place.time_limit, place.seed, place.time_bank
        )
        if problems:
            raise errors.Refused(errors.INVALID_PLACE, "; ".join(problems))
        if changed:
            # Only the changed columns: the dealer may have moved the place
            # (engine_state, state, schedule) since the caller read it.
            place.save(update_fields=[*changed, "updated_at"])
    resumed = False
    if place.state == Place.State.RUNNING and manual and place.pace is not None:
        try:
            next_turn(place_id)
            resumed = True
        except errors.Refused:
            pass  # a turn is open: the player's action schedules what follows
    return list(changed), resumed


def reseat_place(place_id: int, usernames: Sequence[str]) -> tuple[list[Player], list[Player]]:
    """Seat these users, in this order, in a waiting place; returns the old and new players."""
    problems: list[str] = []
    users = _players(usernames, problems)
    if problems:
        raise errors.Refused(errors.INVALID_PLACE, "; ".join(problems))
    with transaction.atomic():
        place = Place.objects.select_for_update().get(pk=place_id)
        if place.state != Place.State.WAITING:
            raise errors.Refused(errors.ALREADY_STARTED, "the place started: its players were kept")
        old = list(place.players.select_related("user"))
        place.players.all().delete()
        new = Player.objects.bulk_create(
            Player(place=place, user=users[name], seat=seat) for seat, name in enumerate(usernames)
        )
        if place.rules == UECDA_NAME:  # the old codes went with their players
            give_codes(place)
    return old, new
