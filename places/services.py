"""The one place where places change.

Every change is one transaction that locks the place's row: the row carries
the engine state, the event sequence number and the dealer's schedule, so
holding it serialises everything that can happen to a place (two posts racing
for one turn, a post racing its own timeout, two dealers). Events are written
to the event log inside the transaction and sent only after commit, in order.
"""

from __future__ import annotations

import logging
import math
import threading
from collections import defaultdict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from places import broadcast, rows, wire
from places.engine import events as ev
from places.engine import place as engine
from places.engine.cards import CardFormatError, parse_card, sorted_ids
from places.engine.deal import game_rng
from places.engine.game import ActionError, TurnResult
from places.engine.place import Deal, PlaceState
from places.engine.plays import Miss
from places.models import (
    PLAYERS_PER_PLACE,
    TITLE_MAX_LENGTH,
    Game,
    Hand,
    Place,
    PlaceEvent,
    Player,
    Rank,
    Turn,
)

logger = logging.getLogger(__name__)


class ServiceError(Exception):
    """A request that is not a move: it changes nothing. ``code`` is stable."""

    def __init__(self, code: str, message: str, status: int):
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status


NOT_LOGGED_IN = "NOT_LOGGED_IN"
LOGIN_FAILED = "LOGIN_FAILED"
INVALID_CARD = "INVALID_CARD"
NO_TURN_OPEN = "NO_TURN_OPEN"
NOT_YOUR_TURN = "NOT_YOUR_TURN"
NOT_FOUND = "NOT_FOUND"
TURN_OPEN = "TURN_OPEN"
ALREADY_STARTED = "ALREADY_STARTED"
INVALID_PLACE = "INVALID_PLACE"


@dataclass(frozen=True)
class PostResult:
    """What the server made of a player's action (the post_cards JSON answer)."""

    result: str  # "play", "pass" or "miss"
    reason: str | None
    reset_place: bool

    def as_dict(self) -> dict:
        return {"result": self.result, "reason": self.reason, "reset_place": self.reset_place}


# -- creating places ---------------------------------------------------------

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
        raise ServiceError(INVALID_PLACE, "; ".join(problems), 400)
    with transaction.atomic():
        place = Place.objects.create(
            title=title, game_count=game_count, pace=pace, time_limit=time_limit, seed=seed
        )
        Player.objects.bulk_create(
            Player(place=place, user=users[name], seat=seat) for seat, name in enumerate(usernames)
        )
    return place


# -- the transaction around every change -------------------------------------

_send_locks: defaultdict[int, threading.Lock] = defaultdict(threading.Lock)


@dataclass(frozen=True)
class Seat:
    player_id: int
    user_id: int
    name: str


_seats_cache: dict[int, tuple[Seat, ...]] = {}


def forget_seats() -> None:
    """Drop the cached seats (tests whose rolled-back places reuse ids need this)."""
    _seats_cache.clear()


def seats_of(place_id: int) -> tuple[Seat, ...]:
    """The players of a place in seat order (fixed once it started: cached)."""
    seats = _seats_cache.get(place_id)
    if seats is None:
        players = list(
            Player.objects.filter(place_id=place_id)
            .select_related("user", "place")
            .order_by("seat")
        )
        seats = tuple(Seat(p.id, p.user_id, p.user.get_username()) for p in players)
        # a waiting place can still be re-seated in the admin: cache only once started
        if len(seats) == PLAYERS_PER_PLACE and players[0].place.state != Place.State.WAITING:
            _seats_cache[place_id] = seats
    return seats


