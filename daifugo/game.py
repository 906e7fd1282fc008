"""One game: turns, tricks, ranks. Pure and immutable.

A game moves through two phases in turn: READY (the previous turn is settled;
the next step opens a turn or ends the game) and TURN_OPEN (one seat must act).
That split is the 2011 flow (``next_turn`` between turns) and lets a server put
a pace between steps. Applying anything returns a new state, a record of what
happened and the events to announce; the old state is untouched.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .cards import resolve_written, sorted_ids
from .events import EndGame, EndPlayer, EndTurn, Event, StartTurn
from .plays import Kind, Miss, Play, judge, read_play

READY, TURN_OPEN, OVER = "ready", "turn_open", "over"


class ActionError(Exception):
    """An action that is not a move (RULES.md, "These are not moves"): it changes nothing."""


class NoTurnOpen(ActionError):
    """No turn is open: between turns, between games, or the place is over."""


class NotYourTurn(ActionError):
    """A turn is open, for another seat."""


_new_state = object.__new__


class GameState:
    """The whole position of one game. Treat as immutable: use :meth:`replace`."""

    __slots__ = (
        "game_no",
        "hands",
        "phase",
        "turn",
        "table",
        "revolution",
        "trick_revolutions",
        "passed",
        "last_player",
        "ranks",
        "turn_no",
    )

    def __init__(
        self,
        game_no: int,
        hands: tuple[int, ...],
        phase: str,
        turn: int,
        table: Play | None = None,
        revolution: bool = False,
        trick_revolutions: int = 0,
        passed: int = 0,
        last_player: int = -1,
        ranks: tuple[int, ...] | None = None,
        turn_no: int = 0,
    ):
        self.game_no = game_no
        self.hands = hands  # card mask per seat
        self.phase = phase
        self.turn = turn  # the seat acting (TURN_OPEN) or to act next (READY)
        self.table = table  # the last play of the trick, None when the table is empty
        self.revolution = revolution  # the order in force for this trick
        self.trick_revolutions = trick_revolutions  # revolution plays in this trick
        self.passed = passed  # bit per seat that passed in this trick
        self.last_player = last_player  # who made ``table``; -1 when empty
        self.ranks = ranks if ranks is not None else (0,) * len(hands)  # 0: not yet
        self.turn_no = turn_no  # turns opened so far

    def replace(self, **changes: object) -> GameState:
        """A copy with some fields changed (written out: this is the hot path)."""
        new = _new_state(GameState)
        new.game_no = self.game_no
        new.hands = self.hands
        new.phase = self.phase
        new.turn = self.turn
        new.table = self.table
        new.revolution = self.revolution
        new.trick_revolutions = self.trick_revolutions
        new.passed = self.passed
        new.last_player = self.last_player
        new.ranks = self.ranks
        new.turn_no = self.turn_no
        for name, value in changes.items():
            setattr(new, name, value)
        return new

    def settled(self, hands: tuple[int, ...], passed: int, turn: int) -> GameState:
        """The state after a pass or a play that keeps the trick going: READY for ``turn``.

        The hot path of every game (most turns end so): written out, with no
        keyword arguments to unpack.
        """
        new = _new_state(GameState)
        new.game_no = self.game_no
        new.hands = hands
        new.phase = READY
        new.turn = turn
        new.table = self.table
        new.revolution = self.revolution
        new.trick_revolutions = self.trick_revolutions
        new.passed = passed
        new.last_player = self.last_player
        new.ranks = self.ranks
        new.turn_no = self.turn_no
        return new

    @property
    def players(self) -> int:
        return len(self.hands)

    @property
    def holding(self) -> list[int]:
        """Seats that still hold cards."""
        return [s for s, h in enumerate(self.hands) if h]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GameState) and self.to_dict() == other.to_dict()

    def __repr__(self) -> str:
        return f"GameState(game={self.game_no}, phase={self.phase}, turn={self.turn}, table={self.table})"

    # -- persistence: plain JSON-able data, card masks as lists of ids --
    def to_dict(self) -> dict:
        return {
            "game_no": self.game_no,
            "hands": [sorted_ids(h) for h in self.hands],
            "phase": self.phase,
            "turn": self.turn,
            "table": None
            if self.table is None
            else {"cards": sorted_ids(self.table.mask), "kind": int(self.table.kind)},
            "revolution": self.revolution,
            "trick_revolutions": self.trick_revolutions,
            "passed": [s for s in range(len(self.hands)) if self.passed >> s & 1],
            "last_player": self.last_player,
            "ranks": list(self.ranks),
            "turn_no": self.turn_no,
        }

    @classmethod
    def from_dict(cls, d: dict) -> GameState:
        table = None
        if d["table"] is not None:
            mask = sum(1 << c for c in d["table"]["cards"])
            kind = d["table"]["kind"]
            table = next(p for p in read_play(mask, d["revolution"]) if p.kind == kind)
        return cls(
            game_no=d["game_no"],
            hands=tuple(sum(1 << c for c in h) for h in d["hands"]),
            phase=d["phase"],
            turn=d["turn"],
            table=table,
            revolution=d["revolution"],
            trick_revolutions=d["trick_revolutions"],
            passed=sum(1 << s for s in d["passed"]),
            last_player=d["last_player"],
            ranks=tuple(d["ranks"]),
            turn_no=d["turn_no"],
        )


@dataclass(frozen=True, slots=True)
class TurnResult:
    """What one action turned out to be."""

    seat: int
    outcome: str  # "play", "pass" or "miss"
    reason: str | None  # the miss code (plays.Miss), None otherwise
    cards: tuple[int, ...]  # the cards played, weakest first; () otherwise
    reset: bool  # the trick ended
    rank: int  # the rank the player took (finished or missed), 0 otherwise
    eight_cut: bool = False
    revolution_changed: bool = False  # the trick ended with an odd number of revolutions

    @property
    def finished(self) -> bool:
        return self.outcome == "play" and self.rank > 0


def new_game(game_no: int, hands: Sequence[int], first: int) -> GameState:
    """A dealt (and exchanged) game, READY for its first turn by ``first``."""
    return GameState(game_no=game_no, hands=tuple(hands), phase=READY, turn=first)


def advance(state: GameState) -> tuple[GameState, list[Event]]:
    """The step between turns: open the next turn, or end the game."""
    if state.phase != READY:
        raise NoTurnOpen(f"the game is {state.phase}, not between turns")
    hands = state.hands
    if hands.count(0) >= len(hands) - 1:  # one holder or none: the game is over
        holding = [s for s, h in enumerate(hands) if h]
        ranks = list(state.ranks)
        events: list[Event] = []
        for s in holding:  # the last player takes the last free rank
            ranks[s] = _worst_free_rank(ranks)
            events.append(EndPlayer(s, ranks[s]))
        new = state.replace(
            phase=OVER, hands=(0,) * len(state.hands), ranks=tuple(ranks), table=None
        )
        events.append(EndGame(state.game_no, state.revolution, tuple(ranks)))
        return new, events
    table = () if state.table is None else state.table.cards
    new = state.settled(hands, state.passed, state.turn)
    new.phase = TURN_OPEN
    new.turn_no = state.turn_no + 1
    return new, [StartTurn(state.turn, table, state.revolution)]


def _check_turn(state: GameState, seat: int) -> None:
    if state.phase != TURN_OPEN:
        raise NoTurnOpen("no turn is open")
    if seat != state.turn:
        raise NotYourTurn("it is not this player's turn")


def act(
    state: GameState, seat: int, tokens: Sequence[int]
) -> tuple[GameState, TurnResult, list[Event]]:
    """Apply a player's action: parsed card tokens (``cards.parse_card``), none for a pass."""
    _check_turn(state, seat)
    hand = state.hands[seat]
    if not tokens:
        if state.table is None:
            return _miss(state, seat, Miss.PASS_ON_LEAD)
        return _pass(state, seat)
    mask, duplicate, not_held = resolve_written(tokens, hand)
    if duplicate:
        return _miss(state, seat, Miss.DUPLICATE_CARD)
    if not_held:
        return _miss(state, seat, Miss.CARD_NOT_HELD)
    return play_mask(state, seat, mask)


