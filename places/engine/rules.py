"""Rule profiles: which rules a place, a match or a record is played by.

Two profiles exist. ``daihinmin-2011`` is the platform's own rule book (RULES.md),
refereed by :mod:`.game` and :mod:`.place` exactly as before profiles existed.
``uecda`` is the UEC computer-Daihinmin contest as its reference server tndhms
plays it with its default settings (UECDA.md §6), refereed by :mod:`.uecda`.

Each UECda rule is a named switch of :class:`Rules`, so that a test can turn one
off and see that exactly that rule goes away; the ``uecda`` profile has every
switch at tndhms's default. The 2011 profile turns them all off: its rules are
not switches of the UECda game but the 2011 engine itself, unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

DAIHINMIN_2011_NAME = "daihinmin-2011"
UECDA_NAME = "uecda"

#: How a trick ends when players pass (UECDA.md §6 "Passing").
#: ``"tndhms"``: when the passers in the trick number at least 4 − (players out),
#: one pass short of "everyone" when the last player to play has just gone out.
#: ``"everyone"``: when every other player still holding cards has passed (the manual).
TRICK_END_TNDHMS = "tndhms"
TRICK_END_EVERYONE = "everyone"


class UnknownRules(ValueError):
    """A rules profile name that is not one of :data:`PROFILES`."""


@dataclass(frozen=True, slots=True)
class Rules:
    """A rules profile: its name and the switches of the UECda game.

    The switches only matter to the UECda game (:mod:`.uecda`); the 2011
    engine reads none of them.
    """

    name: str
    #: 縛り: a play with the same suits as the play before locks the trick to those suits.
    lock: bool = False
    #: ♠3 played on a lone joker is accepted whatever the lock and clears the trick.
    spade3_return: bool = False
    #: Stairs of five or more cards are a revolution, as groups of four or more are.
    stair_revolution: bool = False
    #: Stairs that span an 8 (the joker standing for it included) cut the trick.
    eight_cut_in_stairs: bool = False
    #: A joker inside a group or a stair counts as the card of the cell it is put in:
    #: its suit for the lock, its number for the 8-cut. Off: it counts for neither.
    joker_stands_in: bool = False
    #: The daifugo and the fugo give cards of their choice (tndhms takes their
    #: strongest when the choice is not a subset of the hand of the right size).
    #: Off: they give their weakest, automatically.
    exchange_by_choice: bool = False
    #: The 53 cards are dealt one at a time from the daifugo's seat (from a random
    #: player's seat in the first game of a rank period). Off: from a random seat.
    deal_from_daifugo: bool = False
    #: The seats are drawn anew in games 1, 1 + n, 1 + 2n, …; 0: seats never change.
    seat_shuffle_period: int = 0
    #: Ranks are forgotten (no exchange, deal from a random seat) in games 1, 1 + n, …;
    #: 0: only in game 1.
    rank_period: int = 0
    #: After this many passes or rejected submissions in a row, the players still in
    #: get random ranks and the game ends; 0: never.
    pass_draw: int = 0
    #: :data:`TRICK_END_TNDHMS` or :data:`TRICK_END_EVERYONE`.
    trick_end: str = TRICK_END_EVERYONE
    #: The points of a game's last rank (each rank above scores one more): 0 in 2011,
    #: 1 in tndhms (its 5/4/3/2/1).
    last_points: int = 0

    def points_for(self, rank: int, players: int) -> int:
        """A game's points for ``rank`` (1 best) among ``players``."""
        return players - rank + self.last_points

    def but(self, **changes: object) -> Rules:
        """The same profile with some switches changed (tests turn rules off one by one)."""
        return replace(self, **changes)


DAIHINMIN_2011 = Rules(DAIHINMIN_2011_NAME)

UECDA = Rules(
    UECDA_NAME,
    lock=True,
    spade3_return=True,
    stair_revolution=True,
    eight_cut_in_stairs=True,
    joker_stands_in=True,
    exchange_by_choice=True,
    deal_from_daifugo=True,
    seat_shuffle_period=5,
    rank_period=100,
    pass_draw=20,
    trick_end=TRICK_END_TNDHMS,
    last_points=1,
)

PROFILES: dict[str, Rules] = {DAIHINMIN_2011_NAME: DAIHINMIN_2011, UECDA_NAME: UECDA}
DEFAULT = DAIHINMIN_2011


def rules_named(name: str) -> Rules:
    """The profile of a name, or :class:`UnknownRules` naming the known ones."""
    try:
        return PROFILES[name]
    except KeyError:
        known = ", ".join(PROFILES)
        raise UnknownRules(f"unknown rules {name[:40]!r}: known rules are {known}") from None
