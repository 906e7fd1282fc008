"""How long a place of house bots at pace 0 holds the database, seen by a sign-up that
comes meanwhile (issue 44, item 11: it waited 21 s and answered 500). Not a test: figures.

    python bench/house_hold.py [--games 10] [--montecarlo 1] [--db sqlite|postgres] [--alone]

Five house bots (``--montecarlo`` of them ``montecarlo``, default budget; the others
``greedy``) play ``--games`` games at pace 0, driven by the dealer's rounds as a
tournament's table is; meanwhile another thread makes a user every 10 ms (a sign-up's write, without its
password's hashing). Prints the play's time, the users made and the longest write,
which waited for the writer (SQLite) as long as the play held it at once. ``--alone``:
no other writer, the play's time only.
"""

from __future__ import annotations

import argparse
import threading
import time

from turn import drop, setup


def sign_ups(done: threading.Event, took: list[float]) -> None:
    from django.contrib.auth import get_user_model
    from django.db import connection

    model = get_user_model()
    try:
        n = 0
        while not done.is_set():
            n += 1
            started = time.perf_counter()
            model.objects.create_user(f"signup{n}")  # no password: no hashing
            took.append(time.perf_counter() - started)
            time.sleep(0.01)
        model.objects.filter(username__startswith="signup").delete()
    finally:
        connection.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--montecarlo", type=int, default=1, choices=range(6))
    parser.add_argument("--db", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--alone", action="store_true", help="no other writer")
    args = parser.parse_args()
    dropped = setup(args.db)
    try:
        from places import dealer, services
        from places.models import Place
        from places.services import house

        strategies = ["montecarlo"] * args.montecarlo + ["greedy"] * (5 - args.montecarlo)
        names = []
        for i, strategy in enumerate(strategies):
            house.make_house_user(f"bench-{i}-{strategy}", strategy)
            names.append(f"bench-{i}-{strategy}")
        place = services.create_place("bench", names, game_count=args.games, pace=0, seed="b")
        services.schedule_start(place.id)
        done, took = threading.Event(), []
        thread = threading.Thread(target=sign_ups, args=(done, took))
        started = time.perf_counter()
        if not args.alone:
            thread.start()
        try:
            while Place.objects.get(pk=place.id).state == Place.State.RUNNING:
                dealer.tick()
        finally:
            done.set()
            if not args.alone:
                thread.join()
        played = time.perf_counter() - started
    finally:
        drop(dropped)
    writes = (
        f"; {len(took)} users made meanwhile, the longest write {max(took) * 1e3:.0f} ms, "
        f"the median {sorted(took)[len(took) // 2] * 1e3:.0f} ms"
        if took
        else ""
    )
    print(
        f"{args.db}: {args.games} games of {args.montecarlo} montecarlo and "
        f"{5 - args.montecarlo} greedy house bots at pace 0 in {played:.1f} s{writes}"
    )


if __name__ == "__main__":
    main()
