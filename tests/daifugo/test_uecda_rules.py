"""Each UECda rule on its own, on hand-made positions: with its switch as tndhms
has it, and with it turned off. Cards are written in the log's notation
(``S5`` the ♠5, ``KK`` the joker standing for the ♠K, ``Kx`` a lone joker)."""

from __future__ import annotations

import random

import pytest

from daifugo import uecda as u
from daifugo.rules import (
    DAIHINMIN_2011,
    PROFILES,
    TRICK_END_EVERYONE,
    UECDA,
    UnknownRules,
    rules_named,
)

SEATS = (0, 1, 2, 3, 4)


def position(
    hands: list[str],
    turn: int = 0,
    stage: str | None = None,
    rules=UECDA,
    last_player: int | None = None,
    **fields: object,
) -> u.UecdaGame:
    """A game at a hand-made position: ``hands`` of players 0–4 (``""`` for a player out)."""
    g = u.new_game(rules, (1 << u.DIAMOND_3, 0, 0, 0, 0), SEATS).copy()
    g.hands = tuple(u.parse_hand(h) for h in hands)
    g.turn = turn
    g.stage = None if stage is None else u.move_of_text(stage)
    g.last_player = (turn - 1) % 5 if last_player is None else last_player
    out = [p for p, h in enumerate(hands) if not h]
    g.ranks = tuple(out.index(p) + 1 if p in out else 0 for p in range(5))
    g.out = len(out)
    for name, value in fields.items():
        setattr(g, name, value)
    return g


def play(g: u.UecdaGame, text: str) -> tuple[u.UecdaGame, u.Outcome]:
    return u.submit(g, g.turn, u.move_of_text(text))


FULL = ["S9H9D9C9SK", "S4HQDQCQSJ", "S6HTDTCTSQ", "S7H7D7C7HK", "S5H5D5C5DK"]


# -- the profiles --


def test_the_profiles_are_named_and_the_2011_one_is_the_default():
    assert rules_named("uecda") is UECDA
    assert rules_named("daihinmin-2011") is DAIHINMIN_2011
    assert set(PROFILES) == {"daihinmin-2011", "uecda"}
    with pytest.raises(UnknownRules, match="known rules are daihinmin-2011, uecda"):
        rules_named("uecda-2026")


def test_the_uecda_profile_is_tndhms_defaults():
    assert UECDA.lock and UECDA.spade3_return and UECDA.stair_revolution
    assert UECDA.eight_cut_in_stairs and UECDA.joker_stands_in and UECDA.exchange_by_choice
    assert UECDA.deal_from_daifugo
    assert (UECDA.seat_shuffle_period, UECDA.rank_period, UECDA.pass_draw) == (5, 100, 20)
    assert UECDA.trick_end == "tndhms"


# -- reading tables as tndhms does --


def test_a_table_is_read_as_a_stair_along_the_row_of_its_lowest_cell():
    m = u.move_of_text("S5S6S7")
    assert (m.kind, m.low, m.size, m.suit, m.error) == (u.STAIR, 3, 3, 1, False)
    group = u.move_of_text("S5H5D5")
    assert (group.kind, group.low, group.size, group.suit) == (u.GROUP, 3, 3, 0b0111)
    assert u.move_of_text("S5S6").error  # a stair of two
    assert u.move_of_text("S5H6").error  # neither a stair nor a group
    assert u.move_of_text("S5S6H5").error  # a cell off the stair read


def test_the_joker_takes_the_place_of_a_card_in_groups_and_stairs():
    group = u.move_of_text("S5L5")  # ♠5 and the joker as the ♥5
    assert (group.kind, group.size, group.suit, group.error) == (u.GROUP, 2, 0b0011, False)
    assert group.cards == u.parse_hand("S5J3")
    stair = u.move_of_text("S5K6S7")
    assert (stair.kind, stair.low, stair.size, stair.error) == (u.STAIR, 3, 3, False)
    # the joker may stand below the 3 or above the 2, in a stair only
    below = u.move_of_text("KxS3S4")
    assert (below.kind, below.low, below.size, below.error) == (u.STAIR, 0, 3, False)
    above = u.move_of_text("SAS2Kx")
    assert (above.kind, above.low, above.size, above.error) == (u.STAIR, 12, 3, False)
    # a group of five: the four and the joker in row 4
    five = u.move_of_text("S9H9D9C9J9")
    assert (five.kind, five.size, five.suit, five.error) == (u.GROUP, 5, 31, False)
    # the joker alone in row 4 (its place in a hand) is no play; two jokers are an error
    assert u.move_of_text("J3").error
    assert u.move_of_text("KTLTDT").error


