"""Moves of either profile through the referee's own functions, and an exact solver
for endings where two players are left.

:func:`moves` lists a seat's candidates (the legal moves of :mod:`.legal` or
:mod:`.uecda_legal`, and the pass) and :func:`apply` plays one through
:mod:`.game` or :mod:`.uecda`: the evaluator's playouts and the solver use these
two, so the rules they play are the referee's, not a copy.

When two players are left the game between them is one of perfect information
for whoever knows both hands (the seat's own and, once every other card is
accounted for, the other's): :func:`first_chance` plays it out exactly, each
player going out first if it can. It is the evaluator's test oracle and finishes
its playouts once they reach a small enough ending.
"""

from __future__ import annotations

from collections.abc import Sequence

from . import game as g
from . import uecda as u
from .game import GameState
from .legal import legal_plays
from .place import points_for as points_2011
from .uecda import UecdaGame
from .uecda_legal import legal_moves

Position = GameState | UecdaGame
#: A candidate: a card mask (2011; the whole hand when nothing is legal, a miss),
#: a :class:`~.uecda.Move` (UECda), or None for a pass.
Move = int | u.Move | None

PASS_MOVE = u.analyze(0, 0)


def moves(state: Position, seat: int) -> list[Move]:
    """Every move ``seat`` may make now: its legal plays, then the pass when legal."""
    if isinstance(state, UecdaGame):
        return [*legal_moves(state, seat), None]
    hand = state.hands[seat]
    table = state.table
    out: list[Move] = [p.mask for p in legal_plays(hand, table, state.revolution)]
    if table is not None:
        out.append(None)
    elif not out:  # nothing legal to lead (only a forbidden finish): a miss
        out.append(hand)
    return out


def apply(state: Position, seat: int, move: Move) -> Position:
    """The position after ``seat`` makes ``move``: the next turn open, or the game over
    (UECda: or drawn, 20 passes in a row)."""
    if isinstance(state, UecdaGame):
        return u.submit(state, seat, PASS_MOVE if move is None else move)[0]
    played = g.act(state, seat, ()) if move is None else g.play_mask(state, seat, move)
    return g.advance(played[0])[0]


def is_open(state: Position) -> bool:
    """A turn is open (the game is neither over nor drawn)."""
    if isinstance(state, UecdaGame):
        return state.phase == u.TURN
    return state.phase == g.TURN_OPEN


def keeps_lead(after: Position, seat: int) -> bool:
    """``seat``, having just moved, leads the next trick at once, cards in hand (an 8-cut;
    a play the others have all passed already): what its move made of the public state
    alone, whatever the others hold."""
    if not is_open(after) or after.turn != seat or not after.hands[seat]:
        return False
    return (after.stage if isinstance(after, UecdaGame) else after.table) is None


def points_for(state: Position, rank: int) -> int:
    """A game's points for ``rank`` in the profile of ``state``."""
    players = len(state.hands)
    if isinstance(state, UecdaGame):
        return state.rules.points_for(rank, players)
    return points_2011(rank, players)


def holders(state: Position) -> list[int]:
    return [s for s, h in enumerate(state.hands) if h]


def _key(state: Position) -> tuple:
    if isinstance(state, UecdaGame):
        stage = state.stage
        return (
            state.hands,
            None if stage is None else (stage.ones, stage.twos),
            state.revolution,
            state.locked,
            state.joker_single,
            state.passed,
            state.passes_in_row,
            state.last_player,
            state.turn,
        )
    table = state.table
    return (
        state.hands,
        None if table is None else (table.mask, table.kind),
        state.revolution,
        state.trick_revolutions,
        state.passed,
        state.last_player,
        state.turn,
    )


def _first_after(state: Position, player: int, other: int, memo: dict) -> float:
    """After a move: the exact value if the game goes on; once over, 1 if ``player``
    took the better rank of the two, else 0; ½ for a drawn game (its ranks are drawn
    at random)."""
    if is_open(state):
        return first_chance(state, player, other, memo)
    if isinstance(state, UecdaGame) and state.phase == u.DRAW:
        return 0.5
    return 1.0 if state.ranks[player] < state.ranks[other] else 0.0


def _idle_pass(state: Position) -> bool:
    """A UECda pass on an empty field without the 20-pass draw: the same player leads
    again, nothing changed (the solver would go round for ever)."""
    return isinstance(state, UecdaGame) and state.stage is None and not state.rules.pass_draw


def first_chance(state: Position, player: int, other: int, memo: dict | None = None) -> float:
    """The chance that ``player`` takes the better rank of the two players left,
    ``player`` and ``other``, both playing perfectly (1 or 0; UECda: ½ when the best
    either can do is a 20-pass draw).

    ``state`` has a turn open and only those two holding cards; ``memo`` may be
    shared between calls on the same game.
    """
    if memo is None:
        memo = {}
    key = (_key(state), player)
    known = memo.get(key)
    if known is not None:
        return known
    seat = state.turn
    maximize = seat == player
    best = -1.0 if maximize else 2.0
    for m in moves(state, seat):
        if m is None and _idle_pass(state):
            continue
        v = _first_after(apply(state, seat, m), player, other, memo)
        if maximize:
            if v > best:
                best = v
                if best >= 1.0:
                    break
        elif v < best:
            best = v
            if best <= 0.0:
                break
    memo[key] = best
    return best


def _two_ranks(state: Position) -> tuple[int, int]:
    """The two ranks still free: the better goes to whoever goes out first."""
    taken = set(state.ranks)
    free = [r for r in range(1, len(state.hands) + 1) if r not in taken]
    return free[0], free[-1]


def solve(state: Position, seat: int) -> list[tuple[Move, float]]:
    """Each move of ``seat`` (to move, one of the two players left) and the points it
    makes with perfect play on both sides: the exact value the evaluator estimates."""
    if not is_open(state) or state.turn != seat:
        raise ValueError("the solver needs the seat's turn open")
    left = holders(state)
    if len(left) != 2 or seat not in left:
        raise ValueError("the solver needs two players left, the seat one of them")
    other = left[0] if left[1] == seat else left[1]
    better, worse = _two_ranks(state)
    win, lose = points_for(state, better), points_for(state, worse)
    memo: dict = {}
    out = []
    for m in moves(state, seat):
        p = _first_after(apply(state, seat, m), seat, other, memo)
        out.append((m, p * win + (1 - p) * lose))
    return out


def ending_value(state: Position, player: int, other: int, memo: dict) -> tuple[float, float]:
    """``player``'s expected points and rank from an open ending of two, it and ``other``."""
    better, worse = _two_ranks(state)
    p = first_chance(state, player, other, memo)
    points = p * points_for(state, better) + (1 - p) * points_for(state, worse)
    return points, p * better + (1 - p) * worse


def total_cards(hands: Sequence[int]) -> int:
    return sum(h.bit_count() for h in hands)
