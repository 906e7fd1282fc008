"""The server's cost of one turn, in process: ``services.post_cards`` with no network.

A 50-game place at pace 0 on a fresh database, five greedy players calling the
service function directly (what the HTTP view and the WebSocket consumer call),
events logged but not sent. Prints the median time of a post (its whole
transaction: lock, engine, rows, event log, commit) and turns/s of the service
alone: the ceiling that the network and the bots then lower.

    python bench/turn.py [--games 50] [--runs 3] [--db sqlite|postgres] [--profile]

Not a test: figures.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PG_URL = "postgres://postgres@127.0.0.1:5432/"


def setup(db: str) -> str | None:
    """Point Django at a fresh database; returns a PostgreSQL database to drop, if any."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "daihinmin.settings")
    os.environ["SECRET_KEY"] = "bench-only-secret"
    os.environ["DEBUG"] = "0"  # as in production: no SQL kept per query
    os.environ.pop("REDIS_URL", None)
    dropped = None
    if db == "postgres":
        import psycopg

        name = f"daihinmin_bench_turn_{os.getpid()}"
        with psycopg.connect(PG_URL + "postgres", autocommit=True) as c:
            c.execute(f"CREATE DATABASE {name}")
        os.environ["DATABASE_URL"] = PG_URL + name
        dropped = name
    else:
        work = tempfile.mkdtemp(prefix="bench-turn-")
        os.environ["DATABASE_URL"] = f"sqlite:///{work}/db.sqlite3"
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    return dropped


def drop(name: str | None) -> None:
    if name is None:
        return
    from django.db import connections

    connections.close_all()
    import psycopg

    with psycopg.connect(PG_URL + "postgres", autocommit=True) as c:
        c.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def play_place(games: int, run: int, proxy=None) -> list[float]:
    """One place to its end; the duration of every post, in seconds (or, through a
    ``tests.round_trips`` proxy, the round trips of every post)."""
    from django.contrib.auth import get_user_model

    from bots.strategies import greedy_player
    from daifugo.cards import format_card
    from places import services
    from places.models import Place
    from places.reads.position import state_of

    names = [f"turn{run}_{i}" for i in range(5)]
    users = [get_user_model().objects.create_user(n, password="pw") for n in names]
    place = services.create_place(
        f"bench {run}", names, game_count=games, pace=0, time_limit=60, seed="bench"
    )
    services.start_place(place.id)
    chooser = greedy_player()
    durations = []
    while True:
        row = Place.objects.only("engine_state", "state").get(pk=place.id)
        state = state_of(row)
        if row.state == Place.State.FINISHED:
            return durations
        game = state.game
        seat = game.turn
        mask = chooser(game.hands[seat], game.table, game.revolution)
        cards = [] if mask is None else [format_card(c) for c in _ids(mask)]
        started = proxy.round_trips if proxy else time.perf_counter()
        services.post_cards(place.id, users[seat].id, cards)
        durations.append((proxy.round_trips if proxy else time.perf_counter()) - started)


def round_trips(games: int) -> str:
    """How many round trips the posts of one more place took, by how many posts took each."""
    from collections import Counter

    from django.db import connection

    from tests.round_trips import counting

    with counting(connection) as proxy:
        spent = Counter(play_place(games, 999, proxy))
    return ", ".join(f"{n} for {count} posts" for n, count in sorted(spent.items()))


def _ids(mask: int) -> list[int]:
    from daifugo.cards import sorted_ids

    return sorted_ids(mask)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--db", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--profile", action="store_true", help="cProfile one run instead")
    args = parser.parse_args()
    dropped = setup(args.db)
    try:
        from places.services import committed

        committed.install(lambda place_id, batch: None, committed._wake)  # sending is not here
        if args.profile:
            import cProfile
            import pstats

            cProfile.runctx(
                "play_place(args.games, 0)", globals(), {"args": args}, "/tmp/turn.prof"
            )
            pstats.Stats("/tmp/turn.prof").sort_stats("cumulative").print_stats(40)
            return
        medians, rates = [], []
        for run in range(args.runs):
            durations = play_place(args.games, run)
            medians.append(statistics.median(durations) * 1000)
            rates.append(len(durations) / sum(durations))
        print(
            f"{args.db}: {len(durations)} posts a place; median post "
            f"{statistics.median(medians):.2f} ms; {statistics.median(rates):.0f} posts/s "
            f"(median of {args.runs} places of {args.games} games)"
        )
        if args.db == "postgres":
            print(f"postgres: round trips a post (counted on the wire): {round_trips(args.games)}")
    finally:
        drop(dropped)


if __name__ == "__main__":
    main()
