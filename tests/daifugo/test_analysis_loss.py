"""A decision's loss is measured on deals that did not choose the best move, with the
error of the paired differences (issue 46, item 4): the best of many equal moves, whose
noise alone made it best, costs nothing on average, as it does on the deals that chose
it; a move a little behind on every deal is told apart from one that only looks so."""

from __future__ import annotations

import random
import statistics

from daifugo.analysis import held_out_loss, mark_of
from daifugo.evaluate import Candidate


def candidate(move: int, deals: list[float]) -> Candidate:
    mean = statistics.fmean(deals)
    se = statistics.stdev(deals) / len(deals) ** 0.5
    return Candidate(move, mean, se, 3.0, 0.0, len(deals), tuple(deals))


def equal_moves(rng: random.Random, moves: int = 10, deals: int = 40) -> list[Candidate]:
    """``moves`` moves worth the same, each with noise of its own on every deal."""
    return [candidate(m, [rng.gauss(3.0, 1.5) for _ in range(deals)]) for m in range(moves)]


def test_the_best_of_equal_moves_costs_nothing_held_out_and_much_in_sample() -> None:
    rng = random.Random(46)
    held_out, in_sample, marked = [], [], 0
    for _ in range(400):
        found = equal_moves(rng)
        mine = found[rng.randrange(len(found))]
        loss, error = held_out_loss(found, mine)
        held_out.append(loss)
        in_sample.append(max(c.points for c in found) - mine.points)
        marked += mark_of(loss, error) is not None
    mean, se = statistics.fmean(held_out), statistics.stdev(held_out) / len(held_out) ** 0.5
    assert abs(mean) < 3 * se  # unbiased: no loss where there is none
    assert statistics.fmean(in_sample) > 0.3  # what the same deals said
    assert marked <= 4  # 1 %: a mark is beyond the noise


def test_a_move_behind_on_every_deal_is_marked_through_noise_common_to_both() -> None:
    rng = random.Random(7)
    luck = [rng.gauss(3.0, 2.0) for _ in range(60)]  # the deal's, the same for both moves
    best = candidate(0, [x + 0.6 for x in luck])
    mine = candidate(1, luck)
    loss, error = held_out_loss([best, mine], mine)
    assert abs(loss - 0.6) < 1e-9 and error < 1e-9
    assert mark_of(loss, error) == "?"
    # each value alone is far noisier than the difference
    assert best.points_se > 0.2


def test_the_move_played_when_best_on_both_halves_loses_nothing() -> None:
    rng = random.Random(3)
    luck = [rng.gauss(3.0, 2.0) for _ in range(20)]
    mine = candidate(0, [x + 1.0 for x in luck])
    other = candidate(1, luck)
    assert held_out_loss([other, mine], mine) == (0.0, 0.0)
