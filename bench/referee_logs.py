"""Referee tndhms FLAG_LOGGER logs with the engine: games, submissions, 20-pass draws,
disagreements (each printed), seconds. Not a test: figures only.

    python bench/referee_logs.py LOG [LOG …]

Exits non-zero if any game disagrees or a log is malformed (docs/rules.md §14.4).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from daifugo.uecda_log import Disagreement, LogError, parse_log, referee  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("logs", nargs="+", type=Path)
    args = parser.parse_args()
    start = time.perf_counter()
    games = turns = draws = bad = 0
    for path in args.logs:
        try:
            with path.open(encoding="ascii") as f:
                log = parse_log(f)
            results = list(referee(log))
        except (OSError, LogError, UnicodeDecodeError) as e:
            print(f"{path}: {e}", file=sys.stderr)
            bad += 1
            continue
        for r in results:
            if isinstance(r, Disagreement):
                bad += 1
                print(f"{path}: {r}", file=sys.stderr)
            else:
                games += 1
                turns += r.turns
                draws += r.drawn
    elapsed = time.perf_counter() - start
    print(
        f"{len(args.logs)} logs: {games:,} games refereed, {turns:,} submissions,"
        f" {draws} 20-pass draws, {bad} disagreements or errors, {elapsed:.1f} s"
        f" ({games / elapsed:,.0f} games/s)"
    )
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
