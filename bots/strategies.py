"""Sample players, written once for every rule book. A strategy is a function of one
:class:`~daifugo.view.View` (its hand, the table, the order in force, every legal move
and, where the caller keeps one, its information set) that answers one of
``view.moves``, or None for a pass.

- ``random``: a random legal move, or a pass.
- ``greedy``: the weakest legal move, keeping jokers and 2s for later.
- ``shedder``: plays to empty its hand in few tricks (see its docstring).
- ``stock``: the stock C client's choices (UECda's moves only).
- ``montecarlo``: plays each legal move out on deals of the unseen cards and picks the
  one of most points on average (``daifugo.evaluate``). ``montecarlo@500``
  spends 500 playouts a decision, ``montecarlo@100ms`` 100 ms of the CPU time of its
  thread, and at least :data:`MONTECARLO_FLOOR_DEALS` deals (not repeatable);
  the default is :data:`MONTECARLO_PLAYOUTS` playouts. It sees what a caller
  gives it: an :class:`~daifugo.infoset.InfoSet` where the caller keeps one
  (the arena, a UECda match's house seats, the UECda client), else only its hand and
  the table, from which it guesses the rest.

One function, three places, two books: a strategy runs unchanged in the arena
(``python -m bots.arena``), over either wire (``python -m bots --strategy``) and, for
the sample names, as a house bot the server plays itself. :func:`resolve` names them.
Before a UECda game the rich give back their weakest cards, unless the strategy has a
``give`` attribute ``give(hand, n) -> mask`` that says otherwise (:func:`give`).
"""

from __future__ import annotations

import importlib
import inspect
import math
import os
import random as _random
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from daifugo import evaluate as ev
from daifugo import uecda as u
from daifugo.cards import JOKER_MASK
from daifugo.infoset import InfoSet
from daifugo.numbers import whole
from daifugo.rules import UECDA_NAME
from daifugo.uecda_stock import in_combination, stock_move
from daifugo.view import BOOK_2011, NO_POLICY, Book, View

#: A strategy: what a player answers on its turn (a move of ``view.moves``, or None: a pass).
Strategy = Callable[[View], Any]


def random_player(seed: int | None = None) -> Strategy:
    """A random legal move, or a pass when the player follows."""
    rng = _random.Random(seed)

    def choose(view: View) -> Any:
        n = len(view.moves) + (view.table is not None)
        if n == 0:
            return None
        i = rng.randrange(n)
        return None if i == len(view.moves) else view.moves[i]

    return choose


def _not_stuck(view: View, moves: Sequence[Any]) -> list[Any]:
    """The moves that do not leave only cards the hand may not finish on (else all of them)."""
    stuck = view.strongest
    ok = [m for m in moves if not (rest := view.hand & ~view.cards(m)) or rest & ~stuck]
    return ok or list(moves)


def greedy_player(seed: int | None = None) -> Strategy:
    """The weakest move, most cards first among equals, keeping the jokers and 2s for
    later."""

    def choose(view: View) -> Any:
        options = view.moves
        if not options:
            return None
        options = _not_stuck(view, options)
        precious = view.book.jokers | view.book.twos
        cheap = [m for m in options if not view.cards(m) & precious]
        if cheap:
            options = cheap
        elif view.table is not None and view.hand.bit_count() > 3:
            return None  # keep jokers and 2s for the end
        return min(options, key=lambda m: (view.strength(m), -m.size))

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

    def structure_cost(view: View, move: Any) -> int:
        """How many of the remaining hand's plays of two or more cards this play destroys."""
        return _multi_count(view, view.hand) - _multi_count(view, view.hand & ~view.cards(move))

    def choose(view: View) -> Any:
        options = view.moves
        if not options:
            return None
        hand = view.hand
        n = hand.bit_count()
        finishing = [m for m in options if view.cards(m) == hand]
        if finishing:
            return finishing[0]
        options = _not_stuck(view, options)
        strongest = view.strongest
        if view.table is None:
            # two cards left with a precious one: lead the precious one now
            if n == 2 and hand & strongest:
                lone = [m for m in options if m.size == 1 and view.cards(m) & strongest]
                if lone:
                    return lone[0]
            cheap = [m for m in options if not view.cards(m) & strongest] or options
            return min(
                cheap,
                key=lambda m: (
                    view.strength(m) - 2 * m.size - (3 if view.is_stair(m) else 0),
                    structure_cost(view, m),
                ),
            )
        cheap = [m for m in options if not view.cards(m) & strongest]
        if not cheap:
            if n > 4:
                return None
            cheap = options
        return min(cheap, key=lambda m: (structure_cost(view, m), view.strength(m), -m.size))

    return choose


def _multi_count(view: View, hand: int) -> int:
    jokers = view.book.jokers
    return sum(1 for m in view.leads(hand) if m.size >= 2 and not view.cards(m) & jokers)


def stock_player(seed: int | None = None) -> Strategy:
    """The stock C client's choices (``daifugo.uecda_stock.stock_move``), UECda's moves
    only; it gives back its weakest cards."""

    def choose(view: View) -> Any:
        return stock_move(view.hand, view.table, view.moves, view.revolution)

    return choose


#: The montecarlo strategy's budget by default: playouts a decision, shared by its moves.
MONTECARLO_PLAYOUTS = 300
#: The most playouts a budget names (beyond, a decision would never end).
PLAYOUTS_MAX = 10**9
#: A budget's milliseconds: ASCII digits, perhaps with a fraction.
_MS = re.compile(r"[0-9]{1,9}(?:\.[0-9]{1,9})?", re.ASCII)
#: Each move of a decision is played out at least this many times.
MONTECARLO_MIN_DEALS = 4
#: A time budget's decision plays out at least this many deals, however long they take:
#: a slow or busy machine makes the bot slower, not weaker.
MONTECARLO_FLOOR_DEALS = 16


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


