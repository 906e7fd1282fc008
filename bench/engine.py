"""Engine throughput: complete places between random legal players, one process.

Prints games/s and turns/s, the median of 5 runs, for each rules profile asked
for (the runs of the profiles alternate, so that both see the same load), and
games a CPU second of the process (less moved than wall time when other work
shares the cores). Not a test: figures only.

    python bench/engine.py [--games 2000] [--runs 5] [--rules daihinmin-2011 --rules uecda]

``daihinmin-2011`` (the default) plays places of 50 games of the 2011 engine;
``uecda`` plays matches of 100 games (one rank period, seats drawn every 5
games) of the UECda engine, with the rich's choice of cards random and the
20-pass draws settled at random.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from daifugo import place as pl  # noqa: E402
from daifugo import uecda as u  # noqa: E402
from daifugo.deal import game_rng  # noqa: E402
from daifugo.legal import legal_plays  # noqa: E402
from daifugo.rules import DAIHINMIN_2011_NAME, PROFILES, UECDA_NAME  # noqa: E402
from daifugo.uecda_legal import legal_moves  # noqa: E402


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


UECDA_PASS = u.analyze(0, 0)


def play_uecda_match(games: int, seed: int) -> int:
    """Play a UECda match of ``games`` games; return the number of turns."""
    rng = random.Random(seed)
    rules = PROFILES[UECDA_NAME]
    match = u.UecdaMatch(rules)
    turns = 0
    for _ in range(games):
        deal = u.deal_game(match, rng)
        choices = [None, None]
        if deal.exchange_ranks is not None:
            paid, _ = u.tribute(deal.dealt, deal.exchange_ranks)
            for i, (rank, n) in enumerate(((1, 2), (2, 1))):
                hand = paid[deal.exchange_ranks.index(rank)]
                choices[i] = sum(
                    1 << c for c in rng.sample([c for c in u.DECK if hand >> c & 1], n)
                )
        game, _ = u.start_game(deal, rules, *choices)
        while game.phase == u.TURN:
            player = game.turn
            options = legal_moves(game, player)
            i = rng.randrange(len(options) + 1)
            game, _ = u.submit(game, player, options[i] if i < len(options) else UECDA_PASS)
            turns += 1
        if game.phase == u.DRAW:
            game = u.settle_draw(game, u.draw_order(game, rng))
        match = u.finish_game(match, deal, game)
    return turns


def run_profile(rules: str, games: int, run: int) -> tuple[float, float, int]:
    """One run of ``games`` games of a profile: (seconds, CPU seconds, turns)."""
    start = time.perf_counter()
    cpu = time.process_time()
    if rules == UECDA_NAME:
        per_match = 100
        turns = sum(
            play_uecda_match(per_match, run * 100_000 + i) for i in range(games // per_match)
        )
    else:
        turns = sum(play_place(50, seed=run * 100_000 + i) for i in range(games // 50))
    return time.perf_counter() - start, time.process_time() - cpu, turns


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=2000, help="games per run")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--rules",
        action="append",
        choices=sorted(PROFILES),
        help=f"rules profile, repeatable (default {DAIHINMIN_2011_NAME})",
    )
    args = parser.parse_args()
    profiles = args.rules or [DAIHINMIN_2011_NAME]
    games_rates: dict[str, list[float]] = {p: [] for p in profiles}
    cpu_rates: dict[str, list[float]] = {p: [] for p in profiles}
    turn_rates: dict[str, list[float]] = {p: [] for p in profiles}
    for run in range(args.runs):
        for rules in profiles:
            elapsed, cpu, turns = run_profile(rules, args.games, run)
            games_rates[rules].append(args.games / elapsed)
            cpu_rates[rules].append(args.games / cpu)
            turn_rates[rules].append(turns / elapsed)
            print(
                f"{rules} run {run + 1}: {args.games / elapsed:,.0f} games/s,"
                f" {turns / elapsed:,.0f} turns/s ({turns / args.games:.1f} turns a game),"
                f" {args.games / cpu:,.0f} games a CPU second"
            )
    for rules in profiles:
        print(
            f"{rules} median of {args.runs}: {statistics.median(games_rates[rules]):,.0f} games/s, "
            f"{statistics.median(turn_rates[rules]):,.0f} turns/s, "
            f"{statistics.median(cpu_rates[rules]):,.0f} games a CPU second"
            " (one core, random legal players)"
        )


if __name__ == "__main__":
    main()
