"""Tournament schedules: pairs meet and seats are held as evenly as the module says."""

from __future__ import annotations

import itertools

import pytest

from daifugo.schedule import PLAYERS, balance, duplicate, round_robin, seat_counts

#: n: (tables, fewest and most meetings of a pair, times in each seat) as docs state them
STATED = {5: (5, 5, 5, 1), 7: (7, 3, 4, 1), 10: (10, 2, 3, 1), 23: (46, 1, 2, 2)}


def well_formed(tables, n: int) -> None:
    assert [t.no for t in tables] == list(range(len(tables)))
    for t in tables:
        assert len(t.seats) == PLAYERS and len(set(t.seats)) == PLAYERS
        assert all(0 <= e < n for e in t.seats)


@pytest.mark.parametrize("n", sorted(STATED))
def test_the_stated_schedules(n):
    tables = round_robin(n)
    well_formed(tables, n)
    b = balance(tables, n)
    assert (b.tables, b.pair_min, b.pair_max, b.seat_min) == STATED[n]
    assert b.seat_min == b.seat_max


@pytest.mark.parametrize("n", range(5, 31))
def test_every_pair_meets_and_meetings_differ_by_at_most_one(n):
    tables = round_robin(n)
    well_formed(tables, n)
    b = balance(tables, n)
    assert b.pair_min >= 1
    assert b.pair_max - b.pair_min <= 1
    assert b.seat_min == b.seat_max  # every entrant holds every seat equally often
    assert b.per_entrant[0] == b.per_entrant[1] == PLAYERS * b.seat_min


def test_five_entrants_play_one_table_in_every_rotation():
    tables = round_robin(5)
    assert {frozenset(t.seats) for t in tables} == {frozenset(range(5))}
    assert all(row == [1] * 5 for row in seat_counts(tables, 5))


@pytest.mark.parametrize("n", [5, 7, 10, 23])
def test_duplicate_rotates_each_deal_so_each_entrant_holds_each_hand_once(n):
    tables = duplicate(n)
    well_formed(tables, n)
    by_deal = {}
    for t in tables:
        by_deal.setdefault(t.deal, []).append(t)
    for rotations in by_deal.values():
        assert [t.rotation for t in rotations] == list(range(PLAYERS))
        assert len({frozenset(t.seats) for t in rotations}) == 1
        # the hand dealt to seat s goes to a different entrant in each rotation
        for seat in range(PLAYERS):
            assert len({t.seats[seat] for t in rotations}) == PLAYERS
        nos = [t.no for t in rotations]
        assert nos == list(range(nos[0], nos[0] + PLAYERS))  # rotations run together
    b = balance(tables, n)
    assert b.pair_min >= PLAYERS and b.pair_max - b.pair_min <= PLAYERS
    assert b.seat_min == b.seat_max


def test_schedules_depend_on_n_alone():
    assert round_robin(23) == round_robin(23)
    assert duplicate(10) == duplicate(10)


def test_fewer_than_five_entrants_are_refused():
    with pytest.raises(ValueError):
        round_robin(4)
    with pytest.raises(ValueError):
        duplicate(3)


def test_tables_next_to_each_other_share_few_entrants():
    """A runner starts tables in order: neighbours sharing nobody can run together."""
    tables = round_robin(23)
    shared = [len(set(a.seats) & set(b.seats)) for a, b in itertools.pairwise(tables)]
    assert sum(s == 0 for s in shared) >= len(shared) // 2
