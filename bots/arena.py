"""The arena: five strategies play many games in this process, on the engine alone.

    python -m bots.arena --player mybot:play --player greedy --player shedder \\
        --player random --player random --games 1000 --seed 1

No server, no sockets: the rules engine (``daifugo``) deals and referees,
as the server does, so a strategy that does well here does as well over the wire
(``python -m bots --strategy mybot:play``) with the very same function. Games are
played in places (the exchange links a place's games); the seating turns round by
one seat from place to place, so that luck of the seat cancels out; the deals come
from ``--seed``, so a run is repeatable.

``--rules uecda`` plays the UECda rules instead (``daifugo.uecda``, tndhms's
defaults): the same strategies play it (one :class:`~daifugo.view.View` for both books),
``stock`` besides; a place is a tndhms match (its seats drawn anew every five games), and
points are 5 … 1.
"""

from __future__ import annotations

import argparse
import logging
import random
import secrets
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from bots.stats import Interval, mean_interval
from bots.strategies import STRATEGIES, Strategy, give, resolve
from daifugo import events as ev
from daifugo import place as pl
from daifugo import uecda as u
from daifugo.cards import mask_of
from daifugo.deal import game_rng
from daifugo.infoset import exchange_seen, observe
from daifugo.rules import DAIHINMIN_2011_NAME, UECDA, Rules, UnknownRules, rules_named
from daifugo.view import BOOK_2011, BOOK_UECDA, View, book_of, view_2011, view_uecda

logger = logging.getLogger(__name__)

PLAYERS = 5


@dataclass
class Entrant:
    """One of the five players of a run, and what it has done so far."""

    name: str
    spec: str
    points: list[int] = field(default_factory=list)  # per game, 4 for 大富豪 … 0
    ranks: list[int] = field(default_factory=lambda: [0] * PLAYERS)  # games at each rank
    seats: list[int] = field(default_factory=lambda: [0] * PLAYERS)  # places at each seat
    misses: int = 0
    #: The misses by reason (``daifugo.plays.Miss``: PASS_ON_LEAD, TIMEOUT, …).
    miss_reasons: Counter[str] = field(default_factory=Counter)
    failures: int = 0  # turns the strategy raised or answered no card mask (timed out)

    @property
    def games(self) -> int:
        return len(self.points)

    def interval(self) -> Interval:
        return mean_interval(self.points)


def entrant_names(specs: Sequence[str]) -> list[str]:
    """Each spec's name; a spec given again is another entrant: ``random``, ``random#2``."""
    seen: dict[str, int] = {}
    names = []
    for spec in specs:
        seen[spec] = seen.get(spec, 0) + 1
        names.append(spec if seen[spec] == 1 else f"{spec}#{seen[spec]}")
    return names


def _answer(strategy: Strategy, view: View) -> object:
    """What the strategy answers, as the view's referee takes it, or the error it made
    (an exception, or an answer that is no move: :meth:`~daifugo.view.Book.answer`)."""
    try:
        return view.book.answer(view, strategy(view))
    except Exception as e:  # a bot author's bug: reported, the run goes on
        return e


def play_place(
    strategies: Sequence[Strategy],
    games: int,
    deal_seed: str,
    on_game: Callable[[tuple[int, ...]], None],
    on_failure: Callable[[int, Exception], None],
) -> list[Counter[str]]:
    """Play one place; ``on_game(ranks by seat)`` after each game. Returns each seat's
    misses, by reason.

    A strategy that raises, or answers something that is not a card mask, lets its
    turn time out (a miss, as the server would see a bot that never answered).
    """
    state = pl.new_place(games, PLAYERS)
    misses: list[Counter[str]] = [Counter() for _ in range(PLAYERS)]
    rng_for_game = lambda no: game_rng(deal_seed, no)  # noqa: E731 - one line, used below
    played = 0  # the cards played this game: public
    given: list[list[tuple[int, int]]] = [[] for _ in range(PLAYERS)]
    while state.phase != pl.OVER:
        if not state.needs_action:
            state, events, deal = pl.step(state, rng_for_game)
            if deal is not None:
                played = 0
                given = [[] for _ in range(PLAYERS)]
                for x in deal.exchanges:
                    given[x.giver].append((x.receiver, mask_of(x.cards)))
            for e in events:
                if isinstance(e, ev.EndGame):
                    on_game(e.ranks)
            continue
        game = state.game
        seat = game.turn
        strategy = strategies[seat]
        info = observe(game, seat, played, given[seat]) if _wants_info(strategy) else None
        answer = _answer(strategy, view_2011(game.hands[seat], game.table, game.revolution, info))
        if isinstance(answer, Exception):
            on_failure(seat, answer)
            state, result, _ = pl.time_out(state, seat)
        elif answer is None:
            state, result, _ = pl.act(state, seat, ())
        else:
            state, result, _ = pl.play_mask(state, seat, answer)
        if result.outcome == "miss":
            misses[seat][result.reason] += 1
        elif result.outcome == "play":
            played |= mask_of(result.cards)
    return misses


