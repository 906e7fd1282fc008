"""The stock C client's choices (daifugo/uecda_stock.py), on hand-made positions."""

from __future__ import annotations

from daifugo import uecda as u
from daifugo.uecda_legal import follows, leads, single
from daifugo.uecda_stock import in_combination, stock_move

SPADE, HEART, DIAMOND, CLUB = range(4)


def card(row: int, col: int) -> int:
    """A real card's mask: row 0 ♠ … 3 ♣, column 1 the 3s … 13 the 2s."""
    return 1 << u.card_of(row, col)


def test_leading_its_longest_stair_then_its_largest_group_then_its_weakest_single() -> None:
    stair = card(SPADE, 5) | card(SPADE, 6) | card(SPADE, 7)
    triple = card(SPADE, 2) | card(HEART, 2) | card(DIAMOND, 2)
    singles = card(CLUB, 4) | card(HEART, 11)
    hand = stair | triple | singles | u.JOKER_BIT
    chosen = stock_move(hand, None, leads(hand), False)
    assert chosen.kind == u.STAIR and chosen.cards == stair  # real cards before the joker
    no_stair = triple | singles
    assert stock_move(no_stair, None, leads(no_stair), False).cards == triple
    assert stock_move(singles, None, leads(singles), False).cards == card(CLUB, 4)
    assert stock_move(singles, None, leads(singles), True).cards == card(HEART, 11)  # reversed
    # only the joker's combinations: the longest of them
    pair_with_joker = card(CLUB, 9) | u.JOKER_BIT
    chosen = stock_move(pair_with_joker, None, leads(pair_with_joker), False)
    assert chosen.kind == u.GROUP and chosen.twos


def test_following_a_single_it_breaks_no_pair_or_stair_then_spends_the_joker() -> None:
    stage = single(u.card_of(SPADE, 4))
    pair = card(SPADE, 8) | card(HEART, 8)
    loose_king = card(DIAMOND, 11)
    hand = pair | loose_king | u.JOKER_BIT
    assert in_combination(hand, u.card_of(SPADE, 8))
    assert not in_combination(hand, u.card_of(DIAMOND, 11))
    chosen = stock_move(hand, stage, follows(hand, stage, False), False)
    assert chosen.cards == loose_king  # not an 8 of its pair
    chosen = stock_move(pair | u.JOKER_BIT, stage, follows(pair | u.JOKER_BIT, stage, False), False)
    assert chosen.kind == u.JOKER_SINGLE
    assert stock_move(pair, stage, follows(pair, stage, False), False) is None  # a pass


def test_following_a_group_the_weakest_that_beats_it_real_cards_first() -> None:
    stage = next(m for m in leads(card(SPADE, 3) | card(HEART, 3)) if m.kind == u.GROUP)
    fives = card(CLUB, 5) | card(DIAMOND, 5)
    nines = card(SPADE, 9) | card(HEART, 9)
    hand = fives | nines | u.JOKER_BIT
    assert stock_move(hand, stage, follows(hand, stage, False), False).cards == fives
    assert stock_move(hand, stage, follows(hand, stage, True), True) is None  # none beats it
    lone = card(CLUB, 10) | u.JOKER_BIT
    chosen = stock_move(lone, stage, follows(lone, stage, False), False)
    assert chosen.twos and chosen.cards == lone  # only with the joker
