"""What staff and the dealer do to a running place: start it, step it, time turns out."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from places import errors
from places.engine import place as engine
from places.models import PLAYERS_PER_PLACE, Place, Turn
from places.reads.position import Position
from places.services.change import Change, changing


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
    """A server took over a running place: an open turn gets a fresh deadline
    (its limit, and the player's bank as it was when the turn opened)."""
    with transaction.atomic():
        place = Place.objects.select_for_update().get(pk=place_id)
        if place.state != Place.State.RUNNING or place.turn_deadline is None:
            return
        position = Position.decode(place.engine_state)
        bank = position.banks[position.state.game.turn] if position.banks is not None else 0.0
        deadline = timezone.now() + timedelta(seconds=place.time_limit + bank)
        place.turn_deadline = deadline
        place.save(update_fields=["turn_deadline"])
        Turn.objects.filter(outcome="", game_id=position.game_id, no=position.turn_no).update(
            deadline=deadline
        )
