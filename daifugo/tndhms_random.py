"""tndhms's random draws, made again from the seed its log gives (``RANDOM_SEED``).

tndhms (with ``RAND_TYPE MT``, its default) seeds Matsumoto and Nishimura's
MT19937 with ``init_genrand(time(NULL))`` and draws reals in [0, 1] with
``genrand_real1``. Every random thing of a match comes from that one stream,
in this order (UECDA.md §6): per game, the seats (in games 1, 6, 11, …), the
player the deal starts from (in a rank period's first game), the 53 cards;
then, in a game ended by the 20-pass draw, the ranks of the players still in.
So a log's seed tells every seating, deal and draw of its match, and the log
referee checks them (:mod:`.uecda_log`). These are facts of the algorithm,
written from its published description, not tndhms's code.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from .uecda import JOKER, card_of

_N = 624
_REAL1 = 1.0 / 4294967295.0  # genrand_real1: an int32 divided by 2**32 - 1


class TndhmsRandom:
    """The stream of a tndhms match: MT19937 seeded by ``init_genrand(seed)``."""

    def __init__(self, seed: int):
        mt = [seed & 0xFFFFFFFF]
        for i in range(1, _N):
            prev = mt[-1]
            mt.append((1812433253 * (prev ^ (prev >> 30)) + i) & 0xFFFFFFFF)
        # CPython's generator is the same MT19937: given this state it draws what
        # genrand_int32 draws (its own seeding, init_by_array, is not used)
        self._mt = random.Random()
        self._mt.setstate((3, (*mt, _N), None))

    def real1(self) -> float:
        return self._mt.getrandbits(32) * _REAL1

    def seats(self, players: int = 5) -> tuple[int, ...]:
        """``tn_sekigae``: a real per player (drawn again while equal to an earlier
        one); the seats in ascending order of the reals."""
        drawn: list[float] = []
        for _ in range(players):
            value = self.real1()
            while value in drawn:
                value = self.real1()
            drawn.append(value)
        return tuple(sorted(range(players), key=drawn.__getitem__))

    def first_dealer(self, players: int = 5) -> int:
        """The player the deal starts from in a rank period's first game."""
        return int(self.real1() * players)

    def deal(self, seats: Sequence[int], start_player: int) -> tuple[int, ...]:
        """``shuffle_card``: card after card, the ``k``-th of the cards left (``k`` drawn),
        to the seats in turn from ``start_player``'s; card indexes 0–51 are the
        rows ♠ ♥ ♦ ♣ by column, 52 the joker. Hands as card masks, by player."""
        players = len(seats)
        start = list(seats).index(start_player)
        left = list(range(53))
        hands = [0] * players
        for i in range(53):
            index = left.pop(int(self.real1() * (53 - i)))
            cid = JOKER if index == 52 else card_of(index // 13, index % 13 + 1)
            hands[seats[(start + i) % players]] |= 1 << cid
        return tuple(hands)

    def draw(self, still_in: Sequence[int]) -> list[int]:
        """The 20-pass draw: the players still in (by number, ascending), best rank
        first, as tndhms picks them; the last one left takes the last rank."""
        left = sorted(still_in)
        order = []
        while len(left) > 1:
            order.append(left.pop(int(self.real1() * len(left) + 1) - 1))
        return order + left
