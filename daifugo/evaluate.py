"""What each move of a decision is worth: determinized Monte Carlo over an information set.

For a seat to move, :func:`evaluate` takes its :class:`~.infoset.InfoSet` (never
the full position: it cannot read a hand the seat could not see), deals the
unseen cards consistently with it (:func:`~.infoset.deal_hidden`), and plays each
candidate move out to the end of the game with a cheap policy, through the
referee's own functions (:func:`.solve.moves`, :func:`.solve.apply`). A
candidate's value is the seat's points for this game (and its rank), averaged
over the playouts, with its standard error. Every candidate is played out on the
same deals with the same random choices (common random numbers), so the
differences between candidates carry less noise than each value.

A playout stops once the seat has its rank. One that reaches an ending of two
players, the seat one of them, with at most ``exact_cards`` cards between them is
finished exactly (:mod:`.solve`): both hands are known there, in the deal played out.

A bot's decision may ``race``: the candidates clearly behind stop being played out,
and its budget goes to those that could still be best.

Seeded: the same information set, seed and number of playouts give the same
numbers, whatever the number of worker processes.
"""

from __future__ import annotations

import math
import random
import statistics
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field

from . import game as g
from . import uecda as u
from .cards import INDEX_MASK, JOKER_MASK
from .infoset import InfoSet, deal_hidden, with_hands
from .legal import legal_plays
from .solve import Move, Position, apply, ending_value, is_open, keeps_lead, moves, points_for
from .uecda import UecdaGame
from .uecda_legal import legal_moves
from .uecda_stock import precious, stock_move, strength

#: Playout policies: ``random`` picks uniformly among the legal moves and the pass;
#: ``greedy`` mostly plays the weakest move that spends no joker or strongest number
#: (a random move one time in :data:`GREEDY_RANDOM`); ``stock`` (UECda only) mostly
#: plays as the stock client does (:func:`.uecda_stock.stock_move`), as random as greedy.
POLICIES = ("random", "greedy", "stock")
#: Each profile's policy by default (2011: ``greedy``; UECda: ``stock``, where it won
#: ``montecarlo`` 0.3 points a game more than ``greedy`` against stock clients).
DEFAULT_POLICY, DEFAULT_UECDA_POLICY = "greedy", "stock"
GREEDY_RANDOM = 4
#: The share of the greedy policy's moves that are random (one draw of ``random()``: a
#: quarter of ``randrange``'s cost, and a turn of a playout draws it every time).
RANDOM_SHARE = 1 / GREEDY_RANDOM
#: Endings of two players with at most this many cards between them are solved exactly.
EXACT_CARDS = 6
#: A racing decision (a bot's) races its candidates (:func:`_racing`) every this many
#: deals, from this many playouts each, dropping those this many standard errors behind.
RACE_EVERY = 2
RACE_FROM = 8
RACE_Z = 2.0
#: A seed's deals and choices are drawn from ``seed * SEED_STRIDE + playout``.
SEED_STRIDE = 1_000_003


@dataclass(frozen=True, slots=True)
class Candidate:
    """One move of the decision and what it is worth to the seat."""

    move: Move  # a card mask (2011), a uecda Move, or None for a pass
    points: float  # this game's points, on average over the playouts
    points_se: float  # the standard error of ``points``
    rank: float  # the rank, on average (1 best)
    rank_se: float
    playouts: int
    #: The points of each playout, deal by deal (a candidate left behind by a race: of the
    #: first deals): what a loss is measured on without the deals that chose the best
    #: move (:mod:`.analysis`), and the paired error of two candidates on common deals.
    by_deal: tuple[float, ...] = field(default=(), compare=False, repr=False)


def candidates(info: InfoSet) -> list[Move]:
    """The seat's legal moves, the pass last when it is legal."""
    position = with_hands(
        info, tuple(info.hand if s == info.seat else 0 for s in range(len(info.counts)))
    )
    return moves(position, info.seat)


def _check(info: InfoSet) -> None:
    position = info.position
    if not is_open(position) or position.turn != info.seat:
        raise ValueError("the information set is not at the seat's turn")


# -- playout policies: a seat's move, from its own hand and the table only --


def _random_2011(state: g.GameState, seat: int, rng: random.Random) -> Move:
    hand = state.hands[seat]
    table = state.table
    options = legal_plays(hand, table, state.revolution)
    n = len(options) + (table is not None)
    if n == 0:
        return hand  # nothing legal to lead: a miss
    i = rng.randrange(n)
    return None if i == len(options) else options[i].mask


_TWOS = INDEX_MASK[12]
_THREES = INDEX_MASK[0]


