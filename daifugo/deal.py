"""Dealing, the exchange between ranks, and who starts (RULES.md "Dealing and
seats", "Who starts", "Exchange")."""

from __future__ import annotations

import random
import secrets
from collections.abc import Sequence
from dataclasses import dataclass

from .cards import ALL_IDS, HEART_3, INDEX, JOKER_STRENGTH, sorted_ids


def game_rng(seed: str | None, game_no: int) -> random.Random:
    """The random source of one game's deal.

    With a seed, a generator seeded from the seed and the game number, so that
    the same seed always gives the same deals; without, the OS's sound source.
    """
    if seed is None or seed == "":
        return secrets.SystemRandom()
    return random.Random(f"daihinmin:{seed}:{game_no}")


def drawn_ranks(seed: str, game_no: int, players: int = 5) -> tuple[int, ...]:
    """The ranks a duplicate game's exchange uses instead of the game before's.

    Drawn from the seed and the game number alone, so every rotation of a seed
    exchanges the same way between the same seats and so deals the same hands.
    """
    ranks = list(range(1, players + 1))
    random.Random(f"daihinmin-ranks:{seed}:{game_no}").shuffle(ranks)
    return tuple(ranks)


def deal(rng: random.Random, players: int = 5) -> tuple[int, ...]:
    """Shuffle the 54 cards and deal them all; who gets the short hands is random."""
    deck = list(ALL_IDS)
    rng.shuffle(deck)
    base, extra = divmod(len(deck), players)
    # ``extra`` seats get one card more; with 5 players one seat gets 10, four get 11
    short = set(rng.sample(range(players), players - extra)) if extra else set()
    hands = []
    pos = 0
    for seat in range(players):
        size = base if seat in short else base + 1
        hands.append(sum(1 << c for c in deck[pos : pos + size]))
        pos += size
    return tuple(hands)


def _exchange_strength(cid: int) -> tuple[int, int]:
    """Normal order, the joker strongest; among equals, the lower mark first."""
    return (JOKER_STRENGTH if cid >= 53 else INDEX[cid], 0 if cid >= 53 else (cid - 1) // 13)


def weakest(hand: int, n: int) -> list[int]:
    """The ``n`` weakest cards, lower mark first among equals."""
    return sorted(sorted_ids(hand), key=_exchange_strength)[:n]


def strongest(hand: int, n: int) -> list[int]:
    """The ``n`` strongest cards, lower mark first among equals."""
    return sorted(sorted_ids(hand), key=lambda c: (-_exchange_strength(c)[0], c))[:n]


@dataclass(frozen=True, slots=True)
class Exchange:
    """Cards that moved from one seat to another before the game."""

    giver: int
    receiver: int
    cards: tuple[int, ...]


def exchange(
    hands: Sequence[int], last_ranks: Sequence[int]
) -> tuple[tuple[int, ...], list[Exchange]]:
    """The automatic exchange of game 2 and later.

    Rank 1 and the last rank swap 2 cards, rank 2 and the second-to-last swap 1.
    All cards are chosen from the dealt hands before anyone receives anything.
    """
    players = len(hands)
    seat_of = {r: s for s, r in enumerate(last_ranks)}
    pairs = [(1, players, 2)]
    if players >= 4:
        pairs.append((2, players - 1, 1))
    moves: list[Exchange] = []
    for better, worse, n in pairs:
        rich, poor = seat_of[better], seat_of[worse]
        moves.append(Exchange(rich, poor, tuple(weakest(hands[rich], n))))
        moves.append(Exchange(poor, rich, tuple(strongest(hands[poor], n))))
    new = list(hands)
    for m in moves:
        mask = sum(1 << c for c in m.cards)
        new[m.giver] &= ~mask
        new[m.receiver] |= mask
    return tuple(new), moves


def first_player(hands: Sequence[int], last_ranks: Sequence[int] | None) -> int:
    """Game 1: who holds the heart 3. Later: the last rank of the previous game."""
    if not last_ranks:
        return next(s for s, h in enumerate(hands) if h >> HEART_3 & 1)
    return list(last_ranks).index(len(hands))