class _Change:
    """One locked place inside one transaction: applies engine events to rows."""

    def __init__(self, place: Place):
        self.place = place
        self.now = timezone.now()
        data = place.engine_state or {}
        self.state: PlaceState | None = (
            PlaceState.from_dict(data["place"]) if data.get("place") else None
        )
        self.game_id: int | None = data.get("game_id")
        # the open turn's row is found by its game and number (states saved before
        # that named the row by id)
        self.turn_no: int | None = data.get("turn_no")
        self.turn_id: int | None = data.get("turn_id") if self.turn_no is None else None
        self.seats = seats_of(place.id)
        self.messages: list[dict] = []
        self.submitted: list[str] = []  # what the acting player wrote
        self.start_pending = False  # started by another process: the dealer steps first

    # engine events -> rows and wire messages
    def record(
        self, events: Sequence[ev.Event], deal: Deal | None = None, result: TurnResult | None = None
    ) -> None:
        place = self.place
        for e in events:
            if isinstance(e, ev.StartTurn):
                opened = self.now
                deadline = opened + timedelta(seconds=place.time_limit)
                self.turn_no, self.turn_id = self.state.game.turn_no, None
                rows.insert_many(
                    Turn,
                    [
                        {
                            "game_id": self.game_id,
                            "no": self.turn_no,
                            "player_id": self.seats[e.seat].player_id,
                            "table": list(e.table),
                            "revolution": e.revolution,
                            "opened_at": opened,
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
                rows.update_where(
                    Turn,
                    self._open_turn(),
                    cards=list(e.cards),
                    submitted=self.submitted,
                    outcome=Turn.Outcome.TIMEOUT if timed_out else result.outcome,
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
                Rank.objects.create(game_id=self.game_id, player_id=seat.player_id, rank=e.rank)
                self.messages.append(
                    wire.end_player(place.id, seat.name, self.game_id, seat.player_id, e.rank)
                )
            elif isinstance(e, ev.StartGame):
                game = Game.objects.create(place=place, no=e.game_no)
                self.game_id = game.id
                self.turn_no = self.turn_id = None
                self._record_hands(game, deal)
                self.messages.append(wire.start_game(game))
            elif isinstance(e, ev.EndGame):
                game = Game.objects.get(pk=self.game_id)
                game.status = Game.FINISHED
                game.place_info = wire.order_name(e.revolution)
                game.save(update_fields=["status", "place_info", "updated_at"])
                self.messages.append(wire.end_game(game))
            elif isinstance(e, ev.StartPlace):
                self.messages.append(wire.start_place(place))
            elif isinstance(e, ev.EndPlace):
                place.state = Place.State.FINISHED
                place.finished_at = self.now
                self.messages.append(wire.end_place(place))

    def _open_turn(self) -> dict:
        if self.turn_id is not None:
            return {"id": self.turn_id}
        return {"game_id": self.game_id, "no": self.turn_no}

    def _record_hands(self, game: Game, deal: Deal) -> None:
        given: dict[int, list[int]] = defaultdict(list)
        received: dict[int, list[int]] = defaultdict(list)
        for x in deal.exchanges:
            given[x.giver].extend(x.cards)
            received[x.receiver].extend(x.cards)
        Hand.objects.bulk_create(
            Hand(
                game=game,
                player_id=seat.player_id,
                dealt=sorted_ids(deal.dealt[i]),
                given=given[i],
                received=received[i],
                after_exchange=sorted_ids(deal.hands[i]),
            )
            for i, seat in enumerate(self.seats)
        )

    # engine steps
    def step(self) -> None:
        seed = self.place.seed or None
        self.state, events, deal = engine.step(self.state, lambda no: game_rng(seed, no))
        self.record(events, deal)

    def run_on(self) -> None:
        """At pace 0, keep stepping until a player must act or the place is over."""
        while (
            self.place.pace == 0 and self.state.phase != engine.OVER and not self.state.needs_action
        ):
            self.step()

    def save(self) -> None:
        """Schedule the dealer, persist the place, log and (after commit) send the events."""
        place = self.place
        state = self.state
        if state.phase == engine.OVER:
            place.state = Place.State.FINISHED
            place.next_step_at = None
            place.turn_deadline = None
        elif state.needs_action:
            place.next_step_at = None
        elif self.start_pending:
            pass  # the dealer takes the first step at once (next_step_at is now)
        else:
            place.turn_deadline = None
            place.next_step_at = (
                None if place.pace is None else self.now + timedelta(seconds=place.pace)
            )
        place.engine_state = {
            "place": state.to_dict(),
            "game_id": self.game_id,
            "turn_no": self.turn_no,
        }
        first = place.event_seq + 1
        texts = [wire.encode(m) for m in self.messages]
        place.event_seq += len(texts)
        rows.save(place, _CHANGING_FIELDS)
        rows.insert_many(
            PlaceEvent,
            [
                {"place_id": place.id, "seq": first + i, "operation": m["operation"], "message": t}
                for i, (m, t) in enumerate(zip(self.messages, texts, strict=True))
            ],
        )
        batch = [(first + i, t) for i, t in enumerate(texts)]
        wake = place.next_step_at is not None
        place_id = place.id

        def after_commit() -> None:
            broadcast.send_events(place_id, batch)
            if wake:
                from places import dealer  # the dealer calls this module: import late

                dealer.wake()

        transaction.on_commit(after_commit)


#: What a change can touch on the place row (the admin edits the rest).
_CHANGING_FIELDS = [
    "state",
    "engine_state",
    "event_seq",
    "next_step_at",
    "turn_deadline",
    "started_at",
    "finished_at",
    "updated_at",
]


@contextmanager
def _changing(place_id: int) -> Iterator[_Change]:
    """Lock the place, yield a change, save it; the events go out after commit.

    The process-local lock keeps the sends of one place in commit order: the
    database lock is released at commit, before on-commit hooks run, so without
    it two threads could send their events in the opposite order.
    """
    with _send_locks[place_id], transaction.atomic():
        try:
            place = rows.lock(Place, place_id)
        except Place.DoesNotExist:
            raise ServiceError(NOT_FOUND, f"no place {place_id}", 404) from None
        change = _Change(place)
        with rows.together():  # one round trip for the writes on PostgreSQL
            yield change
            change.save()


# -- what staff and the dealer do ----------------------------------------------


def start_place(place_id: int) -> None:
    """Start a waiting place now: ``start_place``, then the dealer drives it.

    For the server's own process (the admin, the staff endpoint). Another
    process (a management command) uses :func:`schedule_start`: with the
    in-memory channel layer, events sent from it would reach nobody.
    """
    with _changing(place_id) as change:
        _begin(change)
        change.step()
        change.run_on()


def schedule_start(place_id: int) -> None:
    """Mark a waiting place as started; the server's dealer takes the first step."""
    with _changing(place_id) as change:
        _begin(change)
        change.place.next_step_at = change.now
        change.start_pending = True


def _begin(change: _Change) -> None:
    place = change.place
    if place.state != Place.State.WAITING:
        raise ServiceError(ALREADY_STARTED, "the place has already been started", 409)
    if len(change.seats) != PLAYERS_PER_PLACE:
        raise ServiceError(INVALID_PLACE, "the place does not have five players", 400)
    place.state = Place.State.RUNNING
    place.started_at = change.now
    change.state = engine.new_place(place.game_count, PLAYERS_PER_PLACE)


def next_turn(place_id: int) -> None:
    """One step by hand (the manual pace; staff may also hurry a paced place)."""
    with _changing(place_id) as change:
        if change.place.state != Place.State.RUNNING or change.state is None:
            raise ServiceError(NO_TURN_OPEN, "the place is not running", 409)
        if change.state.needs_action:
            raise ServiceError(TURN_OPEN, "a turn is open: waiting for the player", 409)
        change.step()
        change.run_on()


def run_due(place_id: int, now: datetime | None = None) -> bool:
    """The dealer's work on one place: a missed deadline or a step that is due.

    Returns whether anything happened. Safe to call at any time and from any
    process: it re-reads the schedule under the lock.
    """
    with _changing(place_id) as change:
        place, state = change.place, change.state
        now = now or change.now
        if place.state != Place.State.RUNNING or state is None:
            return False
        if state.needs_action:
            if place.turn_deadline is None or place.turn_deadline > now:
                return False
            _apply(change, lambda s, seat: engine.time_out(s, seat))
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
        data = place.engine_state or {}
        deadline = timezone.now() + timedelta(seconds=place.time_limit)
        place.turn_deadline = deadline
        place.save(update_fields=["turn_deadline"])
        if data.get("turn_no") is not None:
            open_turn = {"game_id": data.get("game_id"), "no": data["turn_no"]}
        else:
            open_turn = {"pk": data.get("turn_id")}
        Turn.objects.filter(outcome="", **open_turn).update(deadline=deadline)


def _apply(change: _Change, action) -> TurnResult:
    state = change.state
    seat = state.game.turn
    change.state, result, events = action(state, seat)
    change.record(events, result=result)
    return result


# -- what players do -----------------------------------------------------------


def parse_written(cards: Sequence[str]) -> list[int]:
    """Parse a post's card strings (blank ones dropped); INVALID_CARD on any unknown form."""
    tokens = []
    for text in cards:
        if text is None or (isinstance(text, str) and not text.strip()):
            continue
        try:
            tokens.append(parse_card(text))
        except CardFormatError as e:
            raise ServiceError(INVALID_CARD, str(e), 400) from None
    return tokens


def seat_of(place_id: int, user_id: int) -> int:
    for i, s in enumerate(seats_of(place_id)):
        if s.user_id == user_id:
            return i
    raise ServiceError(NOT_LOGGED_IN, "not a player of this place", 401)


def post_cards(place_id: int, user_id: int, cards: Sequence[str]) -> PostResult:
    """A player's action: cards to play, none for a pass.

    Illegal actions are misses (a result); requests that are not moves raise
    ServiceError and change nothing. A post after the turn's deadline is the
    timeout it arrived too late to prevent.
    """
    tokens = parse_written(cards)
    seat = seat_of(place_id, user_id)
    with _changing(place_id) as change:
        change.submitted = [c.strip() for c in cards if c and c.strip()]
        state = change.state
        if change.place.state != Place.State.RUNNING or state is None or not state.needs_action:
            raise ServiceError(NO_TURN_OPEN, "no turn is open", 409)
        if state.game.turn != seat:
            raise ServiceError(NOT_YOUR_TURN, "it is not this player's turn", 409)
        deadline = change.place.turn_deadline
        try:
            if deadline is not None and change.now > deadline:
                result = _apply(change, lambda s, seat: engine.time_out(s, seat))
            else:
                result = _apply(change, lambda s, seat: engine.act(s, seat, tokens))
        except ActionError as e:  # the checks above make this unreachable
            raise ServiceError(e.code, e.message, 409) from None
        change.run_on()
    return PostResult(result.outcome, result.reason, result.reset)


# -- what players read -------------------------------------------------------------


def _state_of(place: Place) -> PlaceState | None:
    data = place.engine_state or {}
    return PlaceState.from_dict(data["place"]) if data.get("place") else None


def hand_of(place_id: int, user_id: int) -> list[int]:
    """The player's cards now, weakest first (never anyone else's)."""
    seat = seat_of(place_id, user_id)
    place = Place.objects.only("engine_state").get(pk=place_id)
    state = _state_of(place)
    if state is None or state.game is None:
        return []
    return sorted_ids(state.game.hands[seat])


def initial_hand_of(place_id: int, user_id: int) -> list[int]:
    """The cards the player was dealt in the current (or last) game, before the exchange."""
    seat = seat_of(place_id, user_id)
    player_id = seats_of(place_id)[seat].player_id
    hand = (
        Hand.objects.filter(game__place_id=place_id, player_id=player_id)
        .order_by("-game__no")
        .values_list("dealt", flat=True)
        .first()
    )
    return list(hand or [])


def place_info(place_id: int) -> dict:
    """get_place_info: the contract's keys first, then what bots also want."""
    place = Place.objects.get(pk=place_id)
    state = _state_of(place)
    seats = seats_of(place_id)
    hands = state.game.hands if state and state.game else (0,) * len(seats)
    game = state.game if state else None
    return {
        "game_count": place.game_count,
        "player_count": len(seats),
        "player_infos": [
            {"name": s.name, "has_card": h.bit_count()} for s, h in zip(seats, hands, strict=False)
        ],
        "game_no": state.game_no if state else 0,
        "turn_player": seats[game.turn].name if game is not None and state.needs_action else None,
        "place_info": wire.order_name(game.revolution if game else False),
        "place_cards": [
            wire.api_card(c) for c in (sorted_ids(game.table.mask) if game and game.table else [])
        ],
        "state": place.state,
    }


def ranks(place_id: int) -> dict:
    """get_rank: each player's rank in the current game and in the last finished one."""
    place = Place.objects.get(pk=place_id)
    state = _state_of(place)
    seats = seats_of(place_id)
    game_no = state.game_no if state else 0
    current = state.game.ranks if state and state.game else (0,) * len(seats)
    # while a game runs, last_ranks are the previous game's; once it is over,
    # they are its own
    last = state.last_ranks if state else None
    return {
        "game_no": game_no,
        "ranks": [
            {
                "name": s.name,
                "rank": (current[i] or None) if state and state.game else None,
                "last_rank": last[i] if last else None,
            }
            for i, s in enumerate(seats)
        ],
    }
