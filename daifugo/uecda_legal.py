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

from collections.abc import Sequence
from functools import cache, lru_cache

from .uecda import (
    CELL_OF_CARD,
    GROUP,
    JOKER_BIT,
    JOKER_SINGLE,
    SINGLE,
    SPADE_3,
    STAIR,
    Move,
    UecdaGame,
    analyze,
    beats,
    card_of,
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


#: Real cards of a column above / below each column (singles that beat a single).
_ABOVE = tuple(
    sum(1 << card_of(r, x) for r in range(4) for x in range(c + 1, 14)) for c in range(15)
)
_BELOW = tuple(sum(1 << card_of(r, x) for r in range(4) for x in range(1, c)) for c in range(15))


def _row_columns(hand: int, row: int) -> int:
    """The columns (bit per column 1–13) of the cards a hand holds in one suit's row.

    A row's card ids are ``row * 13 + number``: numbers 3…K are columns 1…11, the
    ace column 12 and the 2 column 13.
    """
    bits = hand >> (row * 13 + 1) & 0x1FFF  # bit n − 1 for number n
    return (bits >> 2) << 1 | (bits & 1) << 12 | (bits & 2) << 12


def _singles(cards: int) -> list[Move]:
    out = []
    while cards:
        b = cards & -cards
        out.append(single(b.bit_length() - 1))
        cards ^= b
    return out


@cache
def _group_leads(col: int, rows: int, joker: bool) -> tuple[Move, ...]:
    return tuple(m for moves in _groups(col, rows, joker).values() for m in moves)


@lru_cache(maxsize=65536)
def _stair_leads(row: int, cols: int, joker: bool) -> tuple[Move, ...]:
    return tuple(m for moves in _stairs(row, cols, joker).values() for m in moves)


def _rows_of_columns(r0: int, r1: int, r2: int, r3: int, c: int) -> int:
    """The rows (bit per row 0–3) held in column ``c``, from each row's columns."""
    return (r0 >> c & 1) | (r1 >> c & 1) << 1 | (r2 >> c & 1) << 2 | (r3 >> c & 1) << 3


@lru_cache(maxsize=16384)
def leads(hand: int) -> tuple[Move, ...]:
    """Every move a hand can lead (the lone joker in one cell)."""
    joker = bool(hand & JOKER_BIT)
    out = _singles(hand & ~JOKER_BIT)
    if joker:
        out.append(LONE_JOKER)
    r0, r1, r2, r3 = (_row_columns(hand, r) for r in range(4))
    present = r0 | r1 | r2 | r3
    if not joker:
        present &= (r0 & r1) | (r0 & r2) | (r0 & r3) | (r1 & r2) | (r1 & r3) | (r2 & r3)
    while present:  # columns with a pair at least (or any card, with the joker)
        b = present & -present
        c = b.bit_length() - 1
        out.extend(_group_leads(c, _rows_of_columns(r0, r1, r2, r3, c), joker))
        present ^= b
    for r, cols in enumerate((r0, r1, r2, r3)):
        if cols:
            out.extend(_stair_leads(r, cols, joker))
    return tuple(out)


def follows(hand: int, stage: Move, revolution: bool) -> list[Move]:
    """The moves of a hand that beat ``stage`` (the lock aside)."""
    joker = bool(hand & JOKER_BIT)
    kind, size, low = stage.kind, stage.size, stage.low
    if kind == SINGLE:
        out = _singles(hand & (_BELOW[low] if revolution else _ABOVE[low]))
        if joker:
            out.append(LONE_JOKER)
        return out
    out = []
    r0, r1, r2, r3 = (_row_columns(hand, r) for r in range(4))
    if kind == GROUP:
        for c in range(1, low) if revolution else range(low + 1, 14):
            rows = _rows_of_columns(r0, r1, r2, r3, c)
            if rows:
                out.extend(_groups(c, rows, joker).get(size, ()))
        return out
    if kind == STAIR:
        for r, cols in enumerate((r0, r1, r2, r3)):
            if cols:
                out.extend(
                    m for m in _stairs(r, cols, joker).get(size, ()) if beats(stage, m, revolution)
                )
    return out


def legal_moves(g: UecdaGame, player: int) -> Sequence[Move]:
    """Every move of ``player`` tndhms would accept now (a pass is always possible)."""
    hand = g.hands[player]
    if g.joker_single:
        s3 = single(SPADE_3)
        return [s3] if hand >> SPADE_3 & 1 and judge(g, player, s3)[0] else []
    stage = g.stage
    rules = g.rules
    if stage is None:
        out = leads(hand)
        return out if rules.stairs else [m for m in out if m.kind != STAIR]
    out = follows(hand, stage, g.reversed_strength)
    if g.locked:  # a lone joker ignores the lock
        suit = lock_suit(rules, stage)
        out = [m for m in out if m.kind == JOKER_SINGLE or lock_suit(rules, m) == suit]
    return out
