"""What a game search (``/games.json``, ``places.reads.games.search``) costs at a million
finished games. Not a test: figures.

    python bench/games_search.py [--games 1000000] [--runs 7] [--db sqlite|postgres]

The index rows (``GameEntry``, ``GameFact``) of ``--games`` games are made in bulk by SQL
in a fresh database: places of 50 games among 100 users (five a place, a fifth of the
places ``uecda``), each game's ranks and facts drawn from its number (a revolution by one
player in 20, an 8-cut in 3, a lock in 10 of the ``uecda`` ones, a miss of
``CARD_NOT_HELD`` in 50, a timeout in 200). Prints, for typical searches, the median
wall time of ``--runs`` runs of the search as the view calls it (a page of 50, a reader
who is not staff).
"""

from __future__ import annotations

import argparse
import statistics
import time
from datetime import timedelta

from turn import drop, setup

GAMES_A_PLACE = 50
USERS = 100


def fill(games: int) -> None:
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.utils import timezone

    from places.models import Game, GameEntry, GameFact, Place, Player

    started = time.perf_counter()
    q = connection.ops.quote_name
    model = get_user_model()
    model.objects.bulk_create(model(username=f"u{i}") for i in range(USERS))
    user0 = model.objects.order_by("pk").values_list("pk", flat=True)[0]
    places = games // GAMES_A_PLACE
    Place.objects.bulk_create(
        (
            Place(title=f"bench {p}", game_count=GAMES_A_PLACE, state="finished",
                  rules="uecda" if p % 5 == 0 else "daihinmin-2011")
            for p in range(1, places + 1)
        ),
        batch_size=2000,
    )  # fmt: skip
    place0 = Place.objects.order_by("pk").values_list("pk", flat=True)[0] - 1
    base = timezone.now() - timedelta(seconds=games)
    with connection.cursor() as c:
        if connection.vendor == "postgresql":
            c.execute(f"CREATE TABLE bench_n AS SELECT generate_series(1, {games}) AS n")
        else:
            c.execute(
                "CREATE TABLE bench_n AS WITH RECURSIVE s(n) AS "
                f"(SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < {games}) SELECT n FROM s"
            )
        c.execute("CREATE TABLE bench_k AS SELECT n - 1 AS k FROM bench_n WHERE n <= 5")
        game, entry, fact = (q(m._meta.db_table) for m in (Game, GameEntry, GameFact))
        c.execute(
            f"INSERT INTO {game} (id, place_id, no, status, place_info, created_at, updated_at) "
            f"SELECT n, {place0} + (n - 1) / {GAMES_A_PLACE} + 1, (n - 1) %% {GAMES_A_PLACE} + 1,"
            " 1, 'normal', %s, %s FROM bench_n",
            [base, base],
        )
        # player k of game n: user (7p + 13k) mod 100 of place p; its rank and a hash of both
        user = f"{user0} + ((((n - 1) / {GAMES_A_PLACE} + 1) * 7 + k * 13) %% {USERS})"
        uecda = f"(((n - 1) / {GAMES_A_PLACE} + 1) %% 5 = 0)"
        hashed = "((n * 2654435761 + k * 40503) %% 1000003)"
        ended = (
            "%s + (n * interval '1 second')"
            if connection.vendor == "postgresql"
            else "strftime('%%Y-%%m-%%d %%H:%%M:%%f', %s, '+' || n || ' seconds')"
        )
        c.execute(
            f"INSERT INTO {entry} (game_id, user_id, place_id, tournament_id, rules, no, seat,"
            " rank, ended_at) "
            f"SELECT n, {user}, {place0} + (n - 1) / {GAMES_A_PLACE} + 1, NULL,"
            f" CASE WHEN {uecda} THEN 'uecda' ELSE 'daihinmin-2011' END,"
            f" (n - 1) %% {GAMES_A_PLACE} + 1, k, (n + k) %% 5 + 1, {ended}"
            " FROM bench_n CROSS JOIN bench_k",
            [
                base.replace(tzinfo=None).isoformat(sep=" ")
                if connection.vendor != "postgresql"
                else base
            ],
        )
        for kind, code, when in (
            ("revolution", "", f"{hashed} %% 20 = 0"),
            ("eight_cut", "", f"{hashed} %% 3 = 1"),
            ("lock", "", f"{uecda} AND {hashed} %% 10 = 2"),
            ("miss", "CARD_NOT_HELD", f"NOT {uecda} AND {hashed} %% 50 = 3"),
            ("miss", "", f"NOT {uecda} AND {hashed} %% 50 = 3"),
            ("timeout", "", f"NOT {uecda} AND {hashed} %% 200 = 4"),
        ):
            c.execute(
                f"INSERT INTO {fact} (game_id, user_id, kind, code, turn) "
                f"SELECT n, {user}, %s, %s, {hashed} %% 60 + 1 FROM bench_n CROSS JOIN bench_k"
                f" WHERE {when}",
                [kind, code],
            )
        # each place's five seats, the bot version each played: v1 in odd places, v2 in even
        player = q(Player._meta.db_table)
        c.execute(
            f"INSERT INTO {player} (place_id, user_id, seat, games, points, version) "
            f"SELECT {place0} + n, {user0} + ((n * 7 + k * 13) %% {USERS}), k, {GAMES_A_PLACE},"
            " 0, CASE WHEN n %% 2 = 0 THEN 'v2' ELSE 'v1' END"
            f" FROM bench_n CROSS JOIN bench_k WHERE n <= {places}",
            [],
        )
        c.execute("DROP TABLE bench_n")
        c.execute("DROP TABLE bench_k")
        c.execute("ANALYZE")
    print(
        f"filled: {games:,} games, {GameEntry.objects.count():,} entries, "
        f"{GameFact.objects.count():,} facts in {time.perf_counter() - started:.0f} s"
    )


