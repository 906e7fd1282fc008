"""How strong ``montecarlo`` is: against four stock-style opponents, by the uecda rules.

    python bench/strength.py [--games 1000] [--budgets 100ms 500ms] [--seed 1] [--jobs 2]

For each per-decision budget, ``montecarlo@BUDGET`` plays ``--games`` games (tndhms
matches of 100 games, seats drawn every 5) against four copies of ``stock`` (the
project's port of the stock C client's choices, ``daifugo.uecda_stock``) in the
arena (``bots.arena``, which gives it its seat's information set). ``--jobs`` splits
the games into that many runs of their own seeds, side by side in as many processes
(``montecarlo`` thinks on one core: give it a core each). Prints its points a game and
its share of firsts, each with a 95 % interval (normal approximation), and the
seconds it took. Not a test: figures only. Goal (issue 37): 4.0 points a game; par
is 3.0.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bots.arena import Run  # noqa: E402
from bots.stats import mean_interval  # noqa: E402
from daifugo.rules import UECDA_NAME  # noqa: E402


def play(spec: str, opponent: str, games: int, seed: int) -> list[int]:
    """``spec``'s points in each game of one run."""
    run = Run([spec, *[opponent] * 4], games, seed, 100, UECDA_NAME)
    return run.play()[0].points


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--budgets", nargs="+", default=["100ms", "500ms"])
    parser.add_argument("--opponent", default="stock")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    jobs = max(1, min(args.jobs, args.games))
    shares = [args.games // jobs + (k < args.games % jobs) for k in range(jobs)]
    for budget in args.budgets:
        spec = f"montecarlo@{budget}"
        start = time.perf_counter()
        if jobs == 1:
            points = play(spec, args.opponent, args.games, args.seed)
        else:
            with ProcessPoolExecutor(jobs) as pool:
                runs = [
                    pool.submit(play, spec, args.opponent, n, args.seed * 1000 + k)
                    for k, n in enumerate(shares)
                ]
                points = [p for r in runs for p in r.result()]
        elapsed = time.perf_counter() - start
        interval = mean_interval(points)
        share = sum(1 for p in points if p == 5) / len(points)
        half = 1.96 * math.sqrt(share * (1 - share) / len(points))
        ranks = [sum(1 for p in points if p == 5 - r) for r in range(5)]
        print(
            f"{spec} vs 4 × {args.opponent}, {len(points)} games in {jobs} run(s): "
            f"{interval.mean:.3f} points a game "
            f"(95 % {interval.low:.3f}–{interval.high:.3f}), "
            f"firsts {share:.1%} (95 % {max(share - half, 0):.1%}–{min(share + half, 1):.1%}), "
            f"ranks {ranks}, {elapsed:.0f} s",
            flush=True,
        )


if __name__ == "__main__":
    main()