def _wants_info(strategy: object) -> bool:
    """The strategy is to be given its seat's information set (``montecarlo``)."""
    return bool(getattr(strategy, "wants_info", False))


PASS_MOVE = u.analyze(0, 0)


#: A UECda submission tndhms refuses (answered 8, and a pass): the arena's miss reason for it.
REJECTED = "REJECTED"


def play_uecda_place(
    strategies: Sequence[Strategy],
    games: int,
    deal_seed: str,
    on_game: Callable[[tuple[int, ...]], None],
    on_failure: Callable[[int, Exception], None],
    rules: Rules = UECDA,
) -> list[Counter[str]]:
    """Play one tndhms match of ``games`` games by the uecda rules (or ``rules``, a variant
    of them); ``strategies`` and
    ``on_game(ranks)`` by player number. Returns each player's misses by reason: the
    submissions tndhms rejects (``REJECTED``, a pass there).

    A strategy that raises or answers no move passes (tndhms would wait for it);
    a 20-pass draw is settled by the match's generator, as tndhms does.
    """
    rng = random.Random(deal_seed)
    match = u.UecdaMatch(rules)
    rejected: list[Counter[str]] = [Counter() for _ in range(PLAYERS)]
    for _ in range(games):
        deal = u.deal_game(match, rng)
        choices: list[int | None] = [None, None]
        if deal.exchange_ranks is not None:
            paid, _ = u.tribute(deal.dealt, deal.exchange_ranks)
            for i, (rank, n) in enumerate(((1, 2), (2, 1))):
                rich = deal.exchange_ranks.index(rank)
                choices[i] = give(strategies[rich], paid[rich], n)
        g, exchanges = u.start_game(deal, rules, *choices)
        given, paid = exchange_seen(
            PLAYERS, ((x.giver, x.receiver, x.cards) for x in exchanges), deal.exchange_ranks
        )
        played = 0  # the cards played this game: public
        while g.phase == u.TURN:
            p = g.turn
            info = observe(g, p, played, given[p], paid[p])
            answer = _answer(strategies[p], view_uecda(g, p, info))
            if isinstance(answer, Exception):
                on_failure(p, answer)
                answer = None
            g, done = u.submit(g, p, PASS_MOVE if answer is None else answer)
            if answer is not None and not done.accepted:
                rejected[p][REJECTED] += 1
            elif done.accepted:
                played |= done.move.cards
        if g.phase == u.DRAW:
            g = u.settle_draw(g, u.draw_order(g, rng))
        match = u.finish_game(match, deal, g)
        on_game(g.ranks)
    return rejected


@dataclass
class Run:
    """A run of the arena: who plays, how many games, which seed, by which rules."""

    specs: Sequence[str]
    games: int
    seed: int
    games_per_place: int = 50
    rules: str = DAIHINMIN_2011_NAME

    def places(self) -> list[int]:
        """Games in each place: full places, then what is left."""
        full, rest = divmod(self.games, self.games_per_place)
        return [self.games_per_place] * full + ([rest] if rest else [])

    def play(self, progress: Callable[[int], None] = lambda done: None) -> list[Entrant]:
        """Play every place; ``progress(games done)`` after each game."""
        entrants = [
            Entrant(n, s) for n, s in zip(entrant_names(self.specs), self.specs, strict=True)
        ]
        done = 0
        rules = rules_named(self.rules)
        book = book_of(rules)
        uecda = book is BOOK_UECDA
        points_for = rules.points_for
        for no, games in enumerate(self.places()):
            # place ``no`` seats entrant i at seat (i + no) % 5: each seat in turn
            seated = [entrants[(seat - no) % PLAYERS] for seat in range(PLAYERS)]
            strategies = [
                resolve(e.spec, self.seed * 1_000_003 + no * PLAYERS + i, book)
                for i, e in enumerate(seated)
            ]
            for seat, e in enumerate(seated):
                e.seats[seat] += 1

            def on_game(ranks: tuple[int, ...], seated: list[Entrant] = seated) -> None:
                nonlocal done
                for seat, rank in enumerate(ranks):
                    seated[seat].points.append(points_for(rank, PLAYERS))
                    seated[seat].ranks[rank - 1] += 1
                done += 1
                progress(done)

            def on_failure(seat: int, error: Exception, seated: list[Entrant] = seated) -> None:
                e = seated[seat]
                if not e.failures:
                    logger.warning("%s failed (its turns time out): %r", e.name, error)
                e.failures += 1

            deal_seed = f"arena:{self.seed}:{no}"
            if uecda:
                misses = play_uecda_place(strategies, games, deal_seed, on_game, on_failure, rules)
            else:
                misses = play_place(strategies, games, deal_seed, on_game, on_failure)
            for seat, reasons in enumerate(misses):
                seated[seat].misses += reasons.total()
                seated[seat].miss_reasons += reasons
        return entrants