def _greedy_2011(state: g.GameState, seat: int, rng: random.Random) -> Move:
    if rng.random() < RANDOM_SHARE:
        return _random_2011(state, seat, rng)
    hand = state.hands[seat]
    table = state.table
    options = legal_plays(hand, table, state.revolution)
    if not options:
        return None if table is not None else hand
    precious = JOKER_MASK | (_THREES if state.revolution else _TWOS)
    cheap = [p for p in options if not p.mask & precious]
    if not cheap:
        if table is not None and hand.bit_count() > 3:
            return None
        cheap = options
    return min(cheap, key=lambda p: (p.strength, -p.size)).mask


def _random_uecda(state: UecdaGame, seat: int, rng: random.Random) -> Move:
    options = legal_moves(state, seat)
    i = rng.randrange(len(options) + 1)
    return options[i] if i < len(options) else None


def _greedy_uecda(state: UecdaGame, seat: int, rng: random.Random) -> Move:
    if rng.random() < RANDOM_SHARE:
        return _random_uecda(state, seat, rng)
    options = legal_moves(state, seat)
    if not options:
        return None
    revolution = state.reversed_strength  # a revolution or an 11-back, not both
    cheap = [m for m in options if not precious(m, revolution)]
    if not cheap:
        if state.stage is not None and state.hands[seat].bit_count() > 3:
            return None
        cheap = list(options)
    return min(cheap, key=lambda m: (strength(m, revolution), -m.size))


def _stock_uecda(state: UecdaGame, seat: int, rng: random.Random) -> Move:
    if rng.random() < RANDOM_SHARE:
        return _random_uecda(state, seat, rng)
    return stock_move(
        state.hands[seat], state.stage, legal_moves(state, seat), state.reversed_strength
    )


_POLICY = {
    ("random", False): _random_2011,
    ("greedy", False): _greedy_2011,
    ("random", True): _random_uecda,
    ("greedy", True): _greedy_uecda,
    ("stock", True): _stock_uecda,
}


def default_policy(uecda: bool) -> str:
    """The playout policy of a profile by default (``uecda``: the UECda rules)."""
    return DEFAULT_UECDA_POLICY if uecda else DEFAULT_POLICY


def playout(
    state: Position, seat: int, policy: str, rng: random.Random, exact_cards: int, memo: dict
) -> tuple[float, float]:
    """Play ``state`` (a turn open, or the game over) until ``seat`` has its rank: its
    points and rank."""
    uecda = isinstance(state, UecdaGame)
    choose = _POLICY[policy, uecda]
    two_left = len(state.hands) - 2  # empty hands when two players are left
    # the seat's rank is final once it has one: the rest of the game is not played out
    while is_open(state) and not state.ranks[seat]:
        hands = state.hands
        if (
            exact_cards
            and hands[seat]
            and hands.count(0) == two_left
            and sum(h.bit_count() for h in hands) <= exact_cards
        ):
            other = next(s for s, h in enumerate(hands) if h and s != seat)
            return ending_value(state, seat, other, memo)
        turn = state.turn
        state = apply(state, turn, choose(state, turn, rng))
    if uecda and state.phase == u.DRAW and not state.ranks[seat]:
        state = u.settle_draw(state, u.draw_order(state, rng))
    rank = state.ranks[seat]
    return float(points_for(state, rank)), float(rank)


def thread_cpu() -> float:
    """The CPU time of the calling thread, in seconds: a decision's own work."""
    return time.thread_time()


@dataclass(frozen=True, slots=True)
class Deadline:
    """When a bot's decision stops playing out: once ``clock()`` reaches ``at``, after at
    least ``floor`` deals. By default the clock is the CPU time of the thread that plays
    out (the decision's own work): on a busy machine a decision takes longer and plays as
    many playouts, instead of fewer (issue 46: ``montecarlo@100ms`` got about 15 ms of CPU
    a decision on a loaded machine and played the stock client's move 77 % of the time)."""

    at: float
    clock: Callable[[], float] = thread_cpu
    floor: int = 1

    @classmethod
    def after(cls, seconds: float, floor: int = 1) -> Deadline:
        """``seconds`` of this thread's CPU from now."""
        return cls(thread_cpu() + seconds, floor=floor)

    def passed(self, deals: int) -> bool:
        return deals >= self.floor and self.clock() >= self.at


#: The most moves in a row of the seat's that a candidate is played out along, each but
#: the last keeping the lead (:func:`paths_of`).
DEEPEST = 3
#: A candidate as it is played out: its move, then the seat's next when the move keeps the
#: lead (:func:`paths_of`).
Path = tuple[Move, ...]


