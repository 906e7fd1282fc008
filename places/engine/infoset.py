"""What one seat knows of a game, and hands dealt consistently with it.

An :class:`InfoSet` is a seat's view of a game in play: its own hand, the public
position (table, order, lock, passes, who is out, whose turn: every hidden hand
blanked), how many cards each seat holds, the cards no longer in play, and the
cards it knows to be in another seat's hand (those it gave in the exchange and
has not seen played since). The evaluator (:mod:`.evaluate`) takes nothing else,
so it cannot read a hand the seat could not see: two positions that differ only
in the unseen cards make the same information set.

:func:`deal_hidden` deals the unseen cards at random, consistently with it: each
seat gets its known cards and as many more as it holds. The deal is uniform
among the deals that respect those hard constraints; what a seat's passes and
plays suggest about its hand (soft evidence) is not weighed.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
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
    position: Position, seat: int, played: int, given: Sequence[tuple[int, int]] = ()
) -> InfoSet:
    """The information set of ``seat`` in ``position``.

    ``played`` is the mask of every card the seat saw played this game (the public
    record); ``given`` the seat's own exchange: ``(receiver, cards)`` for each set
    of cards it gave. Only the seat's own hand and the hand counts are read from
    ``position``'s hands.
    """
    hand = position.hands[seat]
    unseen = deck_of(position) & ~hand & ~played
    known = [0] * len(position.hands)
    for receiver, cards in given:
        if receiver != seat:
            known[receiver] |= cards & unseen
    return InfoSet(
        seat=seat,
        hand=hand,
        position=blanked(position),
        counts=tuple(h.bit_count() for h in position.hands),
        unseen=unseen,
        known=tuple(known),
    )


def deal_hidden(info: InfoSet, rng: random.Random) -> tuple[int, ...]:
    """Every seat's hand: the seat's own, and the unseen cards dealt at random to the
    others, each with its known cards. Unseen cards left over (a 2011 hand thrown
    away by a miss) are out of play."""
    hands = list(info.known)
    hands[info.seat] = info.hand
    free = info.unseen
    for s, k in enumerate(info.known):
        if s != info.seat:
            free &= ~k
    pool = list(ids_of(free))
    rng.shuffle(pool)
    at = 0
    for s, n in enumerate(info.counts):
        if s == info.seat:
            continue
        need = n - hands[s].bit_count()
        if need < 0 or at + need > len(pool):
            raise InconsistentInfo(f"seat {s} holds {n} cards: the unseen cards cannot make it")
        for cid in pool[at : at + need]:
            hands[s] |= 1 << cid
        at += need
    return tuple(hands)


def with_hands(info: InfoSet, hands: tuple[int, ...]) -> Position:
    """The public position with these hands: a determinization to play out."""
    position = info.position
    if isinstance(position, UecdaGame):
        full = position.copy()
        full.hands = hands
        return full
    return position.replace(hands=hands)
