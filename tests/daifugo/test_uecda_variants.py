"""tndhms's optional rules and its default rules turned off, each on hand-made positions
(``server/src/daihu.c`` of tndhms 0.37, UECDA.md), and the variants that name them."""

from __future__ import annotations

import random

import pytest

from daifugo import uecda as u
from daifugo.rules import (
    UECDA,
    TndhmsSettingError,
    UnknownRules,
    from_tndhms,
    rules_named,
    rules_of,
    tndhms_settings,
)
from daifugo.uecda_legal import legal_moves
from tests.daifugo.test_uecda_rules import SEATS, play, position

# -- variants: names, tokens, tndhms's settings --


def test_a_variant_names_the_switches_that_differ_from_the_profile_in_one_order():
    rules = rules_named("uecda+11back+no-lock+reseat=3")
    assert rules == UECDA.but(eleven_back=True, lock=False, seat_shuffle_period=3)
    assert rules.label == "uecda+no-lock+11back+reseat=3"  # tndhms's order of its cfg
    assert rules_named(rules.label) == rules
    assert rules_of("uecda", "11back+no-lock+reseat=3") == rules
    assert UECDA.variant == "" and UECDA.label == "uecda"
    assert rules_named("uecda+reseat=5") == UECDA  # the profile's own value: no variant
    assert rules_named("uecda+reseat=5").label == "uecda"


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("uecda+13back", "unknown variant token '13back': tokens are like no-revolution"),
        ("uecda+11back=1", "unknown variant token '11back=1'"),
        ("uecda+reseat", "unknown variant token 'reseat'"),
        ("uecda+reseat=-1", "reseat= takes a number 0-99999"),
        ("uecda+reseat=²", "reseat= takes a number 0-99999"),  # isdigit, but no int
        ("uecda+reseat=" + "9" * 5000, "reseat= takes a number 0-99999"),  # beyond int's digits
        ("uecda+ranks=٣", "ranks= takes a number 0-99999"),  # int reads it as 3
        ("uecda+ranks=100000", "ranks= takes a number 0-99999"),
        ("uecda+11back+no-11back", "the variant names 11back twice"),
        ("daihinmin-2011+11back", "the daihinmin-2011 rules have no variants"),
        ("uecda+", "unknown variant token ''"),
    ],
)
def test_a_variant_that_is_not_one_is_refused_saying_why(name, message):
    with pytest.raises(UnknownRules, match=message):
        rules_named(name)


def test_tndhms_settings_and_variants_translate_both_ways():
    assert from_tndhms({}) == UECDA.but(seat_shuffle_period=3)  # tndhms's code defaults
    cfg = {"RULE_SEKIGAE_NUM": "5", "FLASH_MIBUN_NUMBER": "100"}
    assert from_tndhms(cfg) == UECDA
    every = from_tndhms(
        {
            **cfg,
            "RULE_KAKUMEI": "NO",
            "RULE_SHIBARI": "NO",
            "RULE_KINSOKU": "YES",
            "RULE_KAIDAN": "NO",
            "RULE_CHANGE": "NO",
            "RULE_5TOBI": "YES",
            "RULE_6REVERS": "YES",
            "RULE_8GIRI": "NO",
            "RULE_11BACK": "YES",
            "RULE_SEKIGAE": "NO",
            "FLASH_MIBUN_NUMBER": "10",
        }
    )
    assert every.label == (
        "uecda+no-revolution+no-lock+kinsoku+no-stairs+no-exchange+5skip+6reverse"
        "+no-8cut+11back+reseat=0+ranks=10"
    )
    assert from_tndhms(tndhms_settings(every)) == every
    # RULE_SEKIGAE_NUM 1: tndhms reseats in games n with n % 1 == 1, never
    assert from_tndhms({**cfg, "RULE_SEKIGAE_NUM": "1"}).seat_shuffle_period == 0
    with pytest.raises(UnknownRules, match="no tndhms settings play"):
        tndhms_settings(UECDA.but(joker_stands_in=False))


@pytest.mark.parametrize(
    ("cfg", "key"),
    [
        ({"RULE_11BACK": "yes"}, "RULE_11BACK"),  # tndhms upper-cases a cfg line first
        ({"RULE_SEKIGAE_NUM": "-5"}, "RULE_SEKIGAE_NUM"),
        ({"RULE_SEKIGAE_NUM": "123456"}, "RULE_SEKIGAE_NUM"),
        ({"RULE_SEKIGAE_NUM": "0"}, "RULE_SEKIGAE_NUM"),
        ({"FLASH_MIBUN_NUMBER": "0"}, "FLASH_MIBUN_NUMBER"),
        ({"RULE_SEKIGAE": "SOMETIMES"}, "RULE_SEKIGAE"),
    ],
)
def test_a_setting_no_match_here_can_play_is_named(cfg, key):
    with pytest.raises(TndhmsSettingError) as e:
        from_tndhms(cfg)
    assert e.value.key == key


