"""Import tndhms FLAG_LOGGER logs into a fresh database (``import_tndhms_log``'s service):
games, submissions and seconds per log and in all, and the process's peak memory
(its resident set after the database is made, and at the end). Not a test: figures only.

    python bench/import_logs.py LOG [LOG …] [--db sqlite|postgres] [--rated]

Each log is one place, imported in its own transaction, refereeing included
(docs/records.md "Where version 2 records come from"). The database is made
for the run (a temporary SQLite file, or a PostgreSQL database dropped after).
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from turn import drop, setup  # noqa: E402 - the same fresh database as bench/turn.py


def peak_mib() -> float:
    """The process's peak resident set so far (Linux counts KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("logs", nargs="+", type=Path)
    parser.add_argument("--db", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--rated", action="store_true", help="the games move ratings")
    args = parser.parse_args()
    dropped = setup(args.db)
    try:
        from places.errors import Refused
        from places.services.uecda import import_tndhms_log

        games = turns = failed = 0
        seconds = 0.0
        before = peak_mib()
        for path in args.logs:
            start = time.perf_counter()
            try:
                with path.open("rb") as log:
                    title = f"bench {path.stem}"[:20]
                    done = import_tndhms_log(log, rated=args.rated, title=title)
            except Refused as e:
                took = time.perf_counter() - start
                print(f"{path}: refused in {took:.1f} s: {e.message[:100]}", file=sys.stderr)
                failed += 1
                continue
            took = time.perf_counter() - start
            seconds += took
            games += done.games
            turns += done.turns
            print(f"{path}: {done.games:,} games, {done.turns:,} submissions, {took:.1f} s")
        print(
            f"{len(args.logs)} logs ({args.db}{', rated' if args.rated else ''}): {games:,} games,"
            f" {turns:,} submissions imported in {seconds:.1f} s"
            f" ({games / max(seconds, 1e-9):,.0f} games/s), {failed} refused;"
            f" peak memory {before:,.0f} MiB before the imports, {peak_mib():,.0f} MiB after"
        )
        return 1 if failed else 0
    finally:
        drop(dropped)


if __name__ == "__main__":
    sys.exit(main())
