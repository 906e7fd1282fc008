"""How the sample strategies fare against each other, in the engine alone.

Plays places of 50 games with one seat of strategy A and four of strategy B
(A's seat moves round the table from place to place), and prints A's and B's
average points per game (4 for 大富豪 … 0 for 大貧民; 2 is par).

    python bench/strategies.py --a shedder --b greedy --games 1000
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bots.strategies import STRATEGIES, names_for  # noqa: E402
from daifugo import place as pl  # noqa: E402
from daifugo.deal import game_rng  # noqa: E402
from daifugo.view import BOOK_2011, answer_2011  # noqa: E402


def play_place(strategies, games: int, seed: int) -> tuple[int, ...]:
    state = pl.new_place(games, len(strategies))
    while state.phase != pl.OVER:
        if not state.needs_action:
            state, _, _ = pl.step(state, lambda no: game_rng(f"strategies:{seed}", no))
            continue
        game = state.game
        seat = game.turn
        choice = answer_2011(strategies[seat], game.hands[seat], game.table, game.revolution)
        if choice is None:
            state, _, _ = pl.act(state, seat, ())
        else:
            state, _, _ = pl.play_mask(state, seat, choice)
    return state.points


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--a", default="shedder", choices=sorted(names_for(BOOK_2011)))
    parser.add_argument("--b", default="greedy", choices=sorted(names_for(BOOK_2011)))
    parser.add_argument("--games", type=int, default=1000)
    args = parser.parse_args()
    per_place = 50
    a_points = b_points = 0
    places = max(1, args.games // per_place)
    for i in range(places):
        seat_a = i % 5
        strategies = [
            STRATEGIES[args.a](i) if s == seat_a else STRATEGIES[args.b](i * 5 + s)
            for s in range(5)
        ]
        points = play_place(strategies, per_place, i)
        a_points += points[seat_a]
        b_points += sum(points) - points[seat_a]
    games = places * per_place
    print(
        f"{games} games, one {args.a} against four {args.b}: "
        f"{args.a} {a_points / games:.2f} points a game, {args.b} {b_points / games / 4:.2f} "
        "(par is 2.00)"
    )


if __name__ == "__main__":
    main()