# -- 11-back: a J reverses strength until the trick ends --

BACK = UECDA.but(eleven_back=True)


def test_a_jack_reverses_strength_for_the_rest_of_the_trick():
    hands = ["SJS3", "H5HA", "D4D2", "C9CK", "H4H6"]
    g, out = play(position(hands, turn=0, rules=BACK), "SJ")
    assert out.accepted and out.back and g.back and g.reversed_strength
    assert [m.text() for m in legal_moves(g, 1)] == ["H5"]  # lower beats higher now
    g, out = play(g, "H5")
    assert out.accepted
    g, out = play(g, "D2")  # a 2 is the weakest now: rejected
    assert not out.accepted
    # without the rule the J is a J
    g2, _ = play(position(hands, turn=0, rules=UECDA), "SJ")
    assert not g2.back and [m.text() for m in legal_moves(g2, 1)] == ["HA"]


def test_the_back_ends_with_the_trick_and_a_second_jack_undoes_it():
    hands = ["SJS3", "HJHA", "D4D2", "C9CK", "H4H6"]
    g, _ = play(position(hands, turn=0, rules=BACK, stage="S9", last_player=4), "SJ")
    assert g.back
    g, out = play(g, "")  # player 1 may not play the ♥J on the ♠J (not lower): passes
    for _ in range(3):
        g, out = play(g, "")
    assert out.cleared and not g.back and g.stage is None  # the trick ended: back is over
    # a stair through the J (the joker standing for it) and then a group of Js
    hands = ["S9STSQJ3", "H5H6H7", "DJCJ", "C3C4", "H3S3"]
    g, out = play(position(hands, turn=0, rules=BACK), "S9STKJ")
    assert out.back and not out.revolution


def test_a_back_on_a_revolution_is_the_normal_order_and_is_sent_to_clients():
    from daifugo import uecda_wire as w

    hands = ["SJS3", "H5HA", "D4D2", "C9CK", "H4H6"]
    g, out = play(position(hands, turn=0, rules=BACK, revolution=True), "SJ")
    assert g.revolution and g.back and not g.reversed_strength
    assert [m.text() for m in legal_moves(g, 1)] == ["HA"]
    tables = w.turn_tables(g, None, SEATS)
    assert [tables[1][5 * 15 + c] for c in (5, 6)] == [1, 1]  # [5][5] 11-back, [5][6] revolution


def test_a_lone_joker_in_a_jack_s_cell_is_no_jack():
    hands = ["J3S3", "H5HA", "D4D2", "C9CK", "H4H6"]
    g, out = play(position(hands, turn=0, rules=BACK, stage="S9", last_player=4), "KJ")
    assert out.accepted and not out.back and not g.back


# -- 6-reverse: a 6 reverses the order of play for the rest of the game --

REVERSE = UECDA.but(six_reverse=True)


def test_a_six_sends_play_the_other_way_until_another_six():
    hands = ["S6S3", "H7H8", "D7D8", "C7C8", "S7S8"]
    g, _ = play(position(hands, turn=0, rules=REVERSE), "S6")
    assert g.backwards and g.turn == 4  # seats 0-1-2-3-4: player 0's previous is player 4
    g, _ = play(g, "S7")
    assert g.turn == 3
    g2, _ = play(position(hands, turn=0, rules=UECDA), "S6")
    assert not g2.backwards and g2.turn == 1


def test_the_reversed_order_outlives_the_trick():
    hands = ["S6S3", "H7H8", "D7D8", "C7C8", "S7S8"]
    g, _ = play(position(hands, turn=0, rules=REVERSE), "S6")
    for _ in range(4):  # 4, 3, 2, 1 pass
        g, out = play(g, "")
    assert out.cleared and g.turn == 0 and g.stage is None and g.backwards
    g, _ = play(g, "S3")
    assert g.turn == 4  # still the other way


def test_a_stair_through_the_six_reverses_and_a_second_six_restores():
    hands = ["S4S5S6S3", "H6H7H8HA", "D7D8", "C7C8", "S7S8"]
    g, out = play(position(hands, turn=0, rules=REVERSE), "S4S5S6")
    assert g.backwards and g.turn == 4


# -- 5-skip and kinsoku: named and logged, never applied --


