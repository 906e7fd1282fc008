"""Sample players. A strategy maps what the bot sees to a play (a card mask) or a pass (None).

- ``random``: a random legal play, or a pass.
- ``greedy``: the weakest legal play, keeping jokers and 2s for later.
- ``shedder``: plays to empty its hand in few tricks (see its docstring).
- ``montecarlo``: plays each legal move out on deals of the unseen cards and picks the
  one of most points on average (``daifugo.evaluate``). ``montecarlo@500``
  spends 500 playouts a decision, ``montecarlo@100ms`` 100 ms (not repeatable);
  the default is :data:`MONTECARLO_PLAYOUTS` playouts. It sees what a caller
  gives it: an :class:`~daifugo.infoset.InfoSet` where the caller keeps one
  (the arena, a UECda match's house seats, the UECda client), else only its hand and
  the table, from which it guesses the rest.

One function, three places: a strategy runs unchanged in the arena
(``python -m bots.arena``), over the wire (``python -m bots --strategy``) and, for the
sample names, as a house bot the server plays itself. :func:`resolve` names them.

The same play the ``uecda`` rules (``UECDA_STRATEGIES``, :func:`resolve_uecda`), with
``stock`` besides (the stock C client's choices, ``uecda`` only):
there a strategy sees a :class:`UecdaView`, whose ``moves`` are every move tndhms
accepts now (the lock respected), and answers one of them or None (a pass). Before
a game the rich give back their weakest cards, unless the strategy has a ``give``
attribute ``give(hand, n) -> mask`` that says otherwise.
"""

from __future__ import annotations

import importlib
import math
import os
import random as _random
import re
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from daifugo import evaluate as ev
from daifugo import game as g
from daifugo import uecda as u
from daifugo.cards import DECK_MASK, INDEX_MASK, JOKER_MASK
from daifugo.infoset import InfoSet
from daifugo.legal import legal_plays
from daifugo.numbers import whole
from daifugo.plays import Kind, Play
from daifugo.rules import UECDA
from daifugo.uecda_stock import in_combination, precious, stock_move, strength

Strategy = Callable[[int, "Play | None", bool], "int | None"]

TWOS = INDEX_MASK[12]


def _no_legal_action(hand: int) -> int:
    """Nothing is legal (say, only a joker left to lead): any play is a miss."""
    return hand


def random_player(seed: int | None = None) -> Strategy:
    rng = _random.Random(seed)

    def choose(hand: int, table: Play | None, revolution: bool) -> int | None:
        options = legal_plays(hand, table, revolution)
        n = len(options) + (table is not None)
        if n == 0:
            return _no_legal_action(hand)
        i = rng.randrange(n)
        return None if i == len(options) else options[i].mask

    return choose


def _precious(play: Play) -> bool:
    return bool(play.mask & (JOKER_MASK | TWOS))


def _strongest(revolution: bool) -> int:
    """Cards no hand may finish on: the jokers and the strongest number in force."""
    return JOKER_MASK | (INDEX_MASK[0] if revolution else TWOS)


def _not_stuck(hand: int, plays: list[Play], revolution: bool) -> list[Play]:
    """The plays that do not leave only cards the hand may not finish on (else all of them)."""
    stuck = _strongest(revolution)
    ok = [p for p in plays if not (rest := hand & ~p.mask) or rest & ~stuck]
    return ok or plays


def greedy_player(seed: int | None = None) -> Strategy:
    def choose(hand: int, table: Play | None, revolution: bool) -> int | None:
        options = legal_plays(hand, table, revolution)
        if not options:
            return None if table is not None else _no_legal_action(hand)
        options = _not_stuck(hand, options, revolution)
        cheap = [p for p in options if not _precious(p)]
        if cheap:
            options = cheap
        elif table is not None and hand.bit_count() > 3:
            return None  # keep jokers and 2s for the end
        best = min(options, key=lambda p: (p.strength, -p.size))
        return best.mask

    return choose


