"""The stock C client's choices (``client/daihinmin.c`` 0.21), among the moves tndhms accepts.

One source for two users: the sample strategy ``stock`` (``bots.strategies``), which
plays as the stock client does, and the evaluator's ``stock`` playout policy
(:mod:`.evaluate`), which plays every seat of a playout that way. Most UECda entrants
start from the stock client, so a playout of stock moves is a better guess of how a
table plays than one of the weakest moves.
"""

from __future__ import annotations

from collections.abc import Sequence

from . import uecda as u

#: Column of the 2s and of the 3s in tndhms's table: the strongest number in force.
COLUMN_2, COLUMN_3 = 13, 1


def strength(m: u.Move, reversed_strength: bool) -> int:
    """Stronger is higher: the column (reversed when lower beats higher); a lone joker
    above all."""
    if m.kind == u.JOKER_SINGLE:
        return 100
    high = m.low + m.size - 1 if m.kind == u.STAIR else m.low
    return 14 - high if reversed_strength else m.low


def precious(m: u.Move, reversed_strength: bool) -> bool:
    """A move that spends the joker or the strongest number in force."""
    top = COLUMN_3 if reversed_strength else COLUMN_2
    columns = m.size if m.kind == u.STAIR else 1
    return bool(m.twos or m.kind == u.JOKER_SINGLE or m.low <= top < m.low + columns)


def _column_and_stairs(cid: int) -> tuple[int, tuple[int, ...]]:
    col = u.column_of(cid)
    row = u.MARK[cid] - 1
    column = sum(1 << u.card_of(r, col) for r in range(4))
    stairs = tuple(
        sum(1 << u.card_of(row, c) for c in range(low, low + 3))
        for low in range(col - 2, col + 1)
        if low >= 1 and low + 2 <= 13
    )
    return column, stairs


#: Per real card: the mask of its column, and of each stair of three along its row through it.
_COMBINATIONS = {cid: _column_and_stairs(cid) for cid in range(1, u.JOKER)}


def in_combination(hand: int, cid: int) -> bool:
    """The card is part of a pair (its column) or a stair of three (its suit's row)."""
    column, stairs = _COMBINATIONS[cid]
    return (hand & column).bit_count() >= 2 or any(hand & s == s for s in stairs)


def stock_move(
    hand: int, stage: u.Move | None, moves: Sequence[u.Move], reversed_strength: bool
) -> u.Move | None:
    """The stock client's move (None: a pass). Leading: its longest stair, else its
    largest group, else its weakest single (the joker alone last), real cards before
    the joker. Following a single: its weakest single that breaks no pair or stair,
    else the joker, else a pass. Following a group or stair: the weakest that beats
    it, real cards first. "Weakest" is in the order in force; among equals, the first
    of ``moves``.

    One pass over ``moves`` (a playout makes this choice at every turn)."""
    if not moves:
        return None
    rev = reversed_strength
    if stage is None:
        return _lead(moves, rev)
    if stage.kind == u.SINGLE or stage.kind == u.JOKER_SINGLE:
        best, best_strength, joker = None, 0, None
        for m in moves:
            if m.kind == u.JOKER_SINGLE:
                joker = joker or m
            elif m.kind == u.SINGLE and not m.twos:
                at = strength(m, rev)
                if (best is None or at < best_strength) and not in_combination(
                    hand, m.cards.bit_length() - 1
                ):
                    best, best_strength = m, at
        return best or joker
    best_real, real_strength, best_any, any_strength = None, 0, None, 0
    for m in moves:
        at = strength(m, rev)
        if best_any is None or at < any_strength:
            best_any, any_strength = m, at
        if not m.twos and m.kind != u.JOKER_SINGLE and (best_real is None or at < real_strength):
            best_real, real_strength = m, at
    return best_real or best_any


def _lead(moves: Sequence[u.Move], rev: bool) -> u.Move:
    """The stock client's lead: its longest stair, else its largest group (real cards
    before the joker, then the weakest), else its weakest real single, else the first."""
    shaped: dict[tuple[int, bool], tuple[tuple[int, int], u.Move]] = {}
    single, single_strength = None, 0
    for m in moves:
        kind = m.kind
        real = not m.twos
        if kind == u.STAIR or kind == u.GROUP:
            key = (-m.size, strength(m, rev))
            for bucket in ((kind, True), (kind, False)) if real else ((kind, False),):
                held = shaped.get(bucket)
                if held is None or key < held[0]:
                    shaped[bucket] = (key, m)
        elif kind == u.SINGLE and real:
            at = strength(m, rev)
            if single is None or at < single_strength:
                single, single_strength = m, at
    for bucket in ((u.STAIR, True), (u.STAIR, False), (u.GROUP, True), (u.GROUP, False)):
        if bucket in shaped:
            return shaped[bucket][1]
    return single or moves[0]
