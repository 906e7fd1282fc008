"""Cards, their written forms and their strength.

A card is identified by its wire id: ``(mark - 1) * 13 + number`` for marked
cards (1…52) and 53, 54 for the jokers. Sets of cards are ``int`` bit masks
with bit ``id`` set: a hand, a play or the table is one integer, so set
operations are single machine-word instructions and states stay hashable.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

MARKS = (1, 2, 3, 4)  # 1 spade, 2 heart, 3 diamond, 4 club
JOKER_IDS = (53, 54)
ALL_IDS = tuple(range(1, 55))
DECK_MASK = sum(1 << i for i in ALL_IDS)
JOKER_MASK = (1 << 53) | (1 << 54)
HEART_3 = 16  # (2 - 1) * 13 + 3: who holds it leads the first game

#: Strength index of a number in the normal order: 3 → 0, …, K → 10, A → 11, 2 → 12.
#: During a revolution the index of a card is ``12 - index``.
JOKER_STRENGTH = 13  # a lone joker, or a group of jokers only: above every index


class CardFormatError(ValueError):
    """A card written in no known form: an error for the client, never a miss."""


def card_id(mark: int, number: int) -> int:
    """The wire id of a marked card."""
    return (mark - 1) * 13 + number


def mark_of(cid: int) -> int:
    """1…4, or 0 for a joker (as on the wire)."""
    return 0 if cid >= 53 else (cid - 1) // 13 + 1


def number_of(cid: int) -> int:
    """1…13, or 0 for a joker (as on the wire)."""
    return 0 if cid >= 53 else (cid - 1) % 13 + 1


def index_of_number(number: int) -> int:
    """Strength index of a number in the normal order (3 weakest, 2 strongest)."""
    return (number - 3) % 13


def number_of_index(index: int) -> int:
    """Inverse of :func:`index_of_number`."""
    return (index + 2) % 13 + 1


# Tables indexed by card id: the hot paths look these up instead of computing.
MARK = tuple(mark_of(i) if i else 0 for i in range(55))
NUMBER = tuple(number_of(i) if i else 0 for i in range(55))
INDEX = tuple(index_of_number(NUMBER[i]) if 1 <= i <= 52 else -1 for i in range(55))
#: Bit masks of the four cards of each strength index (no jokers).
INDEX_MASK = tuple(sum(1 << card_id(m, number_of_index(x)) for m in MARKS) for x in range(13))
EIGHT_MASK = INDEX_MASK[index_of_number(8)]


def bit(cid: int) -> int:
    return 1 << cid


def mask_of(ids: Iterable[int]) -> int:
    m = 0
    for i in ids:
        m |= 1 << i
    return m


def ids_of(mask: int) -> tuple[int, ...]:
    """Card ids of a mask, ascending."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return tuple(out)


def iter_ids(mask: int) -> Iterator[int]:
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def count(mask: int) -> int:
    return mask.bit_count()


def sort_key(cid: int) -> tuple[int, int]:
    """Weakest first in the normal order, jokers last; marks break ties."""
    if cid >= 53:
        return (JOKER_STRENGTH, cid)
    return (INDEX[cid], MARK[cid])


def sorted_ids(mask: int) -> list[int]:
    """The cards of a mask as a player's hand is listed: weakest first, jokers last."""
    return sorted(iter_ids(mask), key=sort_key)


_WRITTEN = re.compile(r"([1-4])-(1[0-3]|[1-9])")
JOKER_TOKEN = 0  # what ``parse_card("joker")`` returns: which joker is decided against a hand


def parse_card(text: str) -> int:
    """Read ``"mark-number"`` or ``"joker"``; return the card id, or 0 for a joker.

    Which of the two jokers a written ``"joker"`` means depends on the hand, so
    it is resolved later (:func:`resolve_written`). Surrounding white space and
    the case of ``joker`` are forgiven; anything else unknown is an error.
    """
    if not isinstance(text, str):
        raise CardFormatError(f"not a card: {text!r}")
    s = text.strip()
    if s.lower() == "joker":
        return JOKER_TOKEN
    m = _WRITTEN.fullmatch(s)
    if m is None:
        raise CardFormatError(f"not a card: {text[:20]!r}")
    return card_id(int(m.group(1)), int(m.group(2)))


def parse_cards(texts: Iterable[str]) -> list[int]:
    """Parse every written card (blank ones are the caller's to drop)."""
    return [parse_card(t) for t in texts]


def format_card(cid: int) -> str:
    """The written form of a card: ``"2-3"`` or ``"joker"``."""
    if cid >= 53:
        return "joker"
    return f"{MARK[cid]}-{NUMBER[cid]}"


def resolve_written(tokens: Iterable[int], hand: int) -> tuple[int, bool, bool]:
    """Turn parsed tokens into a card mask against a hand.

    Returns ``(mask, duplicate, not_held)``. ``duplicate`` is set when the same
    marked card is named twice; ``not_held`` when a named card is not in the
    hand, or when more jokers are named than the hand holds. Jokers are taken
    from the hand lowest id first.
    """
    mask = 0
    jokers = 0
    duplicate = False
    not_held = False
    for t in tokens:
        if t == JOKER_TOKEN:
            jokers += 1
            continue
        b = 1 << t
        if mask & b:
            duplicate = True
        mask |= b
    if mask & ~hand:
        not_held = True
    held_jokers = [j for j in JOKER_IDS if hand >> j & 1]
    if jokers > len(held_jokers):
        not_held = True
        # name the jokers anyway (an unheld id) so that the play is not empty
        held_jokers = list(JOKER_IDS)
    for j in held_jokers[: min(jokers, 2)]:
        mask |= 1 << j
    if jokers > 2:
        not_held = True
    return mask, duplicate, not_held
