"""The transaction around every change of a place, and the rows its events become.

Every change locks the place's row: the row carries the engine state, the event
sequence number and the dealer's schedule, so holding it serialises everything
that can happen to a place (two posts racing for one turn, a post racing its own
timeout, two dealers). The engine's events become Turn, Rank, Game, Hand and
PlaceEvent rows in the same transaction, and are sent only after commit, in order.

A change holds the place (and, on SQLite, the database's one writer) for one turn's
work: a player's move or a step, and at pace 0 the steps after it until a turn
opens. A house bot's move is decided outside any transaction, from the place as it
was read, and applied in a change of its own if the place is still as it was
(:func:`play_on`): a place of house bots is played one turn a transaction, so that
no request, and no other place, waits behind its play (a ``montecarlo`` seat's
search included) for more than a turn.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import defaultdict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import timedelta
from typing import Protocol

from django.db import transaction
from django.utils import timezone

from daifugo import events as ev
from daifugo import place as engine
from daifugo.cards import sorted_ids
from daifugo.deal import drawn_ranks, game_rng
from daifugo.game import GameState, TurnResult
from daifugo.place import Deal, PlaceState
from daifugo.plays import Miss
from places import errors, locked, logs, metrics, rows
from places.models import Game, Hand, Place, PlaceEvent, Rank, Turn
from places.reads.position import Position
from places.reads.practice import user_gone
from places.reads.seats import Seat, seats_of
from places.services import committed, game_index, house, profiles, ratings
from places.wire import events as wire
from places.wire.codec import compact
from places.wire.records import order_name

logger = logging.getLogger(__name__)

#: What a change can touch on the place row (the admin edits the rest).
CHANGING_FIELDS = [
    "state",
    "engine_state",
    "event_seq",
    "next_step_at",
    "turn_deadline",
    "started_at",
    "finished_at",
    "stop_requested",
    "updated_at",
]

#: Per place, held from the lock to the hand-over of its events (see :func:`changing`).
_send_locks: defaultdict[int, threading.Lock] = defaultdict(threading.Lock)


class Change:
    """One locked place inside one transaction: steps the engine, records what it says."""

    def __init__(self, place: Place):
        self.place = place
        self.now = timezone.now()
        position = Position.decode(place.engine_state)
        self.state = position.state
        self.game_id = position.game_id
        self.turn_no = position.turn_no
        #: Each seat's time bank left in this game (seconds); None: the place has none.
        self.banks = list(position.banks) if position.banks is not None else None
        #: Each seat's last posts that carried an idempotency key (``Position.posts``).
        self.posts = dict(position.posts)
        self.seats = seats_of(place.id)
        self.messages: list[dict] = []
        self.submitted: list[str] = []  # what the acting player wrote
        self.settled: list[tuple[str, str]] = []  # (outcome, reason) of each turn settled
        self.start_pending = False  # started by another process: the dealer steps first
        #: An open house turn is left to the dealer's next round (:func:`play_on`'s time ran out).
        self.hand_over = False
        #: The state the place takes when it is over: finished, or aborted by staff. A
        #: change that finds the place aborted (the dealer's, which waited for the lock
        #: while staff stopped it) saves it aborted still.
        self.ending = (
            Place.State.ABORTED if place.state == Place.State.ABORTED else Place.State.FINISHED
        )

    # -- engine events -> rows and wire messages
    def record(
        self, events: Sequence[ev.Event], deal: Deal | None = None, result: TurnResult | None = None
    ) -> None:
        place = self.place
        for e in events:
            if isinstance(e, ev.StartTurn):
                deadline = self.now + timedelta(seconds=place.time_limit + self._bank(e.seat))
                self.turn_no = self.state.game.turn_no
                rows.insert_many(
                    Turn,
                    [
                        {
                            "game_id": self.game_id,
                            "no": self.turn_no,
                            "player_id": self.seats[e.seat].player_id,
                            "table": list(e.table),
                            "revolution": e.revolution,
                            "opened_at": self.now,
                            "deadline": deadline,
                        }
                    ],
                )
                place.turn_deadline = deadline
                self.messages.append(
                    wire.start_turn(place.id, self.seats[e.seat].name, e.table, e.revolution)
                )
            elif isinstance(e, ev.EndTurn):
                assert result is not None  # a turn ends only by an action or its timeout
                timed_out = result.reason == Miss.TIMEOUT
                outcome = Turn.Outcome.TIMEOUT if timed_out else result.outcome
                self.settled.append((outcome, "" if timed_out else result.reason or ""))
                self._spend_bank(e.seat)
                rows.update_where(
                    Turn,
                    {"game_id": self.game_id, "no": self.turn_no},
                    cards=list(e.cards),
                    submitted=self.submitted,
                    outcome=outcome,
                    reason=result.reason or "",
                    reset=e.reset,
                    settled_at=self.now,
                )
                place.turn_deadline = None
                self.messages.append(
                    wire.end_turn(place.id, self.seats[e.seat].name, e.cards, e.reset)
                )
            elif isinstance(e, ev.EndPlayer):
                seat = self.seats[e.seat]
                rows.insert_many(
                    Rank, [{"game_id": self.game_id, "player_id": seat.player_id, "rank": e.rank}]
                )
                self.messages.append(
                    wire.end_player(place.id, seat.name, self.game_id, seat.player_id, e.rank)
                )
            elif isinstance(e, ev.StartGame):
                game = Game.objects.create(place=place, no=e.game_no)
                self.game_id = game.id
                if place.time_bank > 0:
                    self.banks = [place.time_bank] * len(self.seats)
                self.turn_no = None
                self._record_hands(game, deal)
                self.messages.append(wire.start_game(game))
            elif isinstance(e, ev.EndGame):
                game = rows.read(Game, self.game_id)
                game.status = Game.FINISHED
                game.place_info = order_name(e.revolution)
                rows.save(game, ["status", "place_info", "updated_at"])
                if place.rated:
                    ratings.rate_game(
                        game.id,
                        place.rules,
                        [s.user_id for s in self.seats],
                        self.state.game.ranks,
                        self.now,
                    )
                ranks = self.state.game.ranks
                seat_of = {s.player_id: s.no for s in self.seats}
                game_index.index_games(
                    [
                        game_index.Finished(
                            game.id, game.no, place.id, place.tournament_id, place.rules,
                            self.now, [(s.no, s.user_id, ranks[s.no]) for s in self.seats],
                            game_index.facts_of_turns(game.id, seat_of),
                        )
                    ]
                )  # fmt: skip
                profiles.count_game(
                    game.id,
                    [profiles.Seated(s.player_id, s.user_id, ranks[s.no]) for s in self.seats],
                )
                if place.practice:
                    self._end_practice_if_gone()
                self.messages.append(wire.end_game(game))
            elif isinstance(e, ev.StartPlace):
                self.messages.append(wire.start_place(place))
            elif isinstance(e, ev.EndPlace):
                place.state = self.ending
                place.finished_at = self.now
                self.messages.append(wire.end_place(place))

    def _end_practice_if_gone(self) -> None:
        """A practice whose user is gone plays no further game (``places/reads/practice.py``)."""
        user = next((s for s in self.seats if not s.house), None)
        if user is None:
            return
        with rows.at_once():  # the turn just settled is read
            gone = user_gone(user.user_id, user.player_id, self.state.game_no)
        if gone:
            self.state = engine.last_game(self.state)

    def _bank(self, seat: int) -> float:
        return self.banks[seat] if self.banks is not None else 0.0

    def _spend_bank(self, seat: int) -> None:
        """What the turn ran past its limit comes off the seat's bank (all of it on a timeout).

        The open turn's deadline is its limit's end plus the bank it opened with.
        """
        bank = self._bank(seat)
        if not bank or self.place.turn_deadline is None:
            return
        limit_end = self.place.turn_deadline - timedelta(seconds=bank)
        overrun = (self.now - limit_end).total_seconds()
        self.banks[seat] = max(0.0, bank - max(0.0, overrun))

    def _record_hands(self, game: Game, deal: Deal) -> None:
        given: dict[int, list[int]] = defaultdict(list)
        received: dict[int, list[int]] = defaultdict(list)
        for x in deal.exchanges:
            given[x.giver].extend(x.cards)
            received[x.receiver].extend(x.cards)
        rows.insert_many(
            Hand,
            [
                {
                    "game_id": game.id,
                    "player_id": seat.player_id,
                    "dealt": sorted_ids(deal.dealt[i]),
                    "given": given[i],
                    "received": received[i],
                    "after_exchange": sorted_ids(deal.hands[i]),
                }
                for i, seat in enumerate(self.seats)
            ],
        )

    # -- engine steps
    def step(self) -> None:
        place = self.place
        seed = place.seed or None
        drawn = (lambda no: drawn_ranks(place.seed, no)) if place.duplicate_deals else None
        self.state, events, deal = engine.step(self.state, lambda no: game_rng(seed, no), drawn)
        self.record(events, deal)

    def play_house(self, move: house.HouseMove, seat: int) -> None:
        """The house's move, decided outside the transaction (:func:`play_on`), as a post's."""
        self.submitted = move.written
        self.apply(move.action, seat)
        self.submitted = []

    def apply(self, action, seat: int) -> TurnResult:
        """``action(state, seat)``: an engine function (it refuses a seat out of turn)."""
        self.state, result, events = action(self.state, seat)
        self.record(events, result=result)
        return result

    def run_on(self) -> None:
        """At pace 0, keep stepping until a turn opens or the place is over (a house
        seat's turn too: it is played in a change of its own, :func:`play_on`)."""
        while (
            self.place.pace == 0 and self.state.phase != engine.OVER and not self.state.needs_action
        ):
            self.step()

    def save(self) -> None:
        """Schedule the dealer, persist the place, log and (after commit) send the events."""
        place = self.place
        state = self.state
        if state.phase == engine.OVER:
            place.state = self.ending
            place.stop_requested = False
            place.next_step_at = None
            place.turn_deadline = None
        elif place.stop_requested:
            place.next_step_at = self.now  # the dealer's next round stops it
        elif state.needs_action:
            place.next_step_at = self.now if self.hand_over else None
        elif self.start_pending:
            pass  # the dealer takes the first step at once (next_step_at is now)
        else:
            place.turn_deadline = None
            place.next_step_at = (
                None if place.pace is None else self.now + timedelta(seconds=place.pace)
            )
        banks = tuple(self.banks) if self.banks is not None else None
        place.engine_state = Position(state, self.game_id, self.turn_no, banks, self.posts).encode()
        first = place.event_seq + 1
        texts = [compact(m) for m in self.messages]
        place.event_seq += len(texts)
        rows.save(place, CHANGING_FIELDS)
        rows.insert_many(
            PlaceEvent,
            [
                {"place_id": place.id, "seq": first + i, "operation": m["operation"], "message": t}
                for i, (m, t) in enumerate(zip(self.messages, texts, strict=True))
            ],
        )
        batch = [(first + i, t) for i, t in enumerate(texts)]
        scheduled = place.next_step_at is not None
        place_id = place.id
        settled = self.settled

        def after_commit() -> None:
            metrics.settled(settled, len(batch))
            committed.send_events(place_id, batch)
            if scheduled:
                committed.wake_dealer()

        transaction.on_commit(after_commit)


class Precondition(Protocol):
    """What a caller checked before changing a place, read again with the place locked
    (one round trip for both, ``rows.lock_and_read``): a query and its judge."""

    sql: str
    params: Sequence

    def holds(self, row: tuple | None) -> bool:
        """Whether the query's first row (None: no row) says the check still holds."""


class Stale(Exception):
    """A change's precondition no longer holds: nothing was changed; check afresh."""


@contextmanager
def changing(place_id: int, precondition: Precondition | None = None) -> Iterator[Change]:
    """Lock the place, yield a change, save it; the events go out after commit.

    The process-local lock keeps the sends of one place in commit order: the
    database lock is released at commit, before on-commit hooks run, so without
    it two threads could send their events in the opposite order. A
    ``precondition`` that no longer holds raises :class:`Stale` before anything.
    """
    with logs.about(place_id), _send_locks[place_id], transaction.atomic():
        try:
            if precondition is None:
                place = rows.lock(Place, place_id)
            else:
                place, found = rows.lock_and_read(
                    Place, place_id, precondition.sql, precondition.params
                )
                if not precondition.holds(found):
                    raise Stale
        except Place.DoesNotExist:
            raise errors.Refused(errors.NOT_FOUND, f"no place {place_id}") from None
        change = Change(place)
        logs.note(game=change.game_id, turn=change.turn_no)
        with rows.together(commit=True):  # the writes and the COMMIT: one round trip
            yield change
            change.save()
        logs.note(game=change.game_id, turn=change.turn_no)


# -- house turns, each decided outside any transaction -----------------------------------------

#: Per place, held by the thread playing its house turns (:func:`play_on`): another
#: thread of this process (the dealer) leaves them to it rather than decide them twice.
_house_locks: defaultdict[int, threading.Lock] = defaultdict(threading.Lock)


def playing() -> set[int]:
    """The places whose house turns a thread of this process is playing now."""
    return {pk for pk, lock in list(_house_locks.items()) if lock.locked()}


#: An open house turn: ``(event_seq, the place's seed, the game, the seat)``.
HouseTurn = tuple[int, str, GameState, Seat]


def _open_house_turn(place_id: int) -> HouseTurn | None:
    """The running place's open turn if a house seat's, read without a lock; None when
    no house turn is open (or staff asked the place to stop)."""
    found = (
        Place.objects.filter(pk=place_id, state=Place.State.RUNNING, stop_requested=False)
        .values_list("engine_state", "event_seq", "seed")
        .first()
    )
    if found is None:
        return None
    engine_state, seq, seed = found
    return _house_turn(place_id, Position.decode(engine_state).state, seq, seed)


def _house_turn(place_id: int, state: PlaceState | None, seq: int, seed: str) -> HouseTurn | None:
    if state is None or not state.needs_action:
        return None
    seat = seats_of(place_id)[state.game.turn]
    return (seq, seed, state.game, seat) if seat.house else None


def _after(change: Change) -> HouseTurn | None:
    """The house turn a committed change left open, as it left the place: the next
    move's snapshot without reading the place again."""
    place = change.place
    if place.state != Place.State.RUNNING or place.stop_requested:
        return None
    return _house_turn(place.id, change.state, place.event_seq, place.seed)


def house_turn_open(place_id: int) -> bool:
    """Whether a house seat's turn is open in the running place (read without a lock)."""
    return _open_house_turn(place_id) is not None


def _apply_house_move(
    place_id: int, seq: int, seat: int, move: house.HouseMove, due: float | None
) -> Change:
    """One house move in a change of its own, if the place is as it was when it was
    decided (its event sequence number): else :class:`Stale`. At pace 0, the steps
    after it up to the next open turn go with it. Returns the change."""
    with changing(place_id) as change:
        place = change.place
        if place.event_seq != seq or place.stop_requested or place.state != Place.State.RUNNING:
            raise Stale
        change.play_house(move, seat)
        change.run_on()
        change.hand_over = due is not None and time.monotonic() >= due
    return change


def play_on(place_id: int, seconds: float | None = None, after: Change | None = None) -> bool:
    """Play the place's open house turns, one change each: at pace 0 until a player over
    the wire must act or the place is over, at another pace the one open now.

    Each move is decided from the place as read, outside any transaction (a
    ``montecarlo`` search holds no lock), then applied if the place did not change
    meanwhile, and decided again from the new state if it did. ``seconds``: the time
    this caller gives (the dealer's round); then an open house turn is left due, for
    the dealer's next round. A thread of this process already playing the place's
    house turns plays them on: this call returns at once. ``after``: the caller's change,
    just committed, which tells the open turn without reading the place again. Returns
    whether a move was made.
    """
    lock = _house_locks[place_id]
    if not lock.acquire(blocking=False):
        return False
    try:
        due = None if seconds is None else time.monotonic() + seconds
        played = False
        opened = _open_house_turn(place_id) if after is None else _after(after)
        while opened is not None:
            seq, seed, game, seat = opened
            move = house.decide(seat.house, game, seat.no, seed)  # no transaction is open
            try:
                change = locked.retried(_apply_house_move, place_id, seq, seat.no, move, due)
            except Stale:
                opened = _open_house_turn(place_id)
                continue
            played = True
            if change.place.pace != 0 or change.hand_over:
                break
            opened = _after(change)
        return played
    finally:
        lock.release()


def play_on_after(place_id: int, after: Change | None = None) -> None:
    """:func:`play_on` after a caller's own change committed (a post, a start): what fails
    in the house's play after it is logged, not the caller's answer, which says what was
    committed; the house turn left open is the dealer's at its deadline."""
    try:
        play_on(place_id, after=after)
    except Exception:
        logger.exception(
            "place %s: the house turns after a change failed: left to the dealer", place_id
        )
