"""What staff and the dealer do to a place: create it, start it, step it, time turns out."""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime, timedelta

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from places import errors
from places.engine import place as engine
from places.models import PLAYERS_PER_PLACE, TITLE_MAX_LENGTH, Place, Player, Turn
from places.reads.position import Position
from places.services.change import Change, changing

MAX_GAMES = 100_000
MAX_SECONDS = 86_400  # a pace or time limit beyond a day is a typo, and overflows datetimes
SEED_MAX_LENGTH = 64


def create_place(
    title: str,
    usernames: Sequence[str],
    *,
    game_count: int = 50,
    pace: float | None = 0.5,
    time_limit: float = 10.0,
    seed: str = "",
) -> Place:
    """A new waiting place with its players seated in the given order."""
    problems = []
    if not title or len(title) > TITLE_MAX_LENGTH:
        problems.append(f"the title must have 1 to {TITLE_MAX_LENGTH} characters")
    if len(usernames) != PLAYERS_PER_PLACE:
        problems.append(f"a place needs {PLAYERS_PER_PLACE} players, not {len(usernames)}")
    if len(set(usernames)) != len(usernames):
        problems.append("a user can sit only once in a place")
    if not 1 <= game_count <= MAX_GAMES:
        problems.append(f"a place plays at least one game and at most {MAX_GAMES}")
    if pace is not None and not (math.isfinite(pace) and 0 <= pace <= MAX_SECONDS):
        problems.append(f"the pace is manual or 0 to {MAX_SECONDS} seconds")
    if not (math.isfinite(time_limit) and 0 < time_limit <= MAX_SECONDS):
        problems.append(f"the time limit must be more than 0 and at most {MAX_SECONDS} seconds")
    if len(seed) > SEED_MAX_LENGTH:
        problems.append(f"the seed has at most {SEED_MAX_LENGTH} characters")
    users = {u.username: u for u in get_user_model().objects.filter(username__in=usernames)}
    missing = [n for n in usernames if n not in users]
    if missing:
        problems.append("unknown user: " + ", ".join(missing))
    if problems:
        raise errors.Refused(errors.INVALID_PLACE, "; ".join(problems))
    with transaction.atomic():
        place = Place.objects.create(
            title=title, game_count=game_count, pace=pace, time_limit=time_limit, seed=seed
        )
        Player.objects.bulk_create(
            Player(place=place, user=users[name], seat=seat) for seat, name in enumerate(usernames)
        )
    return place


def start_place(place_id: int) -> None:
    """Start a waiting place now: ``start_place``, then the dealer drives it.

    For the server's own process (the admin, the staff endpoint). Another
    process (a management command) uses :func:`schedule_start`: with the
    in-memory channel layer, events sent from it would reach nobody.
    """
    with changing(place_id) as change:
        _begin(change)
        change.step()
        change.run_on()


def schedule_start(place_id: int) -> None:
    """Mark a waiting place as started; the server's dealer takes the first step."""
    with changing(place_id) as change:
        _begin(change)
        change.place.next_step_at = change.now
        change.start_pending = True


def _begin(change: Change) -> None:
    place = change.place
    if place.state != Place.State.WAITING:
        raise errors.Refused(errors.ALREADY_STARTED)
    if len(change.seats) != PLAYERS_PER_PLACE:
        raise errors.Refused(errors.INVALID_PLACE, "the place does not have five players")
    place.state = Place.State.RUNNING
    place.started_at = change.now
    change.state = engine.new_place(place.game_count, PLAYERS_PER_PLACE)


def next_turn(place_id: int) -> None:
    """One step by hand (the manual pace; staff may also hurry a paced place)."""
    with changing(place_id) as change:
        if change.place.state != Place.State.RUNNING or change.state is None:
            raise errors.Refused(errors.NO_TURN_OPEN, "the place is not running")
        if change.state.needs_action:
            raise errors.Refused(errors.TURN_OPEN)
        change.step()
        change.run_on()


def run_due(place_id: int, now: datetime | None = None) -> bool:
    """The dealer's work on one place: a missed deadline or a step that is due.

    Returns whether anything happened. Safe to call at any time and from any
    process: it re-reads the schedule under the lock.
    """
    with changing(place_id) as change:
        place, state = change.place, change.state
        now = now or change.now
        if place.state != Place.State.RUNNING or state is None:
            return False
        if state.needs_action:
            if place.turn_deadline is None or place.turn_deadline > now:
                return False
            change.apply(engine.time_out, state.game.turn)
        else:
            if place.next_step_at is None or place.next_step_at > now:
                return False
            change.step()
        change.run_on()
        return True


def resume(place_id: int) -> None:
    """A server took over a running place: an open turn gets a fresh deadline."""
    with transaction.atomic():
        place = Place.objects.select_for_update().get(pk=place_id)
        if place.state != Place.State.RUNNING or place.turn_deadline is None:
            return
        position = Position.decode(place.engine_state)
        deadline = timezone.now() + timedelta(seconds=place.time_limit)
        place.turn_deadline = deadline
        place.save(update_fields=["turn_deadline"])
        Turn.objects.filter(outcome="", game_id=position.game_id, no=position.turn_no).update(
            deadline=deadline
        )