def standings(entrants: Sequence[Entrant], rules: str = DAIHINMIN_2011_NAME) -> str:
    """The table the arena prints: best points per game first."""
    ordered = sorted(entrants, key=lambda e: -e.interval().mean)
    width = max(len("player"), *(len(e.name) for e in ordered))
    lines = [
        f"{'#':>2}  {'player':<{width}}  {'points/game':>11}  {'95% interval':>13}  "
        f"{'1st':>5} {'2nd':>5} {'3rd':>5} {'4th':>5} {'5th':>5}  {'misses':>6}  {'games':>5}"
    ]
    for place, e in enumerate(ordered, 1):
        i = e.interval()
        lines.append(
            f"{place:>2}  {e.name:<{width}}  {i.mean:>11.3f}  {i.low:>6.3f}–{i.high:<6.3f}  "
            + " ".join(f"{n:>5}" for n in e.ranks)
            + f"  {e.misses:>6}  {e.games:>5}"
        )
        if e.misses:
            reasons = ", ".join(f"{r} {n}" for r, n in e.miss_reasons.most_common())
            lines.append(f"    {e.name} missed: {reasons}")
        if e.failures:
            lines.append(f"    {e.name} raised or answered no cards on {e.failures} turns")
    points = (
        f"5 for 1st … 1 for 5th (the {rules} rules), par 3.00"
        if rules_named(rules).name == UECDA.name
        else "4 for 大富豪 (1st) … 0 for 大貧民 (5th), par 2.00"
    )
    lines.append(
        f"points: {points}; 95% interval: "
        "mean ± 1.96·s/√n, the normal approximation (s the standard deviation, n games); "
        "misses by reason: docs/rules.md, section 9"
    )
    return "\n".join(lines)


class ProgressBar:
    """A one-line bar on a terminal (nothing when the stream is not one)."""

    def __init__(self, total: int, stream=sys.stderr, width: int = 30):
        self.total, self.stream, self.width = total, stream, width
        self.start = time.perf_counter()
        self.step = max(1, total // 200)

    def __call__(self, done: int) -> None:
        if done % self.step and done != self.total:
            return
        filled = self.width * done // self.total
        rate = done / max(time.perf_counter() - self.start, 1e-9)
        self.stream.write(
            f"\r[{'#' * filled}{' ' * (self.width - filled)}] {done}/{self.total} games,"
            f" {rate:,.0f}/s"
        )
        if done == self.total:
            self.stream.write("\n")
        self.stream.flush()


def _spec(text: str) -> str:
    """A spec one book resolves (``stock`` plays the uecda rules only; the rules are
    checked against each spec once parsed)."""
    for book in (BOOK_2011, BOOK_UECDA):
        try:
            resolve(text, 0, book)
        except ValueError as e:
            error = e
        else:
            return text
    raise argparse.ArgumentTypeError(str(error)) from None


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bots.arena",
        description="Five strategies play many games in this process, on the engine alone.",
    )
    parser.add_argument(
        "--player",
        action="append",
        type=_spec,
        required=True,
        metavar="NAME|MODULE:FUNCTION",
        help=f"five times: a sample strategy ({', '.join(sorted(STRATEGIES))}) or your function",
    )
    parser.add_argument("--games", type=int, default=1000, help="games in all (1000)")
    parser.add_argument(
        "--games-per-place",
        type=int,
        default=50,
        help="games a place plays, the exchange linking them (50, as on the server)",
    )
    parser.add_argument("--seed", type=int, default=None, help="the same seed, the same games")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument(
        "--rules",
        default=DAIHINMIN_2011_NAME,
        help="the rules played: daihinmin-2011 (%(default)s), uecda (tndhms's defaults, points "
        "5 … 1) or a variant of it (uecda+11back+6reverse, docs/rules.md)",
    )
    args = parser.parse_args(argv)
    try:
        book = book_of(rules_named(args.rules))
    except UnknownRules as e:
        parser.error(f"--rules {e}")
    for spec in args.player:
        try:
            resolve(spec, 0, book)
        except ValueError as e:
            parser.error(f"--player {e}")
    if len(args.player) != PLAYERS:
        parser.error(f"--player {PLAYERS} times (got {len(args.player)})")
    if args.games < 1 or args.games_per_place < 1:
        parser.error("--games and --games-per-place must be at least 1")
    seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    run = Run(args.player, args.games, seed, args.games_per_place, args.rules)
    show = not args.quiet and sys.stderr.isatty()
    start = time.perf_counter()
    entrants = run.play(ProgressBar(args.games) if show else lambda done: None)
    elapsed = time.perf_counter() - start
    places = run.places()
    print(
        f"{args.games} games in {len(places)} places of up to {args.games_per_place}, seed {seed}"
        f" (seats turn round place by place), {args.games / elapsed:,.0f} games/s"
    )
    print(standings(entrants, args.rules))
    if len(places) % PLAYERS:
        print(f"seats are even only over a multiple of {PLAYERS} places: these sat", end=" ")
        print("; ".join(f"{e.name} {e.seats}" for e in entrants))


if __name__ == "__main__":
    main()
