"""What finding a connection the database closed costs, each time a connection is used.

Times, on one idle PostgreSQL connection, the server's check
(``daihinmin.postgresql.base.closed_by_server``: what the server sent is read without
waiting, no round trip) and psycopg-pool's ``ConnectionPool.check_connection`` (an
empty query: a round trip), the median of 5 runs of 5,000 calls each.

    python bench/connection_check.py [--url postgres://postgres@127.0.0.1:5432/postgres]

Not a test: figures.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import psycopg  # noqa: E402
from psycopg_pool import ConnectionPool  # noqa: E402

from daihinmin.postgresql.base import closed_by_server  # noqa: E402


def microseconds(check: Callable[[psycopg.Connection], object], conn: psycopg.Connection) -> float:
    runs = []
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(5000):
            check(conn)
        runs.append((time.perf_counter() - start) / 5000 * 1e6)
    return statistics.median(runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url", default="postgres://postgres@127.0.0.1:5432/postgres")
    args = parser.parse_args()
    with psycopg.connect(args.url, autocommit=True) as conn:
        print(f"closed_by_server (no round trip): {microseconds(closed_by_server, conn):.1f} µs")
        empty = microseconds(ConnectionPool.check_connection, conn)
        print(f"ConnectionPool.check_connection (empty query): {empty:.1f} µs")


if __name__ == "__main__":
    main()