def test_a_lone_joker_may_stand_in_any_cell_of_rows_0_to_3():
    for text in ("Kx", "KK", "N8"):
        m = u.move_of_text(text)
        assert (m.kind, m.size, m.error) == (u.JOKER_SINGLE, 1, False)


# -- the lock (縛り) --


def test_a_play_of_the_suits_of_the_play_before_locks_the_trick():
    g = position(FULL, turn=1, stage="S5")
    g, out = play(g, "SJ")
    assert out.accepted and g.locked
    g, out = play(g, "HT")  # player 2: not a spade
    assert not out.accepted
    g, out = play(g, "HK")  # player 3: not a spade either
    assert not out.accepted
    g, out = play(g, "DK")  # player 4
    assert not out.accepted
    g, out = play(g, "SK")  # player 0: a spade
    assert out.accepted


def test_a_lock_of_groups_holds_their_suit_set():
    g = position(FULL, turn=2, stage="S5H5")
    g, out = play(g, "DTCT")
    assert out.accepted and not g.locked  # other suits: no lock
    g, out = play(g, "HKDK")  # not held: rejected
    assert not out.accepted
    g = position(FULL, turn=2, stage="D5C5")
    g, out = play(g, "DTCT")
    assert g.locked
    g, out = play(g, "H7D7")  # player 3: other suits under the lock
    assert not out.accepted
    g, out = play(g, "")  # player 4 passes
    g, out = play(g, "S9H9")  # player 0: stronger but not the locked suits
    assert not out.accepted
    assert g.turn == 1
    g, out = play(g, "DQCQ")  # player 1: the locked suits
    assert out.accepted


def test_without_the_lock_any_suits_follow():
    g = position(FULL, turn=1, stage="S5", rules=UECDA.but(lock=False))
    g, out = play(g, "SJ")
    assert out.accepted and not g.locked
    g, out = play(g, "SQ")  # player 2 holds the ♠Q
    assert out.accepted
    g, out = play(g, "HK")
    assert out.accepted


def test_the_jokers_cell_gives_its_suit_to_the_lock():
    hands = ["S7J3", "S4", "S6", "S3", "S5"]
    g, out = play(position(hands, turn=0, stage="S5H5"), "S7L7")  # joker as the ♥7
    assert out.accepted and g.locked
    rules = UECDA.but(joker_stands_in=False)
    g, out = play(position(hands, turn=0, stage="S5H5", rules=rules), "S7L7")
    assert out.accepted and not g.locked  # the real cards' suits only: ♠ against ♠♥


# -- the lone joker and the ♠3 return --


def test_spade_3_on_a_lone_joker_clears_the_trick_and_leads():
    hands = ["S9SK", "S4H4", "S3H6", "S7H7", "S5D5"]
    g = position(hands, turn=1, stage="SQ", last_player=0)
    g, out = play(g, "S4")  # player 1 cannot beat the ♠Q: rejected, a pass
    assert not out.accepted
    g = position(["S9SK", "S4J3", "S3H6", "S7H7", "S5D5"], turn=1, stage="SQ", last_player=0)
    g, out = play(g, "Kx")  # the lone joker beats any single
    assert out.accepted and g.joker_single and not g.locked
    g, out = play(g, "H6")  # player 2: nothing but the ♠3 may follow
    assert not out.accepted and g.turn == 3
    g, out = play(g, "")
    g, out = play(g, "")
    g, out = play(g, "")  # player 0 passes too
    assert g.turn == 1 and g.stage is None  # everyone passed: the joker's player leads


