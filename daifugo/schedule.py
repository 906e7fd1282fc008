"""Tournament schedules: which entrants sit at which table of five, in which seats.

Entrants are numbered 0 … n − 1. A round robin is built from cyclic blocks: a
base of five numbers ``B`` gives the n tables ``{(b + t) mod n for b in B}``,
t = 0 … n − 1, seats in the base's order, so each base seats every entrant once
in every seat. ``ceil((n − 1) / 20)`` bases are used (a table gives an entrant
four opponents, so five tables give twenty: enough to meet n − 1 others), one
more while some pair would never meet (n = 20), chosen by a deterministic search
that makes the pairs' meetings as even as it can.

What it reaches (``tests/daifugo/test_schedule.py`` checks it for every n from 5 to 30):

====  ======  ===============  ===================
n     tables  pair meetings    seats, each entrant
====  ======  ===============  ===================
5     5       5 each           each seat once
7     7       3 or 4           each seat once
10    10      2 or 3           each seat once
23    46      1 or 2           each seat twice
====  ======  ===============  ===================

For every n from 6 to 100 the meetings of two pairs differ by at most one and
every pair meets; every entrant holds every seat equally often, for every n.

A duplicate tournament plays each distinct table of the round robin five times,
the seats rotated (``rotation`` r seats entrant ``order[(i + r) % 5]`` at seat i),
with the same deals (``deal``): each entrant of a table holds each seat's hand once.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

PLAYERS = 5
#: Beyond this many candidate bases the search samples them (deterministically).
EXHAUSTIVE_LIMIT = 30_000
SAMPLES = 4_000


@dataclass(frozen=True, slots=True)
class Table:
    no: int  # 0-based position in the schedule
    seats: tuple[int, ...]  # entrant numbers in seat order
    deal: int | None = None  # duplicate: the deal set its five rotations share
    rotation: int | None = None  # duplicate: 0 … 4


@dataclass(frozen=True, slots=True)
class Balance:
    tables: int
    per_entrant: tuple[int, int]  # fewest and most tables an entrant plays
    pair_min: int
    pair_max: int
    seat_min: int
    seat_max: int


def _check(n: int) -> None:
    if n < PLAYERS:
        raise ValueError(f"a tournament needs at least {PLAYERS} entrants, not {n}")


def _pairs_of(base: Sequence[int], n: int) -> list[int]:
    """How often each difference class (1 … n // 2) meets over the n shifts of ``base``.

    A pair ``{x, x + d}`` shares a table of the base's shifts once for each pair of the
    base with difference ±d; with n even and d = n / 2 the shift by d gives the
    same table again, so that class meets twice as often from one base pair.
    """
    counts = [0] * (n // 2 + 1)
    for a, b in itertools.combinations(base, 2):
        d = (b - a) % n
        counts[min(d, n - d)] += 1
    if n % 2 == 0:
        counts[n // 2] *= 2
    return counts


def _candidates(n: int) -> Iterable[tuple[int, ...]]:
    rest = range(1, n)
    if math.comb(n - 1, PLAYERS - 1) <= EXHAUSTIVE_LIMIT:
        for others in itertools.combinations(rest, PLAYERS - 1):
            yield (0, *others)
        return
    rng = random.Random(f"daihinmin-schedule:{n}")
    for _ in range(SAMPLES):
        yield (0, *sorted(rng.sample(rest, PLAYERS - 1)))


def _meetings(bases: Sequence[Sequence[int]], n: int) -> list[int]:
    """Meetings of each difference class 1 … n // 2 over all the bases' tables."""
    met = [0] * (n // 2 + 1)
    for base in bases:
        met = [m + a for m, a in zip(met, _pairs_of(base, n), strict=True)]
    return met[1:]


def _spread(bases: Sequence[Sequence[int]], n: int) -> tuple[int, int, int, int]:
    """What the search makes small: the gap between the most and fewest meetings, then
    how many pairs sit at either end of it."""
    met = _meetings(bases, n)
    low, high = min(met), max(met)
    return (high - low, -low, met.count(high), met.count(low))


def _bases(n: int) -> list[tuple[int, ...]]:
    """Bases chosen one after another (each the best with those before), then improved
    by moving one number of one base at a time while that evens the meetings out.
    One more base is added while some pair would never meet."""
    if n == PLAYERS:
        return [tuple(range(PLAYERS))]
    wanted = math.ceil((n - 1) / (4 * PLAYERS))
    candidates = list(_candidates(n))
    while True:
        bases: list[tuple[int, ...]] = []
        for _ in range(wanted):
            bases.append(min(candidates, key=lambda b, done=tuple(bases): _spread((*done, b), n)))
        bases = _improve(bases, n)
        if min(_meetings(bases, n)) > 0:
            return bases
        wanted += 1


def _improve(bases: list[tuple[int, ...]], n: int) -> list[tuple[int, ...]]:
    """Hill-climb: replace one number of one base by another while the spread shrinks."""
    best = _spread(bases, n)
    improved = True
    while improved:
        improved = False
        for i, base in enumerate(bases):
            for k in range(1, PLAYERS):  # the 0 of each base stays: shifts give the rest
                for v in range(1, n):
                    if v in base:
                        continue
                    trial = list(bases)
                    trial[i] = (*base[:k], v, *base[k + 1 :])
                    score = _spread(trial, n)
                    if score < best:
                        bases, best, improved = trial, score, True
                        break
                if improved:
                    break
            if improved:
                break
    return bases


def round_robin(n: int) -> list[Table]:
    """Tables of five for ``n`` entrants: pairs meet, and seats are held, as evenly as found.

    Ordered so that each table shares as few entrants as it can with the few before
    it: a runner starts tables in order, a few at once, never two sharing an entrant.
    """
    _check(n)
    bases = _bases(n)
    seats = [tuple((b + shift) % n for b in base) for base in bases for shift in range(n)]
    return [Table(no, s) for no, s in enumerate(_spread_out(seats, n))]


def _spread_out(tables: list[tuple[int, ...]], n: int) -> list[tuple[int, ...]]:
    """Greedy: next, the first table sharing fewest entrants with the last few placed."""
    window = max(1, n // PLAYERS - 1)
    left = list(tables)
    placed: list[tuple[int, ...]] = []
    while left:
        recent = {e for t in placed[-window:] for e in t}
        pick = min(range(len(left)), key=lambda i: len(recent.intersection(left[i])))
        placed.append(left.pop(pick))
    return placed


def duplicate(n: int) -> list[Table]:
    """Each distinct table of the round robin, five times with the seats rotated."""
    _check(n)
    seen: set[frozenset[int]] = set()
    orders = []
    for table in round_robin(n):
        key = frozenset(table.seats)
        if key not in seen:
            seen.add(key)
            orders.append(table.seats)
    tables = []
    for deal, order in enumerate(orders):
        for r in range(PLAYERS):
            seats = tuple(order[(i + r) % PLAYERS] for i in range(PLAYERS))
            tables.append(Table(len(tables), seats, deal, r))
    return tables


def pair_counts(tables: Iterable[Table], n: int) -> list[list[int]]:
    """How many tables each pair of entrants shares."""
    counts = [[0] * n for _ in range(n)]
    for t in tables:
        for a, b in itertools.combinations(t.seats, 2):
            counts[a][b] += 1
            counts[b][a] += 1
    return counts


def seat_counts(tables: Iterable[Table], n: int) -> list[list[int]]:
    """How many times each entrant sits in each seat."""
    counts = [[0] * PLAYERS for _ in range(n)]
    for t in tables:
        for seat, e in enumerate(t.seats):
            counts[e][seat] += 1
    return counts


def balance(tables: Sequence[Table], n: int) -> Balance:
    pairs = pair_counts(tables, n)
    met = [pairs[a][b] for a, b in itertools.combinations(range(n), 2)]
    seats = [c for row in seat_counts(tables, n) for c in row]
    played = [sum(row) for row in seat_counts(tables, n)]
    return Balance(
        len(tables), (min(played), max(played)), min(met), max(met), min(seats), max(seats)
    )