@pytest.mark.parametrize("switch", ["five_skip", "kinsoku"])
def test_rules_tndhms_never_applies_change_nothing(switch):
    rules = UECDA.but(**{switch: True})
    hands = ["S5S3H5", "H7H8", "D7D8", "C7C8", "S7S8"]
    for text in ("S5", "S5H5"):
        with_rule = play(position(hands, turn=0, rules=rules), text)[0]
        without = play(position(hands, turn=0, rules=UECDA), text)[0]
        assert (with_rule.turn, with_rule.stage, with_rule.passed) == (
            without.turn,
            without.stage,
            without.passed,
        )
        assert with_rule.turn == 1  # the next player, not skipped


# -- the default rules turned off --


def test_without_stairs_a_stair_is_rejected():
    rules = UECDA.but(stairs=False)
    hands = ["S5S6S7", "H7H8H9", "D7D8", "C7C8", "S8S9"]
    g, out = play(position(hands, turn=0, rules=rules), "S5S6S7")
    assert not out.accepted
    assert all(m.kind != u.STAIR for m in legal_moves(position(hands, rules=rules), 0))


def test_without_the_revolution_a_group_of_four_is_only_a_group():
    hands = ["S9H9D9C9", "H7H8", "D7D8", "C7C8", "S7S8"]
    g, out = play(position(hands, rules=UECDA.but(revolution=False)), "S9H9D9C9")
    assert out.accepted and not out.revolution and not g.revolution
    g, out = play(position(hands, rules=UECDA), "S9H9D9C9")
    assert out.revolution and g.revolution


def test_without_the_eight_cut_an_eight_is_only_an_eight():
    hands = ["S8S3", "H9H8", "D7D8", "C7C8", "S7H7"]
    g, out = play(position(hands, rules=UECDA.but(eight_cut=False)), "S8")
    assert out.accepted and not out.eight_cut and not out.cleared and g.turn == 1
    g, out = play(position(hands, rules=UECDA), "S8")
    assert out.eight_cut and out.cleared and g.turn == 0


def test_without_the_exchange_the_ranks_still_choose_the_dealer():
    rules = UECDA.but(exchange=False)
    match = u.UecdaMatch(rules, games=1, seats=SEATS, ranks=(3, 1, 2, 5, 4))
    deal = u.deal_game(match, random.Random(7))
    assert deal.ranks == (3, 1, 2, 5, 4) and deal.start == 1  # the daifugo's seat deals
    g, moves = u.start_game(deal, rules)
    assert moves == [] and g.hands == deal.dealt
    assert not u.exchanges(rules, 2) and u.exchanges(UECDA, 2) and not u.exchanges(UECDA, 1)


# -- tndhms's exchange: a joker written over a card erases that card --


def test_a_chosen_joker_written_in_a_held_card_s_cell_erases_that_card():
    """tndhms moves a chosen joker by clearing the cell it was written in
    (``trans_work_card``): written over the ♠K its giver holds, the ♠K leaves the game."""
    dealt = tuple(u.parse_hand(h) for h in ("S3SKJ3H9", "H3H4HA", "D3D4D5D6", "C3C4C2", "H5H6H7S2"))
    ranks = (1, 2, 3, 4, 5)
    ones, twos = u.parse_cells("S3KK")  # the ♠3, and the joker in the ♠K's cell
    assert u.erased_by(ones, twos) == 1 << u.card_of(0, 11)
    choice = u.cards_of_cells(ones, twos)
    hands, moves = u.exchange(
        UECDA, dealt, ranks, choice, u.parse_hand("H4"), (u.erased_by(ones, twos), 0)
    )
    assert u.cards_text(hands[0]) == "S2H7H9"  # the ♠K gone with the ♠3 and the joker
    assert u.cards_text(hands[4]) == "S3H5H6J3"
    assert moves[2].erased == u.parse_hand("SK") and moves[3].erased == 0
    dealt_cards = sum(h.bit_count() for h in dealt)
    assert sum(h.bit_count() for h in hands) == dealt_cards - 1
    # written in the joker's own cell ([4][1]) or a joker-only cell, it erases nothing
    assert u.erased_by(*u.parse_cells("S3J3")) == 0 and u.erased_by(*u.parse_cells("Kx")) == 0
    # a choice not taken (not the hand's) erases nothing either
    hands, moves = u.exchange(UECDA, dealt, ranks, u.parse_hand("S3D9"), None, (1 << 20, 0))
    assert all(m.erased == 0 for m in moves)
    assert sum(h.bit_count() for h in hands) == dealt_cards
