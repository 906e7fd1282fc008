"""How fast the evaluator is (issue 37): playouts a second per core for both rules
profiles, and the wall time to analyse a whole 5-player UECda game.

    python bench/analysis.py [--positions 20] [--deals 20] [--playouts 1000] [--workers 2]

1. Playouts per second on one core: ``--positions`` decisions taken from seeded games
   of ``greedy`` players (every 7th decision, openings to endings), each evaluated
   with ``--deals`` deals (every candidate played out on each), by the default
   policy; beside it, the engine's own speed as ``bench/engine.py`` plays it
   (random legal players, 200 games).
2. A seeded UECda game of five ``stock`` players, each of its decisions with more
   than one candidate evaluated with ``--playouts`` playouts shared by its
   candidates, the decisions spread over ``--workers`` processes: the wall time.
   Goal: 15 s at 1,000 playouts a decision.

Not a test: figures only.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import engine as engine_bench  # noqa: E402

from bots.strategies import resolve  # noqa: E402
from daifugo import place as pl  # noqa: E402
from daifugo import uecda as u  # noqa: E402
from daifugo.deal import game_rng  # noqa: E402
from daifugo.evaluate import candidates, evaluate  # noqa: E402
from daifugo.infoset import InfoSet, exchange_seen, observe  # noqa: E402
from daifugo.rules import DAIHINMIN_2011_NAME, UECDA, UECDA_NAME  # noqa: E402
from daifugo.solve import apply, is_open, moves  # noqa: E402
from daifugo.view import BOOK_UECDA, view_uecda  # noqa: E402


def decisions_2011(count: int, seed: int) -> list[InfoSet]:
    """Information sets of every 7th decision of seeded 2011 games of greedy players."""
    from bots.strategies import greedy_player

    out: list[InfoSet] = []
    n = 0
    while len(out) < count:
        n += 1
        state = pl.new_place(1)
        while not state.needs_action:
            state, _, deal = pl.step(state, lambda no, n=n: game_rng(f"analysis:{seed}:{n}", no))
        game = state.game
        played = 0
        choose = greedy_player(n)
        step = 0
        while is_open(game):
            seat = game.turn
            if step % 7 == 0 and len(moves(game, seat)) > 1:
                out.append(observe(game, seat, played))
            answer = choose(game.hands[seat], game.table, game.revolution)
            after = apply(game, seat, answer)
            if answer is not None:
                played |= game.hands[seat] & ~after.hands[seat]
            game = after
            step += 1
    return out[:count]


def uecda_game(seed: int, players: str = "stock") -> list[InfoSet]:
    """Every decision (its information set) of one seeded UECda game of five players."""
    rng = random.Random(seed)
    match = u.UecdaMatch(UECDA)
    deal = u.deal_game(match, rng)
    game, exchanges = u.start_game(deal, UECDA)
    given, paid = exchange_seen(
        5, ((x.giver, x.receiver, x.cards) for x in exchanges), deal.exchange_ranks
    )
    strategies = [resolve(players, seed * 5 + p, BOOK_UECDA) for p in range(5)]
    played = 0
    out: list[InfoSet] = []
    while game.phase == u.TURN:
        p = game.turn
        info = observe(game, p, played, given[p], paid[p])
        out.append(info)
        answer = strategies[p](view_uecda(game, p, info))
        game, done = u.submit(game, p, u.analyze(0, 0) if answer is None else answer)
        if done.accepted:
            played |= done.move.cards
    return out


def decisions_uecda(count: int, seed: int) -> list[InfoSet]:
    out: list[InfoSet] = []
    n = 0
    while len(out) < count:
        n += 1
        out.extend(
            i
            for k, i in enumerate(uecda_game(seed * 1000 + n, "greedy"))
            if k % 7 == 0 and len(candidates(i)) > 1
        )
    return out[:count]


def playouts_per_second(infos: list[InfoSet], deals: int) -> tuple[float, float, int]:
    """Playouts a wall second and a CPU second of this process, and how many."""
    start, cpu = time.perf_counter(), time.process_time()
    total = 0
    for i, info in enumerate(infos):
        total += sum(c.playouts for c in evaluate(info, deals, seed=i))
    return total / (time.perf_counter() - start), total / (time.process_time() - cpu), total


def _analyse_one(info: InfoSet, playouts: int, seed: int) -> tuple[int, float]:
    """One decision's playouts (``playouts`` shared by its candidates), and the CPU time."""
    cpu = time.process_time()
    n = len(candidates(info))
    found = evaluate(info, math.ceil(playouts / n), seed)
    return sum(c.playouts for c in found), time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--positions", type=int, default=20)
    parser.add_argument("--deals", type=int, default=20)
    parser.add_argument("--playouts", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    for name, make in ((DAIHINMIN_2011_NAME, decisions_2011), (UECDA_NAME, decisions_uecda)):
        infos = make(args.positions, args.seed)
        rate, cpu_rate, total = playouts_per_second(infos, args.deals)
        elapsed, _, turns = engine_bench.run_profile(name, 200, 0)
        print(
            f"{name}: {rate:,.0f} playouts/s on one core, {cpu_rate:,.0f} a CPU second"
            f" ({total} playouts over"
            f" {len(infos)} decisions); the engine alone: {200 / elapsed:,.0f} games/s,"
            f" {turns / elapsed:,.0f} turns/s (bench/engine.py's random players)"
        )

    infos = uecda_game(args.seed)
    busy = [(k, i) for k, i in enumerate(infos) if len(candidates(i)) > 1]
    start = time.perf_counter()
    with ProcessPoolExecutor(args.workers) as pool:
        done = [pool.submit(_analyse_one, i, args.playouts, k) for k, i in busy]
        results = [f.result() for f in done]
    elapsed = time.perf_counter() - start
    total = sum(n for n, _ in results)
    cpu = sum(c for _, c in results)
    print(
        f"a 5-player UECda game (seed {args.seed}, 5 × stock): {len(infos)} decisions,"
        f" {len(busy)} with a choice, {args.playouts} playouts a decision"
        f" ({total} in all) on {args.workers} processes: {elapsed:.1f} s wall,"
        f" {cpu:.1f} CPU seconds ({cpu / args.workers:.1f} s on {args.workers} idle cores)"
    )


if __name__ == "__main__":
    main()
