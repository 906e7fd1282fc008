"""Engine throughput: complete places between random legal players, one process.

Prints games/s and turns/s, the median of 5 runs. Not a test: figures only.

    python bench/engine.py [--games 2000] [--runs 5]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from places.engine import place as pl  # noqa: E402
from places.engine.deal import game_rng  # noqa: E402
from places.engine.legal import legal_plays  # noqa: E402


def play_place(games: int, seed: int) -> int:
    """Play a whole place of ``games`` games; return the number of turns."""
    chooser = random.Random(seed)
    state = pl.new_place(games)
    turns = 0
    while state.phase != pl.OVER:
        if not state.needs_action:
            state, _, _ = pl.step(state, lambda no: game_rng(str(seed), no))
            continue
        game = state.game
        seat = game.turn
        hand = game.hands[seat]
        options = legal_plays(hand, game.table, game.revolution)
        n = len(options) + (game.table is not None)
        if n == 0:  # nothing legal (say, only a joker left to lead): a miss
            state, _, _ = pl.play_mask(state, seat, hand)
        else:
            i = chooser.randrange(n)
            if i == len(options):
                state, _, _ = pl.act(state, seat, ())
            else:
                state, _, _ = pl.play_mask(state, seat, options[i].mask)
        turns += 1
    return turns


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=2000, help="games per run")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    games_rates, turn_rates = [], []
    for run in range(args.runs):
        start = time.perf_counter()
        turns = sum(play_place(50, seed=run * 100_000 + i) for i in range(args.games // 50))
        elapsed = time.perf_counter() - start
        games_rates.append(args.games / elapsed)
        turn_rates.append(turns / elapsed)
        print(
            f"run {run + 1}: {args.games / elapsed:,.0f} games/s, {turns / elapsed:,.0f} turns/s"
            f" ({turns / args.games:.1f} turns a game)"
        )
    print(
        f"median of {args.runs}: {statistics.median(games_rates):,.0f} games/s, "
        f"{statistics.median(turn_rates):,.0f} turns/s (one core, random legal players)"
    )


if __name__ == "__main__":
    main()