def test_spade_3_returns_a_lone_joker_even_under_a_lock():
    hands = ["S9SK", "S4J3", "S3H6", "S7H7", "S5D5"]
    g = position(hands, turn=1, stage="SQ", last_player=0, locked=True)
    g, out = play(g, "Kx")
    assert out.accepted and not g.locked
    g, out = play(g, "S3")
    assert out.accepted and out.spade3 and out.cleared
    assert g.stage is None and g.turn == 2  # the ♠3's player leads
    # the ♠3 only: the ♥3 is refused like any other single
    g = position(["S9SK", "S4J3", "H3H6", "S7H7", "S5D5"], turn=1, stage="SQ", last_player=0)
    g, _ = play(g, "Kx")
    g, out = play(g, "H3")
    assert not out.accepted


def test_without_the_spade_3_return_nothing_follows_a_lone_joker():
    rules = UECDA.but(spade3_return=False)
    g = position(
        ["S9SK", "S4J3", "S3H6", "S7H7", "S5D5"], turn=1, stage="SQ", last_player=0, rules=rules
    )
    g, _ = play(g, "Kx")
    g, out = play(g, "S3")
    assert not out.accepted and not out.spade3


def test_a_lone_joker_standing_for_an_8_cuts_nothing():
    g = position(["S9SK", "S4J3", "S3H6", "S7H7", "S5D5"], turn=1, stage="S5", last_player=0)
    g, out = play(g, "K8")
    assert out.accepted and not out.eight_cut and not out.cleared and g.joker_single


# -- revolutions --


def test_stairs_of_five_are_a_revolution():
    hands = ["S3S4S5S6S7H9", "HT", "DT", "CT", "ST"]
    g, out = play(position(hands, turn=0), "S3S4S5S6S7")
    assert out.revolution and g.revolution
    g, out = play(position(hands, turn=0, rules=UECDA.but(stair_revolution=False)), "S3S4S5S6S7")
    assert not out.revolution and not g.revolution
    g, out = play(position(hands, turn=0), "S3S4S5S6")  # four are not
    assert not g.revolution


def test_a_group_of_four_is_a_revolution_at_once_and_a_second_one_turns_it_back():
    hands = ["S9H9D9C9S3", "SJHJDJCJ", "S4", "S5", "S6"]
    g, out = play(position(hands, turn=0), "S9H9D9C9")
    assert g.revolution
    g, out = play(g, "SJHJDJCJ")  # under the revolution the jacks are weaker than the 9s
    assert not out.accepted
    g = position(["S9H9D9C9S3", "S4H4D4C4", "S8", "S5", "S6"], turn=0)
    g, _ = play(g, "S9H9D9C9")
    g, out = play(g, "S4H4D4C4")
    assert out.accepted and not g.revolution


def test_under_a_revolution_stairs_must_lie_wholly_below():
    g = position(["S3S4S5H9", "S6S7S8", "", "", ""], turn=0, stage="S9STSJ", revolution=True)
    g, out = play(g, "S3S4S5")
    assert out.accepted
    g = position(["S3S4S5H9", "S6S7S8", "", "", ""], turn=1, stage="S7S8S9", revolution=True)
    g, out = play(g, "S6S7S8")  # overlaps: refused
    assert not out.accepted


# -- the 8-cut --


def test_stairs_over_an_8_cut_the_trick():
    hands = ["S6S7S8H9", "HT", "DT", "CT", "ST"]
    g, out = play(position(hands, turn=0), "S6S7S8")
    assert out.eight_cut and out.cleared and g.turn == 0 and g.stage is None
    g, out = play(position(hands, turn=0, rules=UECDA.but(eight_cut_in_stairs=False)), "S6S7S8")
    assert not out.eight_cut and not out.cleared and g.turn == 1


def test_the_joker_standing_for_an_8_in_a_stair_cuts():
    hands = ["S7S9J3H9", "HT", "DT", "CT", "ST"]
    g, out = play(position(hands, turn=0), "S7K8S9")
    assert out.eight_cut
    g, out = play(position(hands, turn=0, rules=UECDA.but(joker_stands_in=False)), "S7K8S9")
    assert not out.eight_cut


def test_a_single_8_and_a_group_of_8s_cut():
    hands = ["S8H8D8H9", "HT", "DT", "CT", "ST"]
    g, out = play(position(hands, turn=0), "S8")
    assert out.eight_cut and g.turn == 0
    g, out = play(position(hands, turn=0), "H8D8")
    assert out.eight_cut and g.turn == 0