def play_mask(state: GameState, seat: int, mask: int) -> tuple[GameState, TurnResult, list[Event]]:
    """Apply a play of held cards given as a mask (what bots and tests hold)."""
    _check_turn(state, seat)
    hand = state.hands[seat]
    if mask & ~hand or not mask:
        return _miss(state, seat, Miss.CARD_NOT_HELD)
    play, reason = judge(mask, hand, state.table, state.revolution)
    if play is None:
        return _miss(state, seat, reason)
    return _play(state, seat, play)


def time_out(state: GameState, seat: int) -> tuple[GameState, TurnResult, list[Event]]:
    """The turn's time limit ran out: a miss."""
    _check_turn(state, seat)
    return _miss(state, seat, Miss.TIMEOUT)


# -- settling a turn: RULES.md "End of a trick", first rule that applies --


def _best_free_rank(ranks: Sequence[int]) -> int:
    taken = set(ranks)
    return next(r for r in range(1, len(ranks) + 1) if r not in taken)


def _worst_free_rank(ranks: Sequence[int]) -> int:
    taken = set(ranks)
    return next(r for r in range(len(ranks), 0, -1) if r not in taken)


def _next_holding(hands: Sequence[int], seat: int, skip: int = 0) -> int:
    """The next seat after ``seat`` that holds cards and is not in ``skip``."""
    n = len(hands)
    for step in range(1, n + 1):
        s = (seat + step) % n
        if hands[s] and not skip >> s & 1:
            return s
    return seat


