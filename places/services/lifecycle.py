"""What staff and the dealer do to a running place: start it, step it, time turns out,
stop it."""

from __future__ import annotations

import contextlib
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from daifugo import place as engine
from daifugo.rules import DAIHINMIN_2011_NAME, UECDA_NAME
from places import errors, locked
from places.models import ENDED, PLAYERS_PER_PLACE, Game, Place, Turn
from places.reads.position import Position
from places.reads.seats import seats_of
from places.services import profiles
from places.services.change import Change, changing, house_turn_open, play_on, play_on_after


def start_place(place_id: int) -> None:
    """Start a waiting place now: ``start_place``, then the dealer drives it.

    For the server's own process (the admin, the staff endpoint). Another
    process (a management command) uses :func:`schedule_start`: with the
    in-memory channel layer, events sent from it would reach nobody. The house
    turns that open are played after, one change each (:func:`play_on`).
    """
    locked.retried(_start, place_id)
    play_on_after(place_id)


def _start(place_id: int) -> None:
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
    if place.rules != DAIHINMIN_2011_NAME:
        raise errors.Refused(
            errors.INVALID_PLACE,
            f"a {place.rules} place starts by itself once its players' clients are connected",
        )
    if len(change.seats) != PLAYERS_PER_PLACE:
        raise errors.Refused(errors.INVALID_PLACE, "the place does not have five players")
    place.state = Place.State.RUNNING
    place.started_at = change.now
    change.state = engine.new_place(place.game_count, PLAYERS_PER_PLACE)


def next_turn(place_id: int) -> None:
    """One step by hand (the manual pace; staff may also hurry a paced place); a house
    turn it opens is played after it (:func:`play_on`)."""
    locked.retried(_next_turn, place_id)
    play_on_after(place_id)


def _next_turn(place_id: int) -> None:
    with changing(place_id) as change:
        if change.place.state != Place.State.RUNNING or change.state is None:
            raise errors.Refused(errors.NO_TURN_OPEN, "the place is not running")
        if change.state.needs_action:
            raise errors.Refused(errors.TURN_OPEN)
        change.step()
        change.run_on()


def stop_place(place_id: int) -> None:
    """Abort a waiting or running place now: it is over, ``aborted``.

    The game in play is dropped: its row goes, and with it its hands, turns and
    ranks, so it is not rated (a game is rated when it ends), not counted and has
    no record; the games finished before it stay, rated and counted. The players
    get ``end_place``, as at a place's end, so that no bot waits for a turn that
    will never open. For the server's own process; another process uses
    :func:`schedule_stop`.
    """
    with changing(place_id) as change:
        _abort(change)


def schedule_stop(place_id: int) -> None:
    """Stop a place from another process (a management command).

    A running place is stopped by the server's dealer, at its next round: the
    ``end_place`` it sends reaches the server's sockets, where one sent from here
    would reach none with the in-memory channel layer. A waiting place has no
    dealer and nobody playing in it: it is stopped here.
    """
    with changing(place_id) as change:
        place = change.place
        if place.state != Place.State.RUNNING:
            _abort(change)
            return
        place.stop_requested = True  # due at once: the dealer's next round stops it


def _abort(change: Change) -> None:
    place = change.place
    if place.state in ENDED:
        raise errors.Refused(errors.ALREADY_OVER, f"place {place.id} is already {place.state}")
    state = change.state or engine.new_place(place.game_count, PLAYERS_PER_PLACE)
    if state.phase == engine.IN_GAME and change.game_id is not None:
        # its hands, turns and ranks go with it
        Game.objects.filter(pk=change.game_id, status=Game.RUNNING).delete()
        change.game_id = change.turn_no = None
        change.banks = None
    if place.rules == UECDA_NAME:  # a TCP match cut short: its games stored, not all counted
        profiles.count_place_games(place.id)
    change.state, events = engine.abort(state)
    change.ending = Place.State.ABORTED
    change.record(events)


def run_due(place_id: int, now: datetime | None = None, seconds: float | None = None) -> bool:
    """The dealer's work on one place: a missed deadline or a step that is due, then
    the house turns that open (:func:`play_on`: for ``seconds`` at most, the rest
    left due; None: until a player over the wire must act).

    Returns whether anything happened. Safe to call at any time and from any
    process: it re-reads the schedule under the lock.
    """
    moved = False
    if not house_turn_open(place_id):  # an open house turn is play_on's (a stop is not)
        moved = locked.retried(_run_due, place_id, now)
    return play_on(place_id, seconds) or moved


def _run_due(place_id: int, now: datetime | None) -> bool:
    with changing(place_id) as change:
        place, state = change.place, change.state
        now = now or change.now
        if place.state != Place.State.RUNNING or state is None:
            return False
        if place.stop_requested:
            _abort(change)
            return True
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
    (its limit, and the player's bank as it was when the turn opened), and a house
    seat's open turn is due at once (:func:`play_on`). A ``uecda``
    place is a TCP match whose process died with its connections: it is aborted."""
    if Place.objects.filter(pk=place_id, rules=UECDA_NAME, state=Place.State.RUNNING).exists():
        with contextlib.suppress(errors.Refused):  # over already
            stop_place(place_id)
        return
    with transaction.atomic():
        place = Place.objects.select_for_update().get(pk=place_id)
        if place.state != Place.State.RUNNING or place.turn_deadline is None:
            return
        position = Position.decode(place.engine_state)
        bank = position.banks[position.state.game.turn] if position.banks is not None else 0.0
        deadline = timezone.now() + timedelta(seconds=place.time_limit + bank)
        place.turn_deadline = deadline
        if seats_of(place_id)[position.state.game.turn].house:
            place.next_step_at = timezone.now()
        place.save(update_fields=["turn_deadline", "next_step_at"])
        Turn.objects.filter(outcome="", game_id=position.game_id, no=position.turn_no).update(
            deadline=deadline
        )