# -- the end of a trick, and the 20-pass draw --


def test_a_trick_ends_when_the_passers_number_four_less_the_players_out():
    # players 3 and 4 are out; player 0 plays its last card and goes out
    hands = ["S9", "H5H6", "D5D6", "", ""]
    g = position(hands, turn=0)
    g, out = play(g, "S9")
    assert out.rank == 3 and g.turn == 1
    g, out = play(g, "")  # one pass is enough: 4 − 3 players out
    assert out.cleared and g.stage is None
    assert g.turn == 1  # the player after the one who went out leads; player 2 never answered


def test_with_everyone_passing_the_last_player_answers_too():
    rules = UECDA.but(trick_end=TRICK_END_EVERYONE)
    g = position(["S9", "H5H6", "D5D6", "", ""], turn=0, rules=rules)
    g, _ = play(g, "S9")
    g, out = play(g, "")
    assert not out.cleared and g.turn == 2
    g, out = play(g, "")
    assert out.cleared and g.turn == 1


def test_a_rejected_submission_is_a_pass():
    g = position(FULL, turn=1, stage="S5")
    g, out = play(g, "S4")  # weaker: rejected
    assert not out.accepted and g.passed == 0b10 and g.hands[1] == u.parse_hand(FULL[1])
    assert g.passes_in_row == 1


def test_twenty_passes_in_a_row_end_the_game_in_a_draw():
    # as in the logs: three players in; players 0 and 1 only submit what tndhms
    # rejects (two jokers, a stair of two), and two passes end each trick
    hands = ["S5S6J3", "H9HT", "D4", "", ""]
    g = position(hands, turn=0, last_player=0)
    turns = []
    for _ in range(20):
        assert g.phase == u.TURN
        turns.append(g.turn)
        g, out = play(g, "KTLT" if g.turn == 0 else "H9HT")
        assert not out.accepted
    assert turns == [0, 1] * 10  # player 2 never gets a turn
    assert out.draw and g.phase == u.DRAW
    with pytest.raises(ValueError, match="ranks the players still in"):
        u.settle_draw(g, [0])
    order = u.draw_order(g, random.Random(7))
    assert sorted(order) == [0, 1, 2]
    g = u.settle_draw(g, order)
    assert g.phase == u.OVER and sorted(g.ranks) == [1, 2, 3, 4, 5]
    assert [g.ranks[p] for p in order] == [3, 4, 5]
    with pytest.raises(ValueError, match="not drawn"):
        u.settle_draw(g, order)  # an ended game cannot be drawn again


def test_without_the_draw_passes_go_on():
    g = position(
        ["S5S6J3", "H9HT", "", "", ""], turn=0, last_player=0, rules=UECDA.but(pass_draw=0)
    )
    for _ in range(60):
        g, out = play(g, "KTLT" if g.turn == 0 else "H9HT")
    assert g.phase == u.TURN


def test_an_accepted_play_starts_the_count_of_passes_again():
    g = position(FULL, turn=1, stage="S5", passes_in_row=19)
    g, out = play(g, "SJ")
    assert out.accepted and g.passes_in_row == 0 and g.phase == u.TURN


def test_the_last_player_in_takes_the_last_rank():
    g = position(["S9", "H5", "", "", ""], turn=0)
    g, out = play(g, "S9")
    assert g.phase == u.OVER and g.ranks[0] == 4 and g.ranks[1] == 5


# -- before the game: the deal, the seats, the rank period, the exchange --


def test_53_cards_are_dealt_one_at_a_time_from_the_starting_seat():
    seats = (3, 1, 4, 0, 2)
    hands = u.deal(random.Random(1), seats, start_player=4)
    assert sum(h.bit_count() for h in hands) == 53
    union = 0
    for h in hands:
        assert not union & h
        union |= h
    assert union == u.DECK_MASK
    # player 4 sits in seat 2: seats 2, 3, 4 (players 4, 0, 2) get 11 cards
    assert [hands[p].bit_count() for p in (4, 0, 2, 3, 1)] == [11, 11, 11, 10, 10]
    assert u.deal_sizes(seats, 4) == tuple(hands[p].bit_count() for p in range(5))
    assert u.deal(random.Random(1), seats, 4) == hands  # the generator passed in decides


