"""What one seat knows of a game, and hands dealt consistently with it.

An :class:`InfoSet` is a seat's view of a game in play: its own hand, the public
position (table, order, lock, passes, who is out, whose turn: every hidden hand
blanked), how many cards each seat holds, the cards no longer in play, the
cards it knows to be in another seat's hand (those it gave in the exchange and
has not seen played since), and the cards it knows another seat cannot hold (a
UECda tribute is the giver's strongest cards: it held none stronger). The
evaluator (:mod:`.evaluate`) takes nothing else, so it cannot read a hand the seat
could not see: two positions that differ only in the unseen cards make the same
information set.

:func:`deal_hidden` deals the unseen cards at random, consistently with it: each
seat gets its known cards and as many more as it holds. The deal is uniform
among the deals that respect those hard constraints; what a seat's passes and
plays suggest about its hand (soft evidence) is not weighed.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from . import uecda as u
from .cards import DECK_MASK, ids_of
from .game import GameState
from .uecda import UecdaGame

Position = GameState | UecdaGame


class InconsistentInfo(ValueError):
    """Known cards or hand counts that no deal of the unseen cards satisfies."""


@dataclass(frozen=True, slots=True)
class InfoSet:
    """A seat's view of a game: nothing in it depends on a hand the seat cannot see."""

    seat: int
    hand: int  # the seat's own cards
    position: Position  # the public position: every hand blanked (0)
    counts: tuple[int, ...]  # cards each seat holds
    unseen: int  # cards neither in the seat's hand nor seen played
    known: tuple[int, ...]  # per seat, cards known to be in its hand (the seat's own: 0)
    barred: tuple[int, ...] = ()  # per seat, unseen cards it cannot hold (empty: none)

    @property
    def uecda(self) -> bool:
        return isinstance(self.position, UecdaGame)


def deck_of(position: Position) -> int:
    """Every card of the profile's deck: 54 cards in 2011, 53 in UECda."""
    return u.DECK_MASK if isinstance(position, UecdaGame) else DECK_MASK


def blanked(position: Position) -> Position:
    """The position with every hand blanked: what is public of it but the counts."""
    hands = (0,) * len(position.hands)
    if isinstance(position, UecdaGame):
        public = position.copy()
        public.hands = hands
        return public
    return position.replace(hands=hands)


def observe(
    position: Position,
    seat: int,
    played: int,
    given: Sequence[tuple[int, int]] = (),
    paid: Sequence[tuple[int, int]] = (),
) -> InfoSet:
    """The information set of ``seat`` in ``position``.

    ``played`` is the mask of every card the seat saw played this game (the public
    record); ``given`` the seat's own exchange: ``(receiver, cards)`` for each set
    of cards it gave; ``paid`` the UECda tribute it received: ``(giver, cards)``,
    the giver's strongest cards (:func:`.uecda.tribute`). Only the seat's own hand
    and the hand counts are read from ``position``'s hands.
    """
    hand = position.hands[seat]
    unseen = deck_of(position) & ~hand & ~played
    known = [0] * len(position.hands)
    for receiver, cards in given:
        if receiver != seat:
            known[receiver] |= cards & unseen
    barred = [0] * len(position.hands)
    for giver, cards in paid:
        if giver != seat:
            barred[giver] |= u.stronger_than(cards) & unseen & ~known[giver]
    return InfoSet(
        seat=seat,
        hand=hand,
        position=blanked(position),
        counts=tuple(h.bit_count() for h in position.hands),
        unseen=unseen,
        known=tuple(known),
        barred=tuple(barred) if any(barred) else (),
    )


def exchange_seen(
    players: int, moves: Iterable[tuple[int, int, int]], ranks: Sequence[int] | None = None
) -> tuple[list[list[tuple[int, int]]], list[list[tuple[int, int]]]]:
    """What each seat saw of an exchange, for :func:`observe`: per seat, the cards it
    gave (``given``) and the tribute it received (``paid``). ``moves`` are
    ``(giver, receiver, cards)``; ``ranks`` the ranks the exchange followed (1
    best), None to leave the tribute out: a poorer giver pays a UECda tribute."""
    given: list[list[tuple[int, int]]] = [[] for _ in range(players)]
    paid: list[list[tuple[int, int]]] = [[] for _ in range(players)]
    for giver, receiver, cards in moves:
        given[giver].append((receiver, cards))
        if ranks is not None and ranks[giver] > ranks[receiver]:
            paid[receiver].append((giver, cards))
    return given, paid


def deal_hidden(info: InfoSet, rng: random.Random) -> tuple[int, ...]:
    """Every seat's hand: the seat's own, and the unseen cards dealt at random to the
    others, each with its known cards and none of its barred ones. Unseen cards left
    over (a 2011 hand thrown away by a miss) are out of play.

    A seat with barred cards is dealt first, the first of the shuffled cards it may
    hold: its hand is uniform among those it could hold, and so is the rest."""
    hands = list(info.known)
    hands[info.seat] = info.hand
    free = info.unseen
    for s, k in enumerate(info.known):
        if s != info.seat:
            free &= ~k
    pool = list(ids_of(free))
    rng.shuffle(pool)
    barred = info.barred or (0,) * len(info.counts)
    order = sorted(range(len(info.counts)), key=lambda s: not barred[s])  # stable
    for s in order:
        if s == info.seat:
            continue
        n = info.counts[s]
        need = n - hands[s].bit_count()
        if barred[s]:
            picked = [cid for cid in pool if not barred[s] >> cid & 1][: max(need, 0)]
        else:
            picked = pool[: max(need, 0)]
        if need < 0 or len(picked) < need:
            raise InconsistentInfo(f"seat {s} holds {n} cards: the unseen cards cannot make it")
        for cid in picked:
            hands[s] |= 1 << cid
        taken = set(picked)
        pool = [cid for cid in pool if cid not in taken] if barred[s] else pool[need:]
    return tuple(hands)


def with_hands(info: InfoSet, hands: tuple[int, ...]) -> Position:
    """The public position with these hands: a determinization to play out."""
    position = info.position
    if isinstance(position, UecdaGame):
        full = position.copy()
        full.hands = hands
        return full
    return position.replace(hands=hands)