def paths_of(info: InfoSet, moves_: Sequence[Move]) -> list[Path]:
    """Each candidate as it is played out. A move that keeps the lead (an 8-cut: the seat
    leads the next trick at once, whatever the others hold, :func:`.solve.keeps_lead`)
    is played out once for each move of the decision that follows, which the seat makes
    knowing what it knew before, and is worth the best of them (:func:`summarize`); so on,
    up to :data:`DEEPEST` moves in a row. The seat's own follow-up is searched, not left
    to the playout policy (issue 46: ♣8 of ♣8 ♣J ♠2, to lead ♠2 and then ♣J, was valued as
    the policy would follow it, a point below ♠2)."""
    sample = with_hands(info, deal_hidden(info, random.Random(0)))

    def deeper(state: Position, path: Path) -> list[Path]:
        after = apply(state, info.seat, path[-1])
        if len(path) == DEEPEST or not keeps_lead(after, info.seat):
            return [path]
        return [p for follow in moves(after, info.seat) for p in deeper(after, (*path, follow))]

    return [p for move in moves_ for p in deeper(sample, (move,))]


#: Per path: playouts, sum of points, of their squares, sum of ranks, of their squares.
Sums = list[list[float]]
#: Per path: its sums, and its points deal by deal.
Played = tuple[Sums, list[list[float]]]


def run_playouts(
    info: InfoSet,
    paths: Sequence[Path],
    first: int,
    count: int,
    seed: int,
    policy: str,
    exact_cards: int,
    deadline: Deadline | None = None,
    race: bool = False,
) -> Played:
    """Playouts ``first`` … ``first + count - 1`` of every path (each playout a deal of
    its own, shared by the paths); stops early at ``deadline``, after a whole deal; with
    ``race``, stops playing out the paths clearly behind (:func:`_racing`)."""
    sums = [[0.0] * 5 for _ in paths]
    by_deal: list[list[float]] = [[] for _ in paths]
    alive = list(range(len(paths)))
    seat = info.seat
    memo: dict = {}
    for i in range(first, first + count):
        if deadline is not None and deadline.passed(i - first):
            break
        if race and (i - first) % RACE_EVERY == 0:
            alive = _racing(sums, alive)
        deal_seed = seed * SEED_STRIDE + i
        start = with_hands(info, deal_hidden(info, random.Random(deal_seed)))
        for c in alive:
            rng = random.Random(deal_seed)
            state = start
            for move in paths[c]:
                state = apply(state, seat, move)
            points, rank = playout(state, seat, policy, rng, exact_cards, memo)
            s = sums[c]
            s[0] += 1
            s[1] += points
            s[2] += points * points
            s[3] += rank
            s[4] += rank * rank
            by_deal[c].append(points)
    return sums, by_deal


def _racing(sums: Sums, alive: list[int]) -> list[int]:
    """The candidates still worth playing out: once each has :data:`RACE_FROM`
    playouts, those whose points are not below the leader's by more than
    :data:`RACE_Z` standard errors of the difference (the two errors combined as if
    independent: the deals are shared, so the rule errs towards keeping a move). A
    bot's budget goes to the moves that could still be best."""
    if len(alive) < 2 or sums[alive[0]][0] < RACE_FROM:
        return alive
    stats = {c: _mean_se(*sums[c][:3]) for c in alive}
    lead_mean, lead_se = max(stats.values())
    return [
        c for c in alive if stats[c][0] + RACE_Z * math.hypot(stats[c][1], lead_se) >= lead_mean
    ]


def _mean_se(n: float, total: float, squares: float) -> tuple[float, float]:
    mean = total / n
    if n < 2:
        return mean, math.inf
    variance = max(squares - n * mean * mean, 0.0) / (n - 1)
    return mean, math.sqrt(variance / n)


def summarize(paths: Sequence[Path], played: Played) -> list[Candidate]:
    """A candidate for each move, in the paths' order: a move played out along several
    paths (it keeps the lead, :func:`paths_of`) is worth its best path, of most points
    among the most played out."""
    sums, by_deal = played
    each: dict[Move, list[Candidate]] = {}
    for path, (n, p, p2, r, r2), deals in zip(paths, sums, by_deal, strict=True):
        points, points_se = _mean_se(n, p, p2)
        rank, rank_se = _mean_se(n, r, r2)
        found = Candidate(path[0], points, points_se, rank, rank_se, int(n), tuple(deals))
        each.setdefault(path[0], []).append(found)
    return [best(found) for found in each.values()]