def shedder_player(seed: int | None = None) -> Strategy:
    """Sheds many cards per play and breaks few combinations.

    Leading, it plays the combination that empties the most cards among the
    weaker half of its hand (stairs and groups before singles). Following, it
    prefers plays that do not break a pair or stair it holds, cuts with an 8
    when that wins the lead for a strong follow-up, and spends jokers and 2s
    only when few cards remain. It never leaves itself a forbidden finish when
    it can avoid it: a lone joker or 2 is played before the last card.
    """

    def structure_cost(hand: int, play: Play, revolution: bool) -> int:
        """How many of the remaining hand's plays of two or more cards this play destroys."""
        before = _multi_count(hand, revolution)
        after = _multi_count(hand & ~play.mask, revolution)
        return before - after

    def choose(hand: int, table: Play | None, revolution: bool) -> int | None:
        options = legal_plays(hand, table, revolution)
        if not options:
            return None if table is not None else _no_legal_action(hand)
        n = hand.bit_count()
        finishing = [p for p in options if p.mask == hand]
        if finishing:
            return finishing[0].mask
        options = _not_stuck(hand, options, revolution)
        strongest = _strongest(revolution)
        if table is None:
            # two cards left with a precious one: lead the precious one now
            if n == 2 and hand & strongest:
                lone = [p for p in options if p.size == 1 and p.mask & strongest]
                if lone:
                    return lone[0].mask
            cheap = [p for p in options if not p.mask & strongest] or options
            return min(
                cheap,
                key=lambda p: (
                    p.strength - 2 * p.size - (3 if p.kind == Kind.STAIR else 0),
                    structure_cost(hand, p, revolution),
                ),
            ).mask
        cheap = [p for p in options if not p.mask & strongest]
        if not cheap:
            if n > 4:
                return None
            cheap = options
        return min(
            cheap,
            key=lambda p: (structure_cost(hand, p, revolution), p.strength, -p.size),
        ).mask

    return choose


def _multi_count(hand: int, revolution: bool) -> int:
    return sum(
        1 for p in legal_plays(hand, None, revolution) if p.size >= 2 and not p.mask & JOKER_MASK
    )


#: The montecarlo strategy's budget by default: playouts a decision, shared by its moves.
MONTECARLO_PLAYOUTS = 300
#: The most playouts a budget names (beyond, a decision would never end).
PLAYOUTS_MAX = 10**9
#: A budget's milliseconds: ASCII digits, perhaps with a fraction.
_MS = re.compile(r"[0-9]{1,9}(?:\.[0-9]{1,9})?", re.ASCII)
#: Each move of a decision is played out at least this many times.
MONTECARLO_MIN_DEALS = 4


@dataclass(frozen=True, slots=True)
class Budget:
    """What a montecarlo decision may spend: playouts (repeatable) or milliseconds."""

    playouts: int = MONTECARLO_PLAYOUTS
    ms: float | None = None

    @classmethod
    def parse(cls, text: str) -> Budget:
        """``500`` (playouts) or ``100ms``; ValueError with a reason otherwise."""
        if text.endswith("ms"):
            ms = _MS.fullmatch(text[:-2])
            if ms is not None and float(ms[0]) > 0:
                return cls(ms=float(ms[0]))
        else:
            playouts = whole(text, PLAYOUTS_MAX, 1)
            if playouts is not None:
                return cls(playouts=playouts)
        raise ValueError(f"montecarlo@{text[:20]}: a budget is playouts (500) or time (100ms)")


#: A decision of more candidates than this leaves out those that spend the joker in a
#: group or a stair, but for a finish: most of a big lead's candidates, seldom its best.
MONTECARLO_WIDE = 12


def _joker_in_combination(move: ev.Move, hand: int) -> bool:
    """The move spends the joker in a group or stair, and does not empty the hand."""
    if move is None:
        return False
    if isinstance(move, u.Move):
        return bool(move.twos) and move.kind in (u.GROUP, u.STAIR) and move.cards != hand
    return bool(move & JOKER_MASK) and move.bit_count() > 1 and move != hand


