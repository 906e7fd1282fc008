"""Listing every legal play of a hand against a table, fast.

The listing is exact: a set of cards is in it if and only if :func:`plays.judge`
accepts it (a property test holds the two together). Jokers are distinct cards,
so a play that can use either joker is listed once per joker.

Speed matters (bots call this every turn, the engine benchmark thousands of
times a second): plays are built per strength index and per mark's row of
cards, cached (a Play depends only on its cards, kind and order, so hands
share them), and a hand's listing is assembled from those pieces.
"""

from __future__ import annotations

from functools import cache, lru_cache

from .cards import (
    INDEX,
    INDEX_MASK,
    JOKER_IDS,
    JOKER_MASK,
    JOKER_STRENGTH,
    MARK,
    card_id,
    iter_ids,
    number_of_index,
)
from .plays import Kind, Play, _strength, extend_stair, strongest_number_mask

_SINGLE, _GROUP, _STAIR = Kind.SINGLE, Kind.GROUP, Kind.STAIR


def _submasks(mask: int) -> list[int]:
    """Every non-empty submask of ``mask``."""
    out = []
    s = mask
    while s:
        out.append(s)
        s = (s - 1) & mask
    return out


def _joker_choices(hand: int) -> tuple[tuple[int, ...], ...]:
    """Joker masks by how many jokers they use: ``choices[n]`` uses ``n`` jokers."""
    held = [1 << j for j in JOKER_IDS if hand >> j & 1]
    if len(held) == 2:
        return ((0,), tuple(held), (held[0] | held[1],))
    if len(held) == 1:
        return ((0,), (held[0],))
    return ((0,),)


@cache
def _row_cards(mark: int, row: int) -> int:
    """Card mask of a 13-bit row (bit = strength index) of one mark."""
    m = 0
    for x in range(13):
        if row >> x & 1:
            m |= 1 << card_id(mark, number_of_index(x))
    return m


@lru_cache(maxsize=65536)
def _stair_shapes(row: int, jokers: int, revolution: bool) -> tuple[tuple[int, int, int, int], ...]:
    """Stairs one mark's row can make with up to ``jokers`` jokers.

    Each shape is ``(used_row_bits, jokers_used, low, high)`` where ``low`` and
    ``high`` are the ends after jokers took their places (RULES.md "stair").
    """
    shapes = []
    xs = [x for x in range(13) if row >> x & 1]
    for i, a in enumerate(xs):
        for b in xs[i:]:
            span = b - a + 1
            # the row's cards strictly between a and b (none when a == b)
            interior = row & ((1 << b) - (1 << (a + 1))) if b > a else 0
            # keep a and b; drop any subset of the interior as long as the
            # gaps stay within the jokers we have
            base_gaps = span - 2 - interior.bit_count() if a != b else 0
            if base_gaps > jokers:
                break  # a wider span only has more gaps
            drops = [0, *_submasks(interior)]
            ends = (1 << a) | (1 << b)
            for drop in drops:
                used = (interior & ~drop) | ends
                n_real = used.bit_count()
                gaps = span - n_real
                if gaps > jokers:
                    continue
                for n_j in range(gaps, jokers + 1):
                    size = n_real + n_j
                    if size < 3:
                        continue
                    extended = extend_stair(a, b, n_j - gaps, revolution)
                    if extended is not None:
                        shapes.append((used, n_j, *extended))
    return tuple(shapes)


@cache
def _group_plays(x: int, real: int, jokers: int, revolution: bool) -> dict[int, tuple[Play, ...]]:
    """Singles and groups made of the real cards ``real`` (all of index ``x``)
    and any of the jokers in ``jokers``, by size."""
    strength = _strength(x, revolution)
    by_size: dict[int, list[Play]] = {}
    for s in _submasks(real):
        n = s.bit_count()
        for n_j, choices in enumerate(_joker_choices(jokers)):
            size = n + n_j
            kind = _SINGLE if size == 1 else _GROUP
            for jm in choices:
                by_size.setdefault(size, []).append(Play(s | jm, kind, size, strength, x, x))
    return {k: tuple(v) for k, v in by_size.items()}