def evaluate(
    info: InfoSet,
    playouts: int = 1000,
    seed: int = 0,
    policy: str | None = None,
    exact_cards: int = EXACT_CARDS,
    pool: Executor | None = None,
    workers: int = 2,
    deadline: Deadline | None = None,
    race: bool = False,
    among: Sequence[Move] | None = None,
    focus: int = 0,
    also: Sequence[Move] = (),
) -> list[Candidate]:
    """Every candidate of the seat's decision, from ``playouts`` playouts each.

    With ``pool`` the playouts are shared among ``workers`` processes of it (the
    numbers are the same as without). ``deadline`` stops early (a bot's time
    budget): then each candidate has as many playouts as the time allowed. With
    ``race`` the candidates clearly behind get fewer (:func:`_racing`; in one
    process). ``policy``: the profile's default when None. ``among``: the
    candidates to evaluate, some of the seat's legal moves (all when None).
    ``focus``: that many playouts more in all, shared by the candidates that could still
    be best after the first ``playouts`` (:func:`contenders`), and by those of ``also``
    (the move an analysis judges; a pass is None), on the deals that follow.
    """
    _check(info)
    policy = policy or default_policy(info.uecda)
    if (policy, info.uecda) not in _POLICY:
        known = ", ".join(p for p, uecda in _POLICY if uecda == info.uecda)
        raise ValueError(f"unknown playout policy {policy!r} for these rules: one of {known}")
    moves_ = candidates(info)
    if among is not None:
        if not among or any(m not in moves_ for m in among):
            raise ValueError("among: not some of the seat's legal moves")
        moves_ = list(among)
    paths = paths_of(info, moves_)
    if len(paths) == 1 or playouts < 1:
        played = run_playouts(info, paths, 0, max(playouts, 1), seed, policy, exact_cards, deadline)
        return summarize(paths, played)
    if deadline is not None or race:
        played = run_playouts(info, paths, 0, playouts, seed, policy, exact_cards, deadline, race)
        return summarize(paths, played)
    sums, by_deal = _play(info, paths, 0, playouts, seed, policy, exact_cards, pool, workers)
    ahead = contenders(by_deal)
    ahead += [c for c, path in enumerate(paths) if path[0] in also and c not in ahead]
    if focus and len(ahead) > 1:
        more = _play(
            info, [paths[c] for c in ahead], playouts, -(-focus // len(ahead)),
            seed, policy, exact_cards, pool, workers,
        )  # fmt: skip
        for c, extra_sums, extra_deals in zip(ahead, *more, strict=True):
            sums[c] = [a + b for a, b in zip(sums[c], extra_sums, strict=True)]
            by_deal[c] += extra_deals
    return summarize(paths, (sums, by_deal))


def _play(
    info: InfoSet,
    paths: Sequence[Path],
    first: int,
    count: int,
    seed: int,
    policy: str,
    exact_cards: int,
    pool: Executor | None,
    workers: int,
) -> Played:
    """Playouts ``first`` … ``first + count - 1`` of every path, shared among
    ``workers`` processes of ``pool`` (in one without), put together deal by deal."""
    if pool is None or workers < 2:
        return run_playouts(info, paths, first, count, seed, policy, exact_cards)
    share = -(-count // workers)
    futures = [
        pool.submit(
            run_playouts,
            info,
            paths,
            start,
            min(share, first + count - start),
            seed,
            policy,
            exact_cards,
        )
        for start in range(first, first + count, share)
    ]
    total = [[0.0] * 5 for _ in paths]
    deals: list[list[float]] = [[] for _ in paths]
    for f in futures:  # in the order of their deals
        sums, by_deal = f.result()
        for t, s, d, more in zip(total, sums, deals, by_deal, strict=True):
            for k in range(5):
                t[k] += s[k]
            d += more
    return total, deals


def contenders(by_deal: Sequence[Sequence[float]]) -> list[int]:
    """The candidates (by index) that could still be best: the leader, and those whose
    difference from it on their common deals is within :data:`RACE_Z` standard errors
    of those paired differences (the luck of a deal is common to every move; their
    difference is what tells them apart)."""
    means = [statistics.fmean(d) for d in by_deal]
    lead = max(range(len(means)), key=means.__getitem__)
    out = []
    for c, deals in enumerate(by_deal):
        if c == lead or min(len(deals), len(by_deal[lead])) < 2:
            out.append(c)
            continue
        difference, error = paired_difference(by_deal[lead], deals)
        if difference <= RACE_Z * error:
            out.append(c)
    return out


def paired_difference(a: Sequence[float], b: Sequence[float]) -> tuple[float, float]:
    """How much ``a`` is worth more than ``b`` on the deals both were played out on (the
    first ones of the longer), and the standard error of those paired differences: the
    luck of a deal falls on both and cancels. Two common deals at least."""
    diffs = [x - y for x, y in zip(a, b, strict=False)]
    return statistics.fmean(diffs), math.sqrt(statistics.variance(diffs) / len(diffs))


def best(found: Sequence[Candidate]) -> Candidate:
    """The candidate of most points among the most played out (a race under a time
    budget leaves the others behind; the first listed among equals)."""
    most = max(c.playouts for c in found)
    return max((c for c in found if c.playouts == most), key=lambda c: c.points)
