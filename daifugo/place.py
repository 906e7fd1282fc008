"""A place: a series of games between the same players, from ``start_place``
to ``end_place``. Pure: the deal's random source is passed in.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from . import game as g
from .deal import deal, exchange, first_player
from .events import EndPlace, Event, StartGame, StartPlace
from .game import GameState, TurnResult

NEW, BETWEEN_GAMES, IN_GAME, OVER = "new", "between_games", "in_game", "over"


def points_for(rank: int, players: int) -> int:
    """Points for a game: number of players − rank."""
    return players - rank


class PlaceState:
    """Where a place stands. Treat as immutable."""

    __slots__ = ("players", "game_count", "phase", "game_no", "last_ranks", "points", "game")

    def __init__(
        self,
        players: int,
        game_count: int,
        phase: str = NEW,
        game_no: int = 0,
        last_ranks: tuple[int, ...] | None = None,
        points: tuple[int, ...] | None = None,
        game: GameState | None = None,
    ):
        self.players = players
        self.game_count = game_count
        self.phase = phase
        self.game_no = game_no  # the game being played, or the last one played
        self.last_ranks = last_ranks  # ranks of the last finished game
        self.points = points if points is not None else (0,) * players
        self.game = game

    def replace(self, **changes: object) -> PlaceState:
        new = object.__new__(PlaceState)
        new.players = self.players
        new.game_count = self.game_count
        new.phase = self.phase
        new.game_no = self.game_no
        new.last_ranks = self.last_ranks
        new.points = self.points
        new.game = self.game
        for name, value in changes.items():
            setattr(new, name, value)
        return new

    def with_game(self, game: GameState) -> PlaceState:
        """The same place with the game moved on: every action's copy, written out."""
        new = object.__new__(PlaceState)
        new.players = self.players
        new.game_count = self.game_count
        new.phase = self.phase
        new.game_no = self.game_no
        new.last_ranks = self.last_ranks
        new.points = self.points
        new.game = game
        return new

    @property
    def needs_action(self) -> bool:
        """A turn is open: only a player's action (or its timeout) moves the place."""
        return self.phase == IN_GAME and self.game is not None and self.game.phase == g.TURN_OPEN

    def to_dict(self) -> dict:
        return {
            "players": self.players,
            "game_count": self.game_count,
            "phase": self.phase,
            "game_no": self.game_no,
            "last_ranks": None if self.last_ranks is None else list(self.last_ranks),
            "points": list(self.points),
            "game": None if self.game is None else self.game.to_dict(),
        }

    @classmethod
    def from_dict(cls, d: dict) -> PlaceState:
        return cls(
            players=d["players"],
            game_count=d["game_count"],
            phase=d["phase"],
            game_no=d["game_no"],
            last_ranks=None if d["last_ranks"] is None else tuple(d["last_ranks"]),
            points=tuple(d["points"]),
            game=None if d["game"] is None else GameState.from_dict(d["game"]),
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PlaceState) and self.to_dict() == other.to_dict()


class Deal:
    """A game's cards: as dealt, after the exchange, and who starts."""

    __slots__ = ("dealt", "hands", "exchanges", "first")

    def __init__(self, dealt, hands, exchanges, first):
        self.dealt = dealt
        self.hands = hands
        self.exchanges = exchanges
        self.first = first


def make_deal(rng: random.Random, players: int, last_ranks: Sequence[int] | None) -> Deal:
    dealt = deal(rng, players)
    if last_ranks:
        hands, moves = exchange(dealt, last_ranks)
    else:
        hands, moves = dealt, []
    return Deal(dealt, hands, moves, first_player(hands, last_ranks))


def step(
    state: PlaceState,
    rng_for_game: Callable[[int], random.Random],
    exchange_ranks: Callable[[int], Sequence[int]] | None = None,
) -> tuple[PlaceState, list[Event], Deal | None]:
    """One step of the dealer when no action is awaited.

    Returns the new state, the events, and the deal when a game started. With
    ``exchange_ranks`` (duplicate deals), game 2 and later exchange, and choose who
    starts, by ``exchange_ranks(game_no)`` rather than by the game before's ranks.
    """
    if state.phase == NEW:
        return state.replace(phase=BETWEEN_GAMES), [StartPlace()], None
    if state.phase == BETWEEN_GAMES:
        if state.game_no >= state.game_count:
            return state.replace(phase=OVER, game=None), [EndPlace()], None
        no = state.game_no + 1
        last = state.last_ranks
        if exchange_ranks is not None and no > 1:
            last = tuple(exchange_ranks(no))
        d = make_deal(rng_for_game(no), state.players, last)
        game = g.new_game(no, d.hands, d.first)
        return state.replace(phase=IN_GAME, game_no=no, game=game), [StartGame(no)], d
    if state.phase == IN_GAME:
        assert state.game is not None
        if state.game.phase == g.TURN_OPEN:
            raise g.NoTurnOpen("a turn is open: waiting for the player")
        game, events = g.advance(state.game)
        if game.phase == g.OVER:
            points = tuple(
                p + points_for(r, state.players)
                for p, r in zip(state.points, game.ranks, strict=True)
            )
            return (
                state.replace(phase=BETWEEN_GAMES, game=game, last_ranks=game.ranks, points=points),
                events,
                None,
            )
        return state.with_game(game), events, None
    raise g.NoTurnOpen("the place is over")


def abort(state: PlaceState) -> tuple[PlaceState, list[Event]]:
    """Stop the place now (staff's decision, not the rules'): the game in play, if any,
    is dropped, so the place is over after the games it finished, with their points.

    ``last_ranks`` and ``points`` are already those of the last finished game: a game
    adds its points only when it ends.
    """
    if state.phase == OVER:
        raise g.NoTurnOpen("the place is over")
    finished = state.game_no - 1 if state.phase == IN_GAME else state.game_no
    return state.replace(phase=OVER, game_no=finished, game=None), [EndPlace()]


def _in_game(state: PlaceState) -> GameState:
    if state.phase != IN_GAME or state.game is None:
        raise g.NoTurnOpen("no game is running")
    return state.game


def act(
    state: PlaceState, seat: int, tokens: Sequence[int]
) -> tuple[PlaceState, TurnResult, list[Event]]:
    game, result, events = g.act(_in_game(state), seat, tokens)
    return state.with_game(game), result, events


def play_mask(
    state: PlaceState, seat: int, mask: int
) -> tuple[PlaceState, TurnResult, list[Event]]:
    game, result, events = g.play_mask(_in_game(state), seat, mask)
    return state.with_game(game), result, events


def time_out(state: PlaceState, seat: int) -> tuple[PlaceState, TurnResult, list[Event]]:
    game, result, events = g.time_out(_in_game(state), seat)
    return state.with_game(game), result, events


def last_game(state: PlaceState) -> PlaceState:
    """The place plays no game after the one being played (or just played): the next step
    between games ends it."""
    return state.replace(game_count=min(state.game_count, state.game_no))


def new_place(game_count: int, players: int = 5) -> PlaceState:
    if players < 3:
        raise ValueError("a place needs at least three players")
    if game_count < 1:
        raise ValueError("a place plays at least one game")
    return PlaceState(players=players, game_count=game_count)