def test_the_seats_are_drawn_anew_every_fifth_game():
    assert [n for n in range(1, 17) if u.reseats(UECDA, n)] == [1, 6, 11, 16]
    never = UECDA.but(seat_shuffle_period=0)
    assert not any(u.reseats(never, n) for n in range(1, 17))
    every = UECDA.but(seat_shuffle_period=1)
    assert all(u.reseats(every, n) for n in range(1, 17))
    seats = u.draw_seats(random.Random(3))
    assert sorted(seats) == [0, 1, 2, 3, 4]


def test_ranks_are_forgotten_every_hundred_games():
    assert [n for n in range(1, 302) if u.first_of_period(UECDA, n)] == [1, 101, 201, 301]
    once = UECDA.but(rank_period=0)
    assert [n for n in range(1, 302) if u.first_of_period(once, n)] == [1]


def test_the_rich_give_the_cards_they_choose():
    dealt = tuple(
        u.parse_hand(h) for h in ("S3S4S5H9", "H3H4HAJ3", "D3D4D5D6", "C3C4C2SA", "H5H6H7S2")
    )
    ranks = (1, 2, 3, 4, 5)  # player 0 daifugo … player 4 daihinmin
    hands, moves = u.exchange(UECDA, dealt, ranks, u.parse_hand("S3S2"), u.parse_hand("H4"))
    # the poor give their strongest: ♠2 and ♥7 from player 4, ♣2 from player 3
    assert [(x.giver, x.receiver, u.cards_text(x.cards), x.chosen) for x in moves] == [
        (4, 0, "S2H7", False),
        (3, 1, "C2", False),
        (0, 4, "S3S2", True),  # the daifugo may give back a card it just received
        (1, 3, "H4", True),
    ]
    assert sum(h.bit_count() for h in hands) == sum(h.bit_count() for h in dealt)


def test_a_choice_that_is_not_a_subset_of_the_hand_falls_back_to_the_strongest():
    dealt = tuple(
        u.parse_hand(h) for h in ("S3S4S5H9", "H3H4HAJ3", "D3D4D5D6", "C3C4C2SA", "H5H6H7S2")
    )
    ranks = (1, 2, 3, 4, 5)
    _, moves = u.exchange(UECDA, dealt, ranks, u.parse_hand("S3D3"), u.parse_hand("H4H3"))
    assert (u.cards_text(moves[2].cards), moves[2].chosen) == ("S2H9", False)  # ♦3 not held
    assert (u.cards_text(moves[3].cards), moves[3].chosen) == ("J3", False)  # two, not one
    _, moves = u.exchange(UECDA, dealt, ranks, None, None)  # no answer at all
    assert u.cards_text(moves[2].cards) == "S2H9"


def test_without_the_choice_the_rich_give_their_weakest():
    dealt = tuple(
        u.parse_hand(h) for h in ("S3S4S5H9", "H3H4HAJ3", "D3D4D5D6", "C3C4C2SA", "H5H6H7S2")
    )
    rules = UECDA.but(exchange_by_choice=False)
    _, moves = u.exchange(rules, dealt, (1, 2, 3, 4, 5), u.parse_hand("S5H9"), None)
    assert u.cards_text(moves[2].cards) == "S3S4"
    assert u.cards_text(moves[3].cards) == "H3"


def test_the_diamond_3_leads_the_game():
    hands = u.deal(random.Random(5), SEATS, 0)
    g = u.new_game(UECDA, hands, SEATS)
    assert g.hands[g.turn] >> u.DIAMOND_3 & 1


def test_on_a_lone_joker_tndhms_reads_only_the_lowest_column_of_the_spade_3_return():
    # tndhms's check looks at the figures of the lowest column (the ♠3 alone) and
    # clears every earlier error: the ♠3 with other cards is accepted, all of them given
    g = position(["S9SK", "S4J3", "S3HJS2H6", "S7H7", "S5D5"], turn=1, stage="SQ", last_player=0)
    g, _ = play(g, "Kx")
    g, out = play(g, "S3HJS2")
    assert out.accepted and out.spade3
    assert g.hands[2] == u.parse_hand("H6")
