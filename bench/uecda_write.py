"""What storing one finished UECda game costs ``uecda_match``: ``store_match_games`` of a
game at a time (its transaction: the place locked, the Game and Rank rows, the engine
state, the commit; the five players' profiles once a second), as the default writer calls
it between a game's end and its clients hearing of it. Not a test: figures.

    python bench/uecda_write.py [--games 200] [--runs 3] [--db sqlite|postgres]

The records are those of a match between five greedy house seats, played first in
process; prints the CPU (this process's) and wall time a game, median of the runs,
each run on a place of its own in a fresh database.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

from turn import drop, setup


def records(games: int) -> list[tuple[dict, list]]:
    from bots.strategies import resolve
    from daifugo.view import BOOK_UECDA
    from places.uecda.match import HouseSeat, play_match

    played: list[tuple[dict, list]] = []  # each game's record and judged submissions
    seats = [HouseSeat(f"greedy{p}", resolve("greedy", None, BOOK_UECDA)) for p in range(5)]
    head = {"id": 0, "title": "bench", "games": games}
    asyncio.run(play_match(seats, games, "bench", head, lambda no, r, j: played.append((r, j))))
    return played


def run(played: list[tuple[dict, list]], n: int) -> tuple[float, float]:
    """CPU and wall seconds a game, all but the last game written one at a time."""
    from places.services.uecda import open_match, store_match_games
    from places.uecda.match import count_due

    place_id = open_match("bench", len(played), "bench", [f"w{n}_{p}" for p in range(5)], False)
    first, judged = played[0]
    players = store_match_games(place_id, [first], False, judged={1: judged})  # the first write
    cpu, wall = time.process_time(), time.perf_counter()
    counted_at = time.monotonic()
    uncounted: dict[int, list] = {}
    for record, judged in played[1:-1]:  # counted as the match's writer (GameWriter) counts
        now = time.monotonic()
        count = count_due(counted_at, now)
        uncounted[record["game"]] = judged
        store_match_games(place_id, [record], False, players, count, uncounted)
        if count:
            counted_at = now
            uncounted = {}
    games = len(played) - 2
    return (time.process_time() - cpu) / games, (time.perf_counter() - wall) / games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--db", choices=("sqlite", "postgres"), default="sqlite")
    args = parser.parse_args()
    dropped = setup(args.db)
    try:
        played = records(args.games)
        runs = [run(played, n) for n in range(args.runs)]
    finally:
        drop(dropped)
    cpu = statistics.median(c for c, _ in runs)
    wall = statistics.median(w for _, w in runs)
    print(
        f"{args.db}: a game's write {cpu * 1e3:.2f} ms CPU, {wall * 1e3:.2f} ms wall "
        f"(median of {args.runs} runs of {args.games - 2} games)"
    )


if __name__ == "__main__":
    main()
