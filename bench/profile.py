"""What a profile (``/users/NAME.json``) costs to read at many games, and what adding one
game to its players' aggregates costs the change that finishes it.

A user with N finished games in practice places of 5 games (the user and four house
bots, about 11 turns each a game) is written straight into a fresh database as rows,
then added up (``places.services.profiles.recount``, what the migration does). The
profile is read as it is now (the sums) and as it was before the aggregates (every rank
and turn, ``tests/places/profile_reference.py``); both give the same document.

    python bench/profile.py [--games 600 5000] [--runs 5] [--db sqlite|postgres]

Not a test: figures.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.turn import drop, setup  # noqa: E402

TURNS_PER_SEAT = 11
GAMES_PER_PLACE = 5


def make_games(games: int, rng: random.Random) -> None:
    """``games`` finished games of user ``me`` against four house bots, as rows."""
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from places.models import Game, Place, Player, Rank, Turn
    from places.services import house

    me = get_user_model().objects.filter(username="me").first()
    me = me or get_user_model().objects.create_user("me", password="pw")
    bots = [house.make_house_user(f"house-greedy-{i}", "greedy")[0] for i in range(1, 5)]
    users = [me, *bots]
    start = timezone.now() - timedelta(days=30)
    for first in range(0, games, GAMES_PER_PLACE):
        place = Place.objects.create(
            title="Practice", game_count=GAMES_PER_PLACE, state="finished", practice=True
        )
        players = Player.objects.bulk_create(
            Player(place=place, user=u, seat=s) for s, u in enumerate(users)
        )
        made = Game.objects.bulk_create(
            Game(place=place, no=no, status=Game.FINISHED)
            for no in range(1, min(GAMES_PER_PLACE, games - first) + 1)
        )
        ranks, turns = [], []
        for game in made:
            order = rng.sample(range(1, 6), 5)
            ranks += [
                Rank(game=game, player=p, rank=r) for p, r in zip(players, order, strict=True)
            ]
            for no in range(1, TURNS_PER_SEAT * 5 + 1):
                opened = start + timedelta(seconds=no)
                outcome = rng.choice(["play", "play", "pass", "pass", "miss", "timeout"])
                turns.append(
                    Turn(
                        game=game,
                        no=no,
                        player=players[no % 5],
                        table=[] if no % 3 == 0 else [rng.randrange(53)],
                        cards=[rng.randrange(53)] if outcome == "play" else [],
                        outcome=outcome,
                        reason="DUPLICATE_CARD" if outcome == "miss" else "",
                        opened_at=opened,
                        deadline=opened + timedelta(seconds=10),
                        settled_at=opened + timedelta(microseconds=rng.randrange(1, 200_000)),
                    )
                )
        Rank.objects.bulk_create(ranks)
        Turn.objects.bulk_create(turns, batch_size=2000)


def timed(read, runs: int) -> str:
    """The medians of ``runs`` reads: wall time and this process's CPU time (a loaded
    machine stretches the first; the second is this process's work alone)."""
    wall, cpu = [], []
    for _ in range(runs):
        started, used = time.perf_counter(), time.process_time()
        read()
        wall.append(time.perf_counter() - started)
        cpu.append(time.process_time() - used)
    return f"{statistics.median(wall) * 1000:.1f} ms ({statistics.median(cpu) * 1000:.1f} ms CPU)"


def game_end_cost(runs: int) -> str:
    """What ``count_game`` adds to the change that finishes a game (rolled back each time)."""
    from django.db import transaction

    from places.models import Game, Rank
    from places.services.profiles import Seated, count_game

    game = Game.objects.order_by("-id").first()
    players = [
        Seated(p, u, r)
        for p, u, r in Rank.objects.filter(game=game).values_list(
            "player_id", "player__user_id", "rank"
        )
    ]

    def once() -> None:
        with transaction.atomic():
            count_game(game.id, players)
            transaction.set_rollback(True)

    return timed(once, runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, nargs="+", default=[600, 5000])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--db", choices=["sqlite", "postgres"], default="sqlite")
    args = parser.parse_args()
    dropped = setup(args.db)
    try:
        from django.db import connection

        from places.reads.profiles import profile
        from places.services.profiles import recount
        from tests.places import profile_reference

        made = 0
        for games in sorted(args.games):  # one database, more games each time
            make_games(games - made, random.Random(games))
            made = games
            recount()
            if connection.vendor == "postgresql":
                with connection.cursor() as cursor:
                    cursor.execute("ANALYZE")  # plans for the rows just loaded, as autovacuum would
            now = profile("me").as_dict()
            assert now == profile_reference.profile("me").as_dict(), "the documents differ"
            before = timed(lambda: profile_reference.profile("me"), args.runs)
            after = timed(lambda: profile("me"), args.runs)
            added = game_end_cost(args.runs)
            print(
                f"{args.db} {games} games ({games // GAMES_PER_PLACE} places): a profile "
                f"before {before}, after {after}; a game's end adds {added}"
            )
    finally:
        drop(dropped)


if __name__ == "__main__":
    main()
