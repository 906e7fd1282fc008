"""How stable the analysis's verdicts are under another seed (issue 46, item 4).

    python bench/analysis_stability.py [--games 6] [--first 1] [--playouts 1000] [--workers 2]

Analyses ``--games`` games of the tndhms fixture log (five stock clients, from game
``--first``) twice, under seeds 0 and 1 (other deals for every decision), and prints,
for the marks of the document (evaluator version 2: each loss measured on held-out
deals, with the error of its paired differences) and, from the same documents, the
marks version 1 gave (the best candidate's value less the move played's on the same
deals, the two errors combined as if independent):

- the decisions marked, under either seed;
- **best kept**: of the decisions marked under one seed, the share whose best move is
  the same under the other (goal ≥ 90 %);
- **marks back**: of the decisions marked under one seed, the share marked under the
  other too (goal ≥ 85 %);
- the share of all judged decisions whose best move is the same under both seeds;
- the wall time an analysis of a game (goal ≤ 15 s at 1,000 playouts).

Both directions are pooled (marked under 0, looked at under 1, and the reverse). Not a
test: figures only.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from daifugo.analysis import analyse, mark_of  # noqa: E402
from daifugo.uecda_log import Refereed, parse_log, referee  # noqa: E402
from daifugo.uecda_record import record_of_logged  # noqa: E402

FIXTURE = HERE.parent / "tests" / "daifugo" / "data" / "tndhms-250.log"

Mark = Callable[[dict], str | None]


def records(first: int, games: int) -> list[dict]:
    log = parse_log(FIXTURE.read_text(encoding="ascii").splitlines(keepends=True))
    place = {"id": None, "title": "tndhms fixture", "games": 250}
    done = [d for d in referee(log) if isinstance(d, Refereed)]
    return [record_of_logged(log, d, place) for d in done[first - 1 : first - 1 + games]]


def mark_v2(d: dict) -> str | None:
    return d["mark"]


def mark_v1(d: dict) -> str | None:
    """Version 1's mark of the same decision: on the deals that chose the best."""
    top = d["candidates"][0]
    mine = next(c for c in d["candidates"] if c["cards"] == d["played"]["cards"]
                and c.get("table") == d["played"].get("table"))  # fmt: skip
    return mark_of(top["points"] - mine["points"], math.hypot(top["points_se"], mine["points_se"]))


def best_of(d: dict) -> tuple:
    return tuple(d["best"]["cards"]), d["best"].get("table")


def compare(pairs: Sequence[tuple[dict, dict]], mark: Mark) -> tuple[int, float, float]:
    """Decisions marked (either seed), best kept and marks back among them (pooled, %)."""
    marked = kept = back = 0
    for a, b in pairs:
        for x, y in ((a, b), (b, a)):
            if mark(x) is not None:
                marked += 1
                kept += best_of(x) == best_of(y)
                back += mark(y) is not None
    either = sum(mark(a) is not None or mark(b) is not None for a, b in pairs)
    return either, 100 * kept / max(marked, 1), 100 * back / max(marked, 1)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--first", type=int, default=1)
    parser.add_argument("--playouts", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    pairs: list[tuple[dict, dict]] = []
    seconds = []
    with ProcessPoolExecutor(args.workers) as pool:
        for record in records(args.first, args.games):
            docs = []
            for seed in (0, 1):
                start = time.perf_counter()
                docs.append(analyse(record, args.playouts, pool=pool, seed=seed))
                seconds.append(time.perf_counter() - start)
            a, b = (
                {d["turn"]: d for d in doc["decisions"] if d.get("loss") is not None}
                for doc in docs
            )
            pairs += [(a[t], b[t]) for t in a if t in b]
    same = sum(best_of(a) == best_of(b) for a, b in pairs)
    print(
        f"{args.games} games of the tndhms fixture log from game {args.first},"
        f" {args.playouts} playouts a decision, {args.workers} workers:"
        f" {len(pairs)} judged decisions"
    )
    print(f"best move the same under both seeds: {100 * same / len(pairs):.1f} % of all")
    for name, mark in (("version 2 (held out, paired)", mark_v2), ("version 1", mark_v1)):
        marked, kept, back = compare(pairs, mark)
        print(
            f"{name}: {marked} decisions marked under either seed;"
            f" best kept {kept:.1f} %, marks back {back:.1f} % (goals 90 %, 85 %)"
        )
    seconds.sort()
    print(f"analysis of a game: median {seconds[len(seconds) // 2]:.1f} s wall (goal 15 s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