def searches(games: int) -> list[tuple[str, dict]]:
    from places.models import Place

    middle = games // 2
    place = Place.objects.order_by("pk").values_list("pk", flat=True)[len(range(0, games, 50)) // 2]
    early = "2000-01-01"
    return [
        ("newest games", {}),
        ("player=u1", {"player": "u1"}),
        ("player=u1 has=revolution", {"player": "u1", "has": "revolution"}),
        ("player=u1 has=miss miss=CARD_NOT_HELD", {"player": "u1", "miss": "CARD_NOT_HELD"}),
        ("player=u1 has=timeout", {"player": "u1", "has": "timeout"}),
        ("has=lock", {"has": "lock"}),
        ("has=timeout", {"has": "timeout"}),
        ("player=u1 opponent=u14", {"player": "u1", "opponent": "u14"}),
        ("player=u1 version=v2", {"player": "u1", "version": "v2"}),
        ("player=u1 rules=uecda rank=1", {"player": "u1", "rules": "uecda", "rank": "1"}),
        ("player=u1 has=revolution opponent=u14", {"player": "u1", "has": "revolution", "opponent": "u14"}),
        (f"place={place}", {"place": str(place)}),
        ("player=u1, a page deep (before=middle)", {"player": "u1", "before": str(middle)}),
        ("player=u1 until=2000-01-01 (none: reads all u1's)", {"player": "u1", "until": early}),
    ]  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--db", choices=("sqlite", "postgres"), default="sqlite")
    args = parser.parse_args()
    dropped = setup(args.db)
    try:
        from places.reads.games import parse_query, search

        fill(args.games)
        print(f"{args.db}: median of {args.runs} runs, a page of 50")
        for name, params in searches(args.games):
            q = parse_query(params)
            times, found = [], 0
            for _ in range(args.runs):
                started = time.perf_counter()
                found = len(search(q).games)
                times.append(time.perf_counter() - started)
            print(f"  {name:<55} {statistics.median(times) * 1000:8.1f} ms  ({found} games)")
    finally:
        drop(dropped)


if __name__ == "__main__":
    main()