@cache
def _joker_plays(jokers: int) -> dict[int, tuple[Play, ...]]:
    """A lone joker, and both jokers as the strongest pair."""
    by_size: dict[int, tuple[Play, ...]] = {}
    for n_j, choices in enumerate(_joker_choices(jokers)):
        if n_j:
            kind = _SINGLE if n_j == 1 else _GROUP
            by_size[n_j] = tuple(Play(jm, kind, n_j, JOKER_STRENGTH, -1, -1) for jm in choices)
    return by_size


@lru_cache(maxsize=65536)
def _stair_plays(mark: int, row: int, jokers: int, revolution: bool) -> dict[int, tuple[Play, ...]]:
    """Stairs of one mark's row (bit = strength index) with the jokers held, by size."""
    choices = _joker_choices(jokers)
    by_size: dict[int, list[Play]] = {}
    for used, n_j, low, high in _stair_shapes(row, len(choices) - 1, revolution):
        cards = _row_cards(mark, used)
        size = used.bit_count() + n_j
        strength = 12 - high if revolution else low
        for jm in choices[n_j]:
            by_size.setdefault(size, []).append(Play(cards | jm, _STAIR, size, strength, low, high))
    return {k: tuple(v) for k, v in by_size.items()}


def _rows(real: int) -> list[int]:
    rows = [0, 0, 0, 0, 0]
    for c in iter_ids(real):
        rows[MARK[c]] |= 1 << INDEX[c]
    return rows


def legal_plays(hand: int, table: Play | None, revolution: bool) -> list[Play]:
    """Every legal play (not the pass) of ``hand``: leads, or beats of ``table``.

    A pass is legal exactly when ``table`` is not None. One card with two
    jokers is listed as a group when leading, and as the table's kind when
    following.
    """
    jokers = hand & JOKER_MASK
    real = hand ^ jokers
    out: list[Play] = []
    if table is None:
        for x in range(13):
            r = real & INDEX_MASK[x]
            if r:
                for ps in _group_plays(x, r, jokers, revolution).values():
                    out.extend(ps)
        if jokers:
            for ps in _joker_plays(jokers).values():
                out.extend(ps)
        if real:
            rows = _rows(real)
            for mark in (1, 2, 3, 4):
                if rows[mark]:
                    for size, ps in _stair_plays(mark, rows[mark], jokers, revolution).items():
                        if size == 3 and jokers == JOKER_MASK:
                            # one card with two jokers leads as a group, not a stair
                            out.extend(p for p in ps if p.mask & JOKER_MASK != JOKER_MASK)
                        else:
                            out.extend(ps)
    else:
        kind, size, beat = table.kind, table.size, table.strength
        if kind == _STAIR:
            if real:
                rows = _rows(real)
                for mark in (1, 2, 3, 4):
                    if rows[mark]:
                        ps = _stair_plays(mark, rows[mark], jokers, revolution).get(size)
                        if ps:
                            out.extend(p for p in ps if p.strength > beat)
        else:
            if beat < JOKER_STRENGTH - 1:
                # the indexes stronger than the table, in the order in force
                stronger = range(0, 12 - beat) if revolution else range(beat + 1, 13)
                for x in stronger:
                    r = real & INDEX_MASK[x]
                    if r:
                        ps = _group_plays(x, r, jokers, revolution).get(size)
                        if ps:
                            out.extend(ps)
            if jokers and beat < JOKER_STRENGTH:
                ps = _joker_plays(jokers).get(size)
                if ps:
                    out.extend(ps)
    if hand.bit_count() <= 13:
        forbidden = JOKER_MASK | strongest_number_mask(revolution)
        if hand & forbidden:
            out = [p for p in out if p.mask != hand or not p.mask & forbidden]
    return out