def _reset(state: GameState, revolutions: int, **changes: object) -> GameState:
    """End the trick: empty table, passes forgotten, the order flips when the trick
    held an odd number of ``revolutions``."""
    flip = revolutions % 2 == 1
    new = state.settled(state.hands, 0, state.turn)
    new.table = None
    new.last_player = -1
    new.trick_revolutions = 0
    new.revolution = state.revolution != flip
    for name, value in changes.items():
        setattr(new, name, value)
    return new


def _play(state: GameState, seat: int, play: Play) -> tuple[GameState, TurnResult, list[Event]]:
    hands = list(state.hands)
    hands[seat] &= ~play.mask
    cards = play.cards
    trick_revs = state.trick_revolutions + (1 if play.kind == Kind.GROUP and play.size >= 4 else 0)
    flip = trick_revs % 2 == 1
    if not hands[seat]:  # rule 1: finished
        ranks = list(state.ranks)
        ranks[seat] = _best_free_rank(ranks)
        new = _reset(
            state,
            trick_revs,
            hands=tuple(hands),
            ranks=tuple(ranks),
            turn=_next_holding(hands, seat),
        )
        result = TurnResult(seat, "play", None, cards, True, ranks[seat], False, flip)
        return new, result, [EndPlayer(seat, ranks[seat]), EndTurn(seat, cards, True)]
    if play.has_eight:  # rule 3: 8-cut, the same player leads again
        new = _reset(state, trick_revs, hands=tuple(hands), turn=seat)
        result = TurnResult(seat, "play", None, cards, True, 0, True, flip)
        return new, result, [EndTurn(seat, cards, True)]
    # rule 4 cannot apply after a play that is not the first of the trick
    # without everyone else having passed; it is checked generally all the same
    nxt = _next_holding(hands, seat, state.passed)
    if nxt == seat:  # everyone else passed already
        new = _reset(state, trick_revs, hands=tuple(hands), turn=seat)
        result = TurnResult(seat, "play", None, cards, True, 0, False, flip)
        return new, result, [EndTurn(seat, cards, True)]
    new = state.settled(tuple(hands), state.passed, nxt)
    new.table = play
    new.last_player = seat
    new.trick_revolutions = trick_revs
    return new, TurnResult(seat, "play", None, cards, False, 0), [EndTurn(seat, cards, False)]


def _pass(state: GameState, seat: int) -> tuple[GameState, TurnResult, list[Event]]:
    passed = state.passed | (1 << seat)
    leader = state.last_player
    nxt = _next_holding(state.hands, seat, passed | (1 << leader))
    if nxt == seat:  # rule 4: every other player holding cards has passed
        flip = state.trick_revolutions % 2 == 1
        new = _reset(state, state.trick_revolutions, turn=leader)
        result = TurnResult(seat, "pass", None, (), True, 0, False, flip)
        return new, result, [EndTurn(seat, (), True)]
    # rule 5: the next holder who has not passed (the leader comes round again)
    nxt = _next_holding(state.hands, seat, passed)
    new = state.settled(state.hands, passed, nxt)
    return new, TurnResult(seat, "pass", None, (), False, 0), [EndTurn(seat, (), False)]


def _miss(state: GameState, seat: int, reason: str) -> tuple[GameState, TurnResult, list[Event]]:
    """Rule 2: the hand is discarded, the worst free rank taken, the trick ends."""
    hands = list(state.hands)
    hands[seat] = 0
    ranks = list(state.ranks)
    ranks[seat] = _worst_free_rank(ranks)
    flip = state.trick_revolutions % 2 == 1
    new = _reset(
        state,
        state.trick_revolutions,
        hands=tuple(hands),
        ranks=tuple(ranks),
        turn=_next_holding(hands, seat),
    )
    result = TurnResult(seat, "miss", reason, (), True, ranks[seat], False, flip)
    return new, result, [EndPlayer(seat, ranks[seat]), EndTurn(seat, (), True)]
