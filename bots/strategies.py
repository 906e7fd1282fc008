"""Sample players. A strategy maps what the bot sees to a play (a card mask) or a pass (None).

- ``random``: a random legal play, or a pass.
- ``greedy``: the weakest legal play, keeping jokers and 2s for later.
- ``shedder``: plays to empty its hand in few tricks (see its docstring).

One function, three places: a strategy runs unchanged in the arena
(``python -m bots.arena``), over the wire (``python -m bots --strategy``) and, for the
sample names, as a house bot the server plays itself. :func:`resolve` names them.

The same three play the ``uecda`` rules (``UECDA_STRATEGIES``, :func:`resolve_uecda`):
there a strategy sees a :class:`UecdaView`, whose ``moves`` are every move tndhms
accepts now (the lock respected), and answers one of them or None (a pass). Before
a game the rich give back their weakest cards, unless the strategy has a ``give``
attribute ``give(hand, n) -> mask`` that says otherwise.
"""

from __future__ import annotations

import importlib
import os
import random as _random
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from places.engine import uecda as u
from places.engine.cards import INDEX_MASK, JOKER_MASK
from places.engine.legal import legal_plays
from places.engine.plays import Kind, Play

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


STRATEGIES: dict[str, Callable[[int | None], Strategy]] = {
    "random": random_player,
    "greedy": greedy_player,
    "shedder": shedder_player,
}


def resolve(spec: str, seed: int | None = None) -> Strategy:
    """The strategy a spec names: a sample name (made from its factory with ``seed``),
    or ``module:function`` naming a strategy function importable from the current
    directory (put on the path, as ``python -m`` does, for the installed commands too).

    Raises ``ValueError`` with a reason a command line can show.
    """
    if spec in STRATEGIES:
        return STRATEGIES[spec](seed)
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
    revolution: bool
    locked: bool  # the trick is locked to the suits of ``stage``
    moves: Sequence[u.Move]  # every move accepted now; a pass is always allowed


UecdaStrategy = Callable[[UecdaView], "u.Move | None"]

#: Column of the 2s and of the 3s in tndhms's table: the strongest number in force.
_COLUMN_2, _COLUMN_3 = 13, 1


def _uecda_strength(m: u.Move, revolution: bool) -> int:
    """Stronger is higher: the column (reversed in a revolution); a lone joker above all."""
    if m.kind == u.JOKER_SINGLE:
        return 100
    high = m.low + m.size - 1 if m.kind == u.STAIR else m.low
    return 14 - high if revolution else m.low


def _uecda_precious(m: u.Move, revolution: bool) -> bool:
    """A move that spends the joker or the strongest number in force."""
    top = _COLUMN_3 if revolution else _COLUMN_2
    columns = m.size if m.kind == u.STAIR else 1
    return bool(m.twos or m.kind == u.JOKER_SINGLE or m.low <= top < m.low + columns)


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
        cheap = [m for m in view.moves if not _uecda_precious(m, view.revolution)]
        if not cheap and view.stage is not None and view.hand.bit_count() > 3:
            return None
        return min(
            cheap or view.moves, key=lambda m: (_uecda_strength(m, view.revolution), -m.size)
        )

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
        cheap = [m for m in view.moves if not _uecda_precious(m, view.revolution)]
        if not cheap:
            if view.stage is not None and view.hand.bit_count() > 4:
                return None
            cheap = list(view.moves)
        return min(cheap, key=lambda m: (-m.size, _uecda_strength(m, view.revolution)))

    return choose


UECDA_STRATEGIES: dict[str, Callable[[int | None], UecdaStrategy]] = {
    "random": uecda_random_player,
    "greedy": uecda_greedy_player,
    "shedder": uecda_shedder_player,
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
    return resolve(spec, seed)
