"""How sure a standing is: a mean with its 95 % confidence interval.

Kept apart from the arena so that whatever ranks players over many games (the
arena, tournaments) says "how sure" the same way.
"""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

#: The normal distribution's two-sided 95 % quantile.
Z95 = 1.959963984540054


@dataclass(frozen=True, slots=True)
class Interval:
    mean: float
    low: float
    high: float

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2


def _no_width(values: Sequence[float]) -> Interval:
    """One value or none: nothing to measure a width by."""
    mean = values[0] if values else math.nan
    return Interval(mean, mean, mean)


def mean_interval(values: Sequence[float]) -> Interval:
    """The mean and its 95 % interval, mean ± 1.96·s/√n (the normal approximation,
    with the sample standard deviation ``s``): sound for the hundreds of games a
    standing rests on. One value or none gives no width (nothing to measure it by).
    """
    n = len(values)
    if n < 2:
        return _no_width(values)
    mean = statistics.fmean(values)
    half = Z95 * statistics.stdev(values) / math.sqrt(n)
    return Interval(mean, mean - half, mean + half)


#: Resamples of a bootstrap: enough for the 2.5 and 97.5 percentiles to settle to
#: about a hundredth of a point per game.
RESAMPLES = 2000


def bootstrap_interval(
    values: Sequence[float], resamples: int = RESAMPLES, seed: int | str = 0
) -> Interval:
    """The mean and its 95 % percentile-bootstrap interval.

    No assumption on the shape of the values (a tournament's points per game are
    0 … 4, far from normal over a few dozen games). Resampled with a generator
    seeded by ``seed``, so the same values always give the same interval.
    """
    n = len(values)
    if n < 2:
        return _no_width(values)
    mean = statistics.fmean(values)
    draw = random.Random(f"bootstrap:{seed}").choices
    means = sorted(math.fsum(draw(values, k=n)) / n for _ in range(resamples))
    low = means[int(0.025 * resamples)]
    high = means[max(0, math.ceil(0.975 * resamples) - 1)]
    return Interval(mean, low, high)