def decide_by_playouts(
    info: InfoSet, budget: Budget, seed: int, default: ev.Move = NO_POLICY
) -> ev.Move:
    """The move of most expected points in the information set, within the budget,
    among the :func:`plausible` ones; ``default`` (None: a pass), the move the playout
    policy would make, unless another is clearly better (:data:`MONTECARLO_DEVIATE_Z`)."""
    moves = plausible(ev.candidates(info), info.hand)
    if default is not NO_POLICY and default not in moves:
        moves.append(default)
    if len(moves) == 1:
        return moves[0]
    if budget.ms is not None:
        deadline = ev.Deadline.after(budget.ms / 1000, MONTECARLO_FLOOR_DEALS)
        found = ev.evaluate(info, 1_000_000, seed, deadline=deadline, race=True, among=moves)
    else:
        paths = len(ev.paths_of(info, moves))  # an 8-cut: one a follow-up
        deals = max(MONTECARLO_MIN_DEALS, budget.playouts // paths)
        found = ev.evaluate(info, deals, seed, among=moves)
    chosen = ev.best(found)
    if default is NO_POLICY or chosen.move == default:
        return chosen.move
    fallback = next(c for c in found if c.move == default)
    if fallback.playouts < chosen.playouts:  # the race left it behind
        return chosen.move
    margin = MONTECARLO_DEVIATE_Z * math.hypot(chosen.points_se, fallback.points_se)
    return chosen.move if chosen.points - fallback.points > margin else default


#: The strongest column a rich UECda player gives back while it has a loose card: the 10s.
LOOSE_GIVE_TOP = 8


def give_loose(hand: int, n: int) -> int:
    """The ``n`` cards a rich UECda player gives back, keeping its hand's shape: its
    weakest cards up to the 10s that are in no pair or stair and are no 8 (which cuts a
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


def montecarlo_player(seed: int | None = None, budget: Budget | None = None) -> Strategy:
    """Determinized Monte Carlo (see the module's docstring) over the view's information
    set, or one guessed from the view. It keeps the book's playout policy's move (UECda:
    the stock client's) unless another is clearly better; in UECda's exchange it gives
    back its loose weak cards (:func:`give_loose`)."""
    rng = _random.Random(seed)
    spend = budget or Budget()

    def choose(view: View) -> Any:
        default = view.book.policy_move(view)
        return decide_by_playouts(view.info_set(), spend, rng.getrandbits(32), default)

    choose.wants_info = True  # type: ignore[attr-defined]
    choose.give = give_loose  # type: ignore[attr-defined]
    return choose


STRATEGIES: dict[str, Callable[[int | None], Strategy]] = {
    "random": random_player,
    "greedy": greedy_player,
    "shedder": shedder_player,
    "stock": stock_player,
    "montecarlo": montecarlo_player,
}
#: The samples whose moves exist under one book only, by name: the stock client's
#: choices are made of UECda's moves.
ONE_BOOK_ONLY: dict[str, str] = {"stock": UECDA_NAME}


def names_for(book: Book) -> tuple[str, ...]:
    """The sample strategies that play ``book``."""
    return tuple(n for n in STRATEGIES if ONE_BOOK_ONLY.get(n, book.name) == book.name)


def _montecarlo_spec(spec: str) -> Budget | None:
    """The budget of a ``montecarlo@…`` spec, None for any other spec."""
    name, at, budget = spec.partition("@")
    return Budget.parse(budget) if name == "montecarlo" and at else None


def _takes_the_2011_view(function: Callable) -> bool:
    """The function is written to the 2011 client's first interface,
    ``f(hand, table, revolution) -> card mask or None``."""
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return False
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    required = [p for p in parameters if p.kind in positional and p.default is p.empty]
    return len(required) == 3


def _of_the_2011_view(function: Callable) -> Strategy:
    """A strategy of the first interface, as one of a view."""

    def choose(view: View) -> Any:
        return function(view.hand, view.table, view.revolution)

    return choose


def resolve(spec: str, seed: int | None = None, book: Book = BOOK_2011) -> Strategy:
    """The strategy a spec names, to play ``book``: a sample name (made from its factory
    with ``seed``), or ``module:function`` naming a strategy function importable from the
    current directory (put on the path, as ``python -m`` does, for the installed commands
    too). A function of one view plays every book; one of the 2011 client's first
    interface, ``f(hand, table, revolution)``, the 2011 book only.

    Raises ``ValueError`` with a reason a command line can show.
    """
    name = spec.partition("@")[0]
    if ONE_BOOK_ONLY.get(name, book.name) != book.name:
        raise ValueError(f"{spec!r} plays the {ONE_BOOK_ONLY[name]} rules only")
    if spec in STRATEGIES:
        return STRATEGIES[spec](seed)
    budget = _montecarlo_spec(spec)
    if budget is not None:
        return montecarlo_player(seed, budget)
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        names = ", ".join(names_for(book))
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
    if not _takes_the_2011_view(function):
        return function
    if book is not BOOK_2011:
        raise ValueError(
            f"{spec!r} takes (hand, table, revolution), the 2011 client's first interface:"
            f" to play the {book.name} rules, take one view (bots.strategies, View)"
        )
    return _of_the_2011_view(function)


def give(strategy: Strategy, hand: int, n: int) -> int:
    """The ``n`` cards a rich UECda player gives back: its strategy's ``give``, else its
    weakest."""
    give_back = getattr(strategy, "give", None)
    return give_back(hand, n) if give_back is not None else u.weakest(hand, n)