def plausible(moves: Sequence[ev.Move], hand: int) -> list[ev.Move]:
    """The candidates worth a bot's playouts: all of them, unless there are more than
    :data:`MONTECARLO_WIDE`; then those that keep the joker out of a combination."""
    if len(moves) <= MONTECARLO_WIDE:
        return list(moves)
    return [m for m in moves if not _joker_in_combination(m, hand)]


#: A move of the playouts differs from the policy's own only when it is worth more by
#: this many standard errors of the difference: few playouts do not overrule it on noise.
MONTECARLO_DEVIATE_Z = 1.0


#: ``decide_by_playouts`` without a policy's move to fall back on.
NO_DEFAULT: Any = object()


def decide_by_playouts(
    info: InfoSet, budget: Budget, seed: int, default: ev.Move = NO_DEFAULT
) -> ev.Move:
    """The move of most expected points in the information set, within the budget,
    among the :func:`plausible` ones; ``default`` (None: a pass), the move the playout
    policy would make, unless another is clearly better (:data:`MONTECARLO_DEVIATE_Z`)."""
    moves = plausible(ev.candidates(info), info.hand)
    if default is not NO_DEFAULT and default not in moves:
        moves.append(default)
    if len(moves) == 1:
        return moves[0]
    if budget.ms is not None:
        deadline = time.perf_counter() + budget.ms / 1000
        found = ev.evaluate(info, 1_000_000, seed, deadline=deadline, race=True, among=moves)
    else:
        deals = max(MONTECARLO_MIN_DEALS, budget.playouts // len(moves))
        found = ev.evaluate(info, deals, seed, among=moves)
    chosen = ev.best(found)
    if default is NO_DEFAULT or chosen.move == default:
        return chosen.move
    fallback = next(c for c in found if c.move == default)
    if fallback.playouts < chosen.playouts:  # the race left it behind
        return chosen.move
    margin = MONTECARLO_DEVIATE_Z * math.hypot(chosen.points_se, fallback.points_se)
    return chosen.move if chosen.points - fallback.points > margin else default


def _seat_counts(unseen: int, own: int, players: int = 5) -> list[int]:
    """A guess of the others' hand counts when nobody said them: as many as the seat
    holds, as far as the unseen cards go."""
    each = min(max(own, 1), unseen.bit_count() // (players - 1))
    return [own] + [each] * (players - 1)


def guessed_2011(hand: int, table: Play | None, revolution: bool) -> InfoSet:
    """An information set from a 2011 turn's view alone (hand, table, order): seat 0,
    the others' counts guessed, every card not seen still in play."""
    unseen = DECK_MASK & ~hand & ~(table.mask if table else 0)
    counts = _seat_counts(unseen, hand.bit_count())
    position = g.GameState(
        game_no=1,
        hands=(0,) * len(counts),
        phase=g.TURN_OPEN,
        turn=0,
        table=table,
        revolution=revolution,
        last_player=-1 if table is None else 4,
    )
    return _with_counts(position, hand, unseen, counts)


def _with_counts(position, hand: int, unseen: int, counts: list[int]) -> InfoSet:
    """Seat 0's information set in a position of blank hands where the others hold
    ``counts`` of the ``unseen`` cards."""
    return InfoSet(0, hand, position, tuple(counts), unseen, (0,) * len(counts))


def montecarlo_player(seed: int | None = None, budget: Budget | None = None) -> Strategy:
    """Determinized Monte Carlo (see the module's docstring); ``info``, when the caller
    passes it, is the seat's :class:`~daifugo.infoset.InfoSet`."""
    rng = _random.Random(seed)
    spend = budget or Budget()

    def choose(
        hand: int, table: Play | None, revolution: bool, info: InfoSet | None = None
    ) -> int | None:
        if info is None:
            info = guessed_2011(hand, table, revolution)
        return decide_by_playouts(info, spend, rng.getrandbits(32))

    choose.wants_info = True  # type: ignore[attr-defined]
    return choose


STRATEGIES: dict[str, Callable[[int | None], Strategy]] = {
    "random": random_player,
    "greedy": greedy_player,
    "shedder": shedder_player,
    "montecarlo": montecarlo_player,
}


def _montecarlo_spec(spec: str) -> Budget | None:
    """The budget of a ``montecarlo@…`` spec, None for any other spec."""
    name, at, budget = spec.partition("@")
    return Budget.parse(budget) if name == "montecarlo" and at else None


def resolve(spec: str, seed: int | None = None) -> Strategy:
    """The strategy a spec names: a sample name (made from its factory with ``seed``),
    or ``module:function`` naming a strategy function importable from the current
    directory (put on the path, as ``python -m`` does, for the installed commands too).

    Raises ``ValueError`` with a reason a command line can show.
    """
    if spec in STRATEGIES:
        return STRATEGIES[spec](seed)
    budget = _montecarlo_spec(spec)
    if budget is not None:
        return montecarlo_player(seed, budget)
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        names = ", ".join(sorted(STRATEGIES))
        raise ValueError(f"{spec!r}: a sample strategy ({names}) or module:function")
    here = os.getcwd()
    if here not in sys.path:  # a console script's path starts at its own directory
        sys.path.insert(0, here)
    try:
        module = importlib.import_module(module_name)
    except ImportError as e:
        raise ValueError(f"{spec!r}: cannot import {module_name!r} ({e})") from None
    function = getattr(module, attr, None)
    if not callable(function):
        raise ValueError(f"{spec!r}: {module_name} has no function {attr!r}")
    return function


# -- the uecda rules -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class UecdaView:
    """What a player sees on its turn of a UECda game."""

    hand: int  # card mask (the joker at bit 53)
    stage: u.Move | None  # the play to beat; None: the player leads
    revolution: bool  # lower beats higher now: a revolution, or an 11-back reversing it
    locked: bool  # the trick is locked to the suits of ``stage``
    moves: Sequence[u.Move]  # every move accepted now; a pass is always allowed
    #: The player's information set, where the caller keeps one (the arena, the UECda
    #: client: :mod:`bots.uecda_seen`); else None.
    info: InfoSet | None = None


UecdaStrategy = Callable[[UecdaView], "u.Move | None"]


def uecda_random_player(seed: int | None = None) -> UecdaStrategy:
    rng = _random.Random(seed)

    def choose(view: UecdaView) -> u.Move | None:
        n = len(view.moves) + (view.stage is not None)
        if n == 0:
            return None
        i = rng.randrange(n)
        return None if i == len(view.moves) else view.moves[i]

    return choose


def uecda_greedy_player(seed: int | None = None) -> UecdaStrategy:
    """The weakest move, most cards first among equals, keeping the joker and the
    strongest number for the end (as ``greedy``)."""

    def choose(view: UecdaView) -> u.Move | None:
        if not view.moves:
            return None
        cheap = [m for m in view.moves if not precious(m, view.revolution)]
        if not cheap and view.stage is not None and view.hand.bit_count() > 3:
            return None
        return min(cheap or view.moves, key=lambda m: (strength(m, view.revolution), -m.size))

    return choose


def uecda_shedder_player(seed: int | None = None) -> UecdaStrategy:
    """Most cards a move first (stairs and groups before singles), then the weakest;
    spends the joker and the strongest number only with few cards left (as ``shedder``)."""

    def choose(view: UecdaView) -> u.Move | None:
        if not view.moves:
            return None
        finishing = [m for m in view.moves if m.cards == view.hand]
        if finishing:
            return finishing[0]
        cheap = [m for m in view.moves if not precious(m, view.revolution)]
        if not cheap:
            if view.stage is not None and view.hand.bit_count() > 4:
                return None
            cheap = list(view.moves)
        return min(cheap, key=lambda m: (-m.size, strength(m, view.revolution)))

    return choose


def uecda_stock_player(seed: int | None = None) -> UecdaStrategy:
    """The stock C client's choices (``daifugo.uecda_stock.stock_move``); it gives
    back its weakest cards."""

    def choose(view: UecdaView) -> u.Move | None:
        return stock_move(view.hand, view.stage, view.moves, view.revolution)

    return choose


def guessed_uecda(view: UecdaView) -> InfoSet:
    """An information set from a UECda turn's view alone: player 0, seats in order,
    the others' counts guessed, every card not seen still in play."""
    hand = view.hand
    unseen = u.DECK_MASK & ~hand & ~(view.stage.cards if view.stage else 0)
    counts = _seat_counts(unseen, hand.bit_count())
    position = u.opening(UECDA, (0,) * len(counts), *u.play_order(range(len(counts))), 0)
    position.stage = view.stage
    position.revolution = view.revolution  # an 11-back's reversal included: a guess for the trick
    position.locked = view.locked
    position.joker_single = view.stage is not None and view.stage.kind == u.JOKER_SINGLE
    position.last_player = 0 if view.stage is None else 4
    return _with_counts(position, hand, unseen, counts)


#: The strongest column a rich player gives back while it has a loose card: the 10s.
LOOSE_GIVE_TOP = 8


def give_loose(hand: int, n: int) -> int:
    """The ``n`` cards a rich player gives back, keeping its hand's shape: its weakest
    cards up to the 10s that are in no pair or stair and are no 8 (which cuts a
    trick), weakest first; then its weakest cards."""
    out = 0
    for cid in reversed(u.STRONG_ORDER):
        if n == 0:
            return out
        col = u.column_of(cid)
        if col > LOOSE_GIVE_TOP:
            break
        if hand >> cid & 1 and col != u.EIGHT_COLUMN and not in_combination(hand, cid):
            out |= 1 << cid
            n -= 1
    return out | u.weakest(hand & ~out, n)


def uecda_montecarlo_player(seed: int | None = None, budget: Budget | None = None) -> UecdaStrategy:
    """Determinized Monte Carlo on the uecda rules (as ``montecarlo``); in the exchange
    it gives back its loose weak cards (:func:`give_loose`)."""
    rng = _random.Random(seed)
    spend = budget or Budget()

    def choose(view: UecdaView) -> u.Move | None:
        info = view.info or guessed_uecda(view)
        default = stock_move(view.hand, view.stage, view.moves, view.revolution)
        return decide_by_playouts(info, spend, rng.getrandbits(32), default)

    choose.give = give_loose  # type: ignore[attr-defined]
    return choose


UECDA_STRATEGIES: dict[str, Callable[[int | None], UecdaStrategy]] = {
    "random": uecda_random_player,
    "greedy": uecda_greedy_player,
    "shedder": uecda_shedder_player,
    "stock": uecda_stock_player,
    "montecarlo": uecda_montecarlo_player,
}


def uecda_give(strategy: UecdaStrategy, hand: int, n: int) -> int:
    """The ``n`` cards a rich player gives back: its strategy's ``give``, else its weakest."""
    give = getattr(strategy, "give", None)
    return give(hand, n) if give is not None else u.weakest(hand, n)


def resolve_uecda(spec: str, seed: int | None = None) -> UecdaStrategy:
    """The UECda strategy a spec names: a sample name, or ``module:function`` (as
    :func:`resolve`, the function taking a :class:`UecdaView`)."""
    if spec in UECDA_STRATEGIES:
        return UECDA_STRATEGIES[spec](seed)
    budget = _montecarlo_spec(spec)
    if budget is not None:
        return uecda_montecarlo_player(seed, budget)
    return resolve(spec, seed)
