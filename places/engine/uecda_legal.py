"""Every move tndhms would accept from a hand: what random players and bots choose from.

The listing is exact but for the lone joker: a table is listed if and only if
:func:`.uecda.judge` accepts it and the player holds its cards, except that a
lone joker, which tndhms accepts in any of 60 cells to the same effect, is
listed once, in the cell [0][0] (``Kx``, where the stock client puts it). A
property test holds the listing and the judge together.

Moves depend only on their cells, so they are built once per column (groups)
and per suit's row of cards (stairs) and shared between hands.
"""

from __future__ import annotations

from functools import cache, lru_cache

from .uecda import (
    CELL_OF_CARD,
    JOKER_BIT,
    JOKER_SINGLE,
    SINGLE,
    SPADE_3,
    STAIR,
    Move,
    UecdaGame,
    analyze,
    beats,
    cell,
    judge,
    lock_suit,
)


def _table(cells: list[tuple[int, int]], joker: tuple[int, int] | None) -> Move:
    ones = 0
    for r, c in cells:
        ones |= 1 << cell(r, c)
    return analyze(ones, 0 if joker is None else 1 << cell(*joker))


@cache
def single(cid: int) -> Move:
    """The move of one real card."""
    return analyze(1 << CELL_OF_CARD[cid], 0)


LONE_JOKER = analyze(0, 1 << cell(0, 0))


@cache
def _groups(col: int, rows: int, joker: bool) -> dict[int, tuple[Move, ...]]:
    """Groups (two cards or more) of column ``col`` from the held ``rows`` (bit per
    row 0–3) and the joker, by size. The joker may take any row not used by a real
    card, and row 4 beside four real cards."""
    by_size: dict[int, list[Move]] = {}
    sub = rows
    while sub:
        used = [(r, col) for r in range(4) if sub >> r & 1]
        if len(used) >= 2:
            by_size.setdefault(len(used), []).append(_table(used, None))
        if joker:
            free = [r for r in range(4) if not sub >> r & 1] or [4]
            for r in free:
                by_size.setdefault(len(used) + 1, []).append(_table(used, (r, col)))
        sub = (sub - 1) & rows
    return {k: tuple(v) for k, v in by_size.items()}


@lru_cache(maxsize=65536)
def _stairs(row: int, cols: int, joker: bool) -> dict[int, tuple[Move, ...]]:
    """Stairs along one suit's row from the held columns ``cols`` (bit per column
    1–13) and the joker, by size: every run of three cells or more in columns
    0–14 whose cells are held cards but for at most one, the joker's."""
    by_size: dict[int, list[Move]] = {}
    for a in range(15):
        for b in range(a + 2, 15):
            missing = [c for c in range(a, b + 1) if not cols >> c & 1]
            size = b - a + 1
            if not missing:
                cells = [(row, c) for c in range(a, b + 1)]
                by_size.setdefault(size, []).append(_table(cells, None))
                if joker:  # the joker may stand for a card the player holds
                    for c in range(a, b + 1):
                        rest = [(row, x) for x in range(a, b + 1) if x != c]
                        by_size.setdefault(size, []).append(_table(rest, (row, c)))
            elif len(missing) == 1 and joker:
                rest = [(row, x) for x in range(a, b + 1) if x != missing[0]]
                by_size.setdefault(size, []).append(_table(rest, (row, missing[0])))
            elif len(missing) > 1 or not joker:
                break  # a longer run from ``a`` misses these too
    return {k: tuple(v) for k, v in by_size.items()}


def _columns_and_rows(hand: int) -> tuple[list[int], list[int]]:
    """Held rows per column (index 1–13) and held columns per row (index 0–3)."""
    by_col = [0] * 15
    by_row = [0, 0, 0, 0]
    m = hand & ~JOKER_BIT
    while m:
        b = m & -m
        c, r = divmod(CELL_OF_CARD[b.bit_length() - 1], 5)
        by_col[c] |= 1 << r
        by_row[r] |= 1 << c
        m ^= b
    return by_col, by_row


def candidates(hand: int, kind: int = 0, size: int = 0) -> list[Move]:
    """The moves a hand can make of a kind and a size (kind 0: every move)."""
    joker = bool(hand & JOKER_BIT)
    out: list[Move] = []
    if kind in (0, SINGLE):
        m = hand & ~JOKER_BIT
        while m:
            b = m & -m
            out.append(single(b.bit_length() - 1))
            m ^= b
        if joker:
            out.append(LONE_JOKER)
        if kind:
            return out
    by_col, by_row = _columns_and_rows(hand)
    if kind in (0, 2):
        for c in range(1, 14):
            if by_col[c]:
                groups = _groups(c, by_col[c], joker)
                if kind:
                    out.extend(groups.get(size, ()))
                else:
                    for moves in groups.values():
                        out.extend(moves)
    if kind in (0, STAIR):
        for r in range(4):
            if by_row[r]:
                stairs = _stairs(r, by_row[r], joker)
                if kind:
                    out.extend(stairs.get(size, ()))
                else:
                    for moves in stairs.values():
                        out.extend(moves)
    return out


def legal_moves(g: UecdaGame, player: int) -> list[Move]:
    """Every move of ``player`` tndhms would accept now (a pass is always possible)."""
    hand = g.hands[player]
    if g.joker_single:
        s3 = single(SPADE_3)
        return [s3] if hand >> SPADE_3 & 1 and judge(g, player, s3)[0] else []
    stage = g.stage
    if stage is None:
        return candidates(hand)
    revolution = g.revolution
    out = [m for m in candidates(hand, stage.kind, stage.size) if beats(stage, m, revolution)]
    if g.locked:  # a lone joker ignores the lock
        rules = g.rules
        suit = lock_suit(rules, stage)
        out = [m for m in out if m.kind == JOKER_SINGLE or lock_suit(rules, m) == suit]
    return out
