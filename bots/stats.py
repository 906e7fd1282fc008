"""How sure a standing is: a mean with its 95 % confidence interval.

Kept apart from the arena so that whatever ranks players over many games (the
arena, tournaments) says "how sure" the same way.
"""

from __future__ import annotations

import math
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


def mean_interval(values: Sequence[float]) -> Interval:
    """The mean and its 95 % interval, mean ± 1.96·s/√n (the normal approximation,
    with the sample standard deviation ``s``): sound for the hundreds of games a
    standing rests on. One value or none gives no width (nothing to measure it by).
    """
    n = len(values)
    if n == 0:
        return Interval(math.nan, math.nan, math.nan)
    mean = statistics.fmean(values)
    if n == 1:
        return Interval(mean, mean, mean)
    half = Z95 * statistics.stdev(values) / math.sqrt(n)
    return Interval(mean, mean - half, mean + half)
