"""The legal-play listing: exactly the plays ``judge`` accepts, no more, no fewer."""

from __future__ import annotations

import pytest

from daifugo.cards import JOKER_IDS, JOKER_TOKEN, parse_card
from daifugo.legal import legal_plays
from daifugo.plays import Kind, Play, judge, read_play

from .helpers import cards, play, submasks

HANDS = {
    "low-stairs-quad-two-jokers": (
        "1-3",
        "1-4",
        "1-5",
        "1-6",
        "2-6",
        "3-6",
        "4-6",
        "1-8",
        "joker",
        "joker",
    ),
    "top-stairs-2s-3s-one-joker": (
        "2-12",
        "2-13",
        "2-1",
        "2-2",
        "1-2",
        "3-2",
        "1-11",
        "4-3",
        "3-3",
        "joker",
    ),
    "no-wrap-from-2-to-3": ("1-1", "1-2", "1-3", "1-4", "2-3", "2-4", "2-5", "3-8", "joker"),
    "gaps-for-jokers": ("4-7", "4-9", "4-11", "4-13", "1-7", "2-7", "3-9", "joker", "joker"),
    "eleven-cards": (
        "1-5",
        "1-6",
        "1-7",
        "1-8",
        "1-9",
        "2-8",
        "3-8",
        "4-8",
        "joker",
        "2-2",
        "3-1",
    ),
    "four-3s": ("1-3", "2-3", "3-3", "4-3"),
    "four-2s": ("1-2", "2-2", "3-2", "4-2"),
    "2-and-joker": ("1-2", "joker"),
    "two-jokers": ("joker", "joker"),
    "card-and-two-jokers": ("2-7", "joker", "joker"),
    "stair-with-joker": ("3-3", "3-4", "joker"),
    "k-a-2": ("4-13", "4-1", "4-2"),
    "lone-3": ("2-3",),
    "lone-2": ("2-2",),
    "lone-joker": ("joker",),
    "no-jokers-mixed": ("1-4", "2-4", "1-5", "1-6", "1-7", "3-10", "4-10", "2-11", "2-12"),
}

#: Tables of every kind: (written cards, the kind when ambiguous).
TABLES: list[tuple[tuple[str, ...], Kind | None]] = [
    (("1-3",), None),
    (("3-7",), None),
    (("3-1",), None),
    (("3-2",), None),
    (("4-4",), None),
    (("joker",), None),
    (("1-7", "2-7"), None),
    (("3-3", "4-3"), None),
    (("3-12", "joker"), None),
    (("3-1", "4-1"), None),
    (("joker", "joker"), None),
    (("1-9", "2-9", "3-9"), None),
    (("4-5", "joker", "joker"), Kind.GROUP),
    (("4-5", "joker", "joker"), Kind.STAIR),
    (("1-10", "2-10", "3-10", "4-10"), None),
    (("1-4", "2-4", "3-4", "joker"), None),
    (("1-11", "2-11", "3-11", "4-11", "joker"), None),
    (("4-3", "4-4", "4-5"), None),
    (("4-9", "4-10", "4-11"), None),
    (("4-12", "4-13", "4-1"), None),
    (("4-13", "4-1", "4-2"), None),
    (("4-5", "joker", "4-7"), None),
    (("2-4", "2-5", "2-6", "2-7"), None),
    (("2-8", "2-9", "joker", "2-11", "2-12"), None),
]


def table_for(
    hand: int, written: tuple[str, ...], revolution: bool, kind: Kind | None
) -> Play | None:
    """The table read under the order, using cards the hand does not hold (None if impossible)."""
    free_jokers = [j for j in JOKER_IDS if not hand >> j & 1]
    mask = 0
    for w in written:
        cid = parse_card(w)
        if cid == JOKER_TOKEN:
            if not free_jokers:
                return None
            cid = free_jokers.pop(0)
        mask |= 1 << cid
    if mask & hand:
        return None
    readings = [p for p in read_play(mask, revolution) if kind is None or p.kind == kind]
    return readings[0]


def shape(p: Play) -> tuple[int, int, int, int, int, int]:
    return (p.mask, int(p.kind), p.size, p.strength, p.low, p.high)


def assert_listing_is_exact(hand: int, table: Play | None, revolution: bool) -> None:
    accepted = {}
    for m in submasks(hand):
        p, miss = judge(m, hand, table, revolution)
        assert (p is None) != (miss is None)
        if p is not None:
            accepted[m] = shape(p)
    listed = legal_plays(hand, table, revolution)
    assert {p.mask: shape(p) for p in listed} == accepted, (table, revolution)


def assert_nothing_listed_twice(hand: int, table: Play | None, revolution: bool) -> None:
    seen: set[int] = set()
    twice = [p for p in legal_plays(hand, table, revolution) if p.mask in seen or seen.add(p.mask)]
    assert twice == [], f"listed more than once against {table}: {twice}"


def positions(name: str, revolution: bool) -> list[tuple[int, Play | None]]:
    """The hand and every table of TABLES it can face (plus the empty table)."""
    h = cards(*HANDS[name])
    out: list[tuple[int, Play | None]] = [(h, None)]
    for written, kind in TABLES:
        table = table_for(h, written, revolution, kind)
        if table is not None:
            out.append((h, table))
    assert len(out) >= 8
    return out


