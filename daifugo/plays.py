"""Reading a set of cards as a play, and judging it against the table.

Every rule of RULES.md "Legal plays", "Forbidden finishes" and the kind of a
play lives here; the game module only sequences turns.
"""

from __future__ import annotations

from enum import IntEnum

from .cards import (
    EIGHT_MASK,
    INDEX,
    INDEX_MASK,
    JOKER_MASK,
    JOKER_STRENGTH,
    MARK,
    format_card,
    iter_ids,
    sorted_ids,
)


class Kind(IntEnum):
    SINGLE = 1
    GROUP = 2
    STAIR = 3


class Miss:
    """Stable codes of the reasons an action is a miss (sent to clients)."""

    CARD_NOT_HELD = "CARD_NOT_HELD"
    DUPLICATE_CARD = "DUPLICATE_CARD"
    NOT_A_COMBINATION = "NOT_A_COMBINATION"
    KIND_MISMATCH = "KIND_MISMATCH"
    SIZE_MISMATCH = "SIZE_MISMATCH"
    NOT_STRONGER = "NOT_STRONGER"
    FORBIDDEN_FINISH = "FORBIDDEN_FINISH"
    PASS_ON_LEAD = "PASS_ON_LEAD"
    TIMEOUT = "TIMEOUT"

    ALL = (
        CARD_NOT_HELD,
        DUPLICATE_CARD,
        NOT_A_COMBINATION,
        KIND_MISMATCH,
        SIZE_MISMATCH,
        NOT_STRONGER,
        FORBIDDEN_FINISH,
        PASS_ON_LEAD,
        TIMEOUT,
    )


class Play:
    """One reading of a set of cards under one order.

    ``strength`` is comparable only between plays of the same kind and size
    read under the same order: higher is stronger. ``low`` and ``high`` are
    the strength indexes (normal order) the play spans, jokers included: equal
    for singles and groups, the stair's ends for a stair; -1 for jokers only.
    """

    __slots__ = ("mask", "kind", "size", "strength", "low", "high", "_cards")

    def __init__(self, mask: int, kind: Kind, size: int, strength: int, low: int, high: int):
        self.mask = mask
        self.kind = kind
        self.size = size
        self.strength = strength
        self.low = low
        self.high = high
        self._cards: tuple[int, ...] | None = None

    @property
    def cards(self) -> tuple[int, ...]:
        """The card ids, weakest first (computed once: events and the table need them)."""
        if self._cards is None:
            self._cards = tuple(sorted_ids(self.mask))
        return self._cards

    @property
    def is_revolution(self) -> bool:
        """A group of four or more cards (jokers allowed); stairs never."""
        return self.kind == Kind.GROUP and self.size >= 4

    @property
    def has_eight(self) -> bool:
        """A real 8 is in the play: the 8-cut (a joker never counts as an 8)."""
        return bool(self.mask & EIGHT_MASK)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Play)
            and self.mask == other.mask
            and self.kind == other.kind
            and self.strength == other.strength
        )

    def __hash__(self) -> int:
        return hash((self.mask, self.kind, self.strength))

    def __repr__(self) -> str:
        cards = ",".join(format_card(c) for c in self.cards)
        return f"Play({self.kind.name}, [{cards}], strength={self.strength})"


def _strength(index: int, revolution: bool) -> int:
    return 12 - index if revolution else index


def read_play(mask: int, revolution: bool) -> tuple[Play, ...]:
    """Every reading of ``mask`` as a legal combination under the given order.

    Empty when the cards form no play. Two readings only for one card with
    two jokers: the group first (what a lead means), then the stair.
    """
    size = mask.bit_count()
    if size == 0:
        return ()
    jokers = (mask & JOKER_MASK).bit_count()
    real = mask & ~JOKER_MASK
    if size == 1:
        if jokers:
            return (Play(mask, Kind.SINGLE, 1, JOKER_STRENGTH, -1, -1),)
        x = INDEX[real.bit_length() - 1]
        return (Play(mask, Kind.SINGLE, 1, _strength(x, revolution), x, x),)
    if not real:  # both jokers: the group of two above every other pair
        return (Play(mask, Kind.GROUP, size, JOKER_STRENGTH, -1, -1),)

    first = INDEX[(real & -real).bit_length() - 1]
    readings: list[Play] = []
    if not real & ~INDEX_MASK[first]:  # every real card of one number: a group
        readings.append(Play(mask, Kind.GROUP, size, _strength(first, revolution), first, first))
        if size >= 3 and real & (real - 1) == 0:  # one card with two jokers: a stair too
            stair = _read_stair(mask, real, [first], jokers, size, revolution)
            if stair is not None:
                readings.append(stair)
        return tuple(readings)
    if size >= 3:
        stair = _read_stair(
            mask, real, [INDEX[c] for c in iter_ids(real)], jokers, size, revolution
        )
        if stair is not None:
            return (stair,)
    return ()


def extend_stair(low: int, high: int, extra: int, revolution: bool) -> tuple[int, int] | None:
    """The ends of a stair after ``extra`` jokers that fill no gap took their places.

    Each extends the stair towards the stronger end of the order when it can,
    otherwise towards the weaker end (RULES.md "stair"). None if it cannot fit.
    """
    if revolution:
        step = min(extra, low)
        low, high = low - step, high + extra - step
    else:
        step = min(extra, 12 - high)
        low, high = low - (extra - step), high + step
    if low < 0 or high > 12:
        return None
    return low, high


def _read_stair(
    mask: int, real: int, indexes: list[int], jokers: int, size: int, revolution: bool
) -> Play | None:
    marks = {MARK[c] for c in iter_ids(real)}
    if len(marks) != 1 or len(set(indexes)) != len(indexes):
        return None
    low, high = min(indexes), max(indexes)
    gaps = high - low + 1 - len(indexes)
    if gaps > jokers:
        return None
    ends = extend_stair(low, high, jokers - gaps, revolution)
    if ends is None:
        return None
    low, high = ends
    weakest = high if revolution else low
    return Play(mask, Kind.STAIR, size, _strength(weakest, revolution), low, high)


def strongest_number_mask(revolution: bool) -> int:
    """Cards of the strongest number of an order: the 2s, or the 3s in a revolution."""
    return INDEX_MASK[0] if revolution else INDEX_MASK[12]


def judge(
    mask: int, hand: int, table: Play | None, revolution: bool
) -> tuple[Play | None, str | None]:
    """Judge a play of cards already known to be held and distinct.

    Returns ``(play, None)`` for a legal play, ``(None, miss_code)`` otherwise.
    """
    readings = read_play(mask, revolution)
    if not readings:
        return None, Miss.NOT_A_COMBINATION
    if table is None:
        play = readings[0]
    else:
        same_kind = [p for p in readings if p.kind == table.kind]
        if not same_kind:
            return None, Miss.KIND_MISMATCH
        play = same_kind[0]
        if play.size != table.size:
            return None, Miss.SIZE_MISMATCH
        if play.strength <= table.strength:
            return None, Miss.NOT_STRONGER
    if mask == hand and mask & (JOKER_MASK | strongest_number_mask(revolution)):
        return None, Miss.FORBIDDEN_FINISH
    return play, None
