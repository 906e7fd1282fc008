"""What a UECda client saw of a game over the wire, as its information set.

The arena hands ``montecarlo`` its seat's :class:`~daifugo.infoset.InfoSet`
from the game itself; over tndhms's protocol a client has only the tables. They are
enough: every table's row 6 holds the hand counts and the seats, every field table
says who submitted and what lies on the field, so a submission that lowered its
player's count was a play (its cards seen) and one that did not was a pass. The
exchange shows the rest: a rich player knows the cards it gave back, a poor one the
tribute that left its delivered hand before its first turn.

:class:`SeenGame` keeps that record from the tables a client reads, and makes the
information set the engine's :func:`~daifugo.infoset.observe` would make of the
real game (the tribute's bar aside: a rich player cannot tell which of its cards were
paid). Where the tables disagree with the record (a server that is not tndhms, a
joker written over a card), :meth:`SeenGame.info` gives None and the caller guesses.
"""

from __future__ import annotations

from collections.abc import Sequence

from daifugo import uecda as u
from daifugo import uecda_wire as w
from daifugo.infoset import InfoSet
from daifugo.rules import Rules

_MOVER, _EMPTY, _BACK, _REVOLUTION, _LOCK = (w.FLAGS + i for i in (3, 4, 5, 6, 7))
_COUNTS, _RANKS, _SEATS = (w.ROW_6 + i for i in (0, 5, 10))


def counts_of(table: Sequence[int]) -> list[int]:
    """Row 6's cards held by players 0–4."""
    return list(table[_COUNTS : _COUNTS + u.PLAYERS])


def ranks_of(table: Sequence[int]) -> list[int]:
    """Row 6's ranks of players 0–4 before this game (0 daifugo … 4 daihinmin); all 0 in a
    rank period's first game: the last game's ranks, as a hand-delivery table gives them."""
    return list(table[_RANKS : _RANKS + u.PLAYERS])


class SeenGame:
    """One game as ``player`` saw it: fed every table it reads, in order. ``stage`` is
    the play to beat as the tables show it (the client's view reads it)."""

    def __init__(self, player: int, rules: Rules, delivered: Sequence[int]):
        self.player = player
        self.rules = rules
        self.delivered = w.cards_of_table(delivered)
        ranks = ranks_of(delivered)  # all 0: no exchange
        self.poor = ranks[player] > 2
        #: The player across the exchange (the daihinmin for the daifugo …), if any.
        across = 4 - ranks[player]
        self.partner = ranks.index(across) if any(ranks) and across != ranks[player] else None
        self.next_of, self.prev_of = u.play_order(delivered[_SEATS : _SEATS + u.PLAYERS])
        self.known = [0] * u.PLAYERS  # cards known to be in another's hand
        self.counts = counts_of(delivered)
        self.played = 0
        self.stage: u.Move | None = None
        self.backwards = False  # the 6-reverse, which no table tells: kept from the plays
        self.passed = 0
        self.passes_in_row = 0
        self.last_player = -1
        self.ranks = [0] * u.PLAYERS
        self.out = 0
        self.submissions = 0
        self.first_turn = True

    def gave(self, cards: int) -> None:
        """The cards this (rich) player gave back: the partner holds them."""
        if self.partner is not None:
            self.known[self.partner] |= cards

    def turn(self, table: Sequence[int]) -> None:
        """A turn table: the first shows what a poor player paid; an empty field a clear."""
        if self.first_turn:
            self.first_turn = False
            hand = w.cards_of_table(table)
            if self.partner is not None and self.poor:
                self.known[self.partner] |= self.delivered & ~hand  # the tribute
        self.counts = counts_of(table)
        if table[_EMPTY]:
            self.stage = None
            self.passed = 0
            self.last_player = table[_MOVER]

    def field(self, table: Sequence[int]) -> None:
        """A field table: the submission it reports, a play if its player's count fell."""
        mover = table[_MOVER]
        counts = counts_of(table)
        self.submissions += 1
        self.stage = None if table[_EMPTY] else w.move_of_table(table)
        if counts[mover] < self.counts[mover] and self.stage is not None:
            move = self.stage
            self.played |= move.cards
            self.last_player = mover
            self.passes_in_row = 0
            if move.kind != u.JOKER_SINGLE and u.turns_order(self.rules, move):
                self.backwards = not self.backwards
            if not counts[mover]:
                self.out += 1
                self.ranks[mover] = self.out
        else:
            self.passed |= 1 << mover
            self.passes_in_row += 1
        self.counts = counts

    def info(self, turn_table: Sequence[int]) -> InfoSet | None:
        """The player's information set on its turn (``turn_table``, its own), or None
        when the record does not add up to the counts the table gives."""
        hand = w.cards_of_table(turn_table)
        counts = counts_of(turn_table)
        unseen = u.DECK_MASK & ~hand & ~self.played
        known = [c & unseen for c in self.known]
        others = sum(counts) - counts[self.player]
        if (
            hand.bit_count() != counts[self.player]
            or unseen.bit_count() != others
            or any(k.bit_count() > n for k, n in zip(known, counts, strict=True))
        ):
            return None
        g = u.opening(self.rules, (0,) * u.PLAYERS, self.next_of, self.prev_of, self.player)
        g.stage = self.stage
        g.revolution = bool(turn_table[_REVOLUTION])
        g.back = bool(turn_table[_BACK])
        g.backwards = self.backwards
        g.locked = bool(turn_table[_LOCK])
        g.joker_single = self.stage is not None and self.stage.kind == u.JOKER_SINGLE
        g.passed = self.passed
        g.passes_in_row = self.passes_in_row
        g.last_player = self.last_player
        g.ranks = tuple(self.ranks)
        g.out = self.out
        g.turn_no = self.submissions
        known[self.player] = 0
        return InfoSet(self.player, hand, g, tuple(counts), unseen, tuple(known))