@pytest.mark.parametrize("revolution", [False, True], ids=["normal", "revolution"])
@pytest.mark.parametrize("name", list(HANDS))
def test_the_listing_is_exactly_what_judge_accepts(name: str, revolution: bool) -> None:
    for h, table in positions(name, revolution):
        assert_listing_is_exact(h, table, revolution)


@pytest.mark.parametrize("revolution", [False, True], ids=["normal", "revolution"])
@pytest.mark.parametrize("name", list(HANDS))
def test_no_play_is_listed_twice(name: str, revolution: bool) -> None:
    for h, table in positions(name, revolution):
        assert_nothing_listed_twice(h, table, revolution)


def test_every_table_kind_is_checked() -> None:
    kinds = {(play(*w, kind=k).kind, play(*w, kind=k).size) for w, k in TABLES}
    assert {k for k, _ in kinds} == {Kind.SINGLE, Kind.GROUP, Kind.STAIR}
    assert {s for k, s in kinds if k == Kind.GROUP} >= {2, 3, 4, 5}
    assert {s for k, s in kinds if k == Kind.STAIR} >= {3, 4, 5}


def test_listed_plays_are_made_of_cards_held() -> None:
    h = cards(*HANDS["eleven-cards"])
    for table in (None, play("1-3"), play("4-3", "4-4", "4-5")):
        for p in legal_plays(h, table, False):
            assert p.mask and not p.mask & ~h


# -- perft-style counts from known positions --


@pytest.mark.parametrize(
    ("written", "table", "revolution", "count"),
    [
        (("1-3", "2-3", "3-3"), None, False, 7),  # 3 singles, 3 pairs, the triple
        (("1-3", "1-4", "1-5"), None, False, 4),  # 3 singles, the stair
        (
            ("1-3", "1-4", "joker"),
            None,
            False,
            5,
        ),  # 3 singles, 2 pairs; the stair would finish on a joker
        (("1-3", "1-4", "joker", "4-9"), None, False, 8),  # 4 singles, 3 pairs, the stair
        (("1-3", "1-10", "2-2", "joker"), ("1-9",), False, 3),  # 10, 2, joker
        (("1-3", "1-10", "2-2", "joker"), ("1-9",), True, 2),  # 3, joker
        (("2-6", "2-7", "2-8", "2-9", "joker"), ("1-5", "1-6", "1-7"), False, 7),
        (("1-5", "2-5", "joker"), ("joker",), False, 0),
        (("1-2", "2-2", "3-2"), ("joker", "joker"), False, 0),
        (("2-2",), None, False, 0),  # only a forbidden finish
        (("joker",), None, True, 0),
    ],
)
def test_counts_of_legal_plays_in_known_positions(
    written: tuple[str, ...], table: tuple[str, ...] | None, revolution: bool, count: int
) -> None:
    h = cards(*written)
    t = None if table is None else table_for(h, table, revolution, None)
    assert len(legal_plays(h, t, revolution)) == count


def test_a_lead_lists_one_card_with_two_jokers_as_a_group_only() -> None:
    h = cards("2-7", "joker", "joker", "1-3")
    mine = [p for p in legal_plays(h, None, False) if p.mask == cards("2-7", "joker", "joker")]
    assert [p.kind for p in mine] == [Kind.GROUP]


def test_a_follow_of_a_stair_lists_one_card_with_two_jokers_as_a_stair() -> None:
    h = cards("2-7", "joker", "joker", "1-3")
    table = play("4-3", "4-4", "4-5")
    mine = [p for p in legal_plays(h, table, False) if p.mask == cards("2-7", "joker", "joker")]
    assert [p.kind for p in mine] == [Kind.STAIR]


def test_a_play_using_either_joker_is_listed_once_per_joker() -> None:
    h = cards("2-7", "joker", "joker", "1-3")
    singles = {p.mask for p in legal_plays(h, None, False) if p.kind == Kind.SINGLE}
    assert singles == {cards("2-7"), cards("1-3"), 1 << 53, 1 << 54}
    pairs_with_7 = {
        p.mask for p in legal_plays(h, None, False) if p.size == 2 and p.mask & cards("2-7")
    }
    assert pairs_with_7 == {cards("2-7") | 1 << 53, cards("2-7") | 1 << 54}


def test_nothing_is_listed_against_a_lone_joker_in_either_order() -> None:
    h = cards("1-2", "2-2", "1-3", "joker")
    for revolution in (False, True):
        table = read_play(1 << 54, revolution)[0]
        assert legal_plays(h, table, revolution) == []


def test_calling_the_listing_twice_gives_the_same_plays() -> None:
    h = cards(*HANDS["low-stairs-quad-two-jokers"])
    first = legal_plays(h, None, False)
    first_shapes = sorted(shape(p) for p in first)
    first.clear()  # a caller may do what it likes with its list
    assert sorted(shape(p) for p in legal_plays(h, None, False)) == first_shapes
