"""Wall-clock guards scaled to the machine the tests run on.

A test checks behaviour, not speed (``bench/`` measures speed). Where a test must still
bound a wait (a stop reaches a client, an answer comes while others load the server), the
bound is a guard against a hang or a stall, not a figure: :func:`guard` scales it by how
much slower this machine runs now than the developers' idle two-core machine, and by a
margin for what one moment's measure misses. CI's machine has run 2–3 times slower than
theirs, and a loaded one slower still.
"""

from __future__ import annotations

import functools
import os
import time

#: Seconds the developers' idle machine takes for :func:`_work` (the best of three).
REFERENCE_SECONDS = 0.045
#: How much slower than the measure a test may still be: loads come and go during a run.
MARGIN = 2.0
#: Sets the slowness outright (a float), for a machine the measure misjudges.
OVERRIDE = "DAIHINMIN_SLOWNESS"


def _work() -> float:
    """Seconds a fixed piece of pure-Python work takes here."""
    started = time.perf_counter()
    sum(i * i for i in range(1_000_000))
    return time.perf_counter() - started


@functools.cache
def _speed() -> float:
    """How many times slower than the reference this process computes (measured once)."""
    return max(1.0, min(_work() for _ in range(3)) / REFERENCE_SECONDS)


def slowness() -> float:
    """How many times slower than the developers' idle machine this one runs now: its
    speed (measured once a process) or its load per core (read at each call), whichever
    says slower; never below 1."""
    if os.environ.get(OVERRIDE):
        return max(1.0, float(os.environ[OVERRIDE]))
    load = os.getloadavg()[0] / (os.cpu_count() or 1)
    return max(_speed(), load, 1.0)


def guard(seconds: float) -> float:
    """A bound of ``seconds`` on the developers' idle machine, scaled to this one."""
    return seconds * MARGIN * slowness()
