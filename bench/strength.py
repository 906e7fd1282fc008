"""How strong ``montecarlo`` is: against four stock-style opponents, by the uecda rules.

    python bench/strength.py [--games 1000] [--budgets 100ms 500ms] [--seed 1]

For each per-decision budget, ``montecarlo@BUDGET`` plays ``--games`` games (tndhms
matches of 100 games, seats drawn every 5) against four copies of ``stock`` (the
project's port of the stock C client's choices, ``bots.strategies``) in the arena
(``bots.arena``, which gives it its seat's information set). Prints its points a
game and its share of firsts, each with a 95 % interval (normal approximation),
and the seconds it took. Not a test: figures only. Goal (issue 37): 4.0 points a
game; par is 3.0.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bots.arena import Run  # noqa: E402
from places.engine.rules import UECDA_NAME  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--budgets", nargs="+", default=["100ms", "500ms"])
    parser.add_argument("--opponent", default="stock")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    for budget in args.budgets:
        spec = f"montecarlo@{budget}"
        run = Run([spec, *[args.opponent] * 4], args.games, args.seed, 100, UECDA_NAME)
        start = time.perf_counter()
        mc = run.play()[0]
        elapsed = time.perf_counter() - start
        points = mc.interval()
        firsts = [1 if p == 5 else 0 for p in mc.points]
        share = sum(firsts) / len(firsts)
        half = 1.96 * math.sqrt(share * (1 - share) / len(firsts))
        print(
            f"{spec} vs 4 × {args.opponent}, {mc.games} games: "
            f"{points.mean:.3f} points a game (95 % {points.low:.3f}–{points.high:.3f}), "
            f"firsts {share:.1%} (95 % {max(share - half, 0):.1%}–{min(share + half, 1):.1%}), "
            f"ranks {mc.ranks}, {elapsed:.0f} s"
        )


if __name__ == "__main__":
    main()
