"""RULES.md "Dealing and seats", "Who starts" and "Exchange"."""

from __future__ import annotations

import random

from daifugo.cards import DECK_MASK, HEART_3, card_id
from daifugo.deal import deal, exchange, first_player, game_rng, strongest, weakest
from daifugo.place import make_deal

from .helpers import hand


def assert_a_full_deal(hands: tuple[int, ...]) -> None:
    union = 0
    for h in hands:
        assert not union & h, "a card is in two hands"
        union |= h
    assert union == DECK_MASK
    assert sum(h.bit_count() for h in hands) == 54


# -- dealing --


def test_five_players_get_11_11_11_11_and_10_of_all_54_cards() -> None:
    for seed in range(20):
        hands = deal(random.Random(seed), 5)
        assert len(hands) == 5
        assert sorted(h.bit_count() for h in hands) == [10, 11, 11, 11, 11]
        assert_a_full_deal(hands)


def test_which_seat_gets_the_10_card_hand_is_random() -> None:
    short_seats = set()
    for seed in range(60):
        hands = deal(game_rng(f"s{seed}", 1), 5)
        short_seats.add(next(s for s, h in enumerate(hands) if h.bit_count() == 10))
    assert short_seats == {0, 1, 2, 3, 4}


def test_the_same_seed_gives_the_same_deals() -> None:
    for game_no in (1, 2, 50):
        assert deal(game_rng("tournament", game_no), 5) == deal(game_rng("tournament", game_no), 5)


def test_the_games_of_one_seed_are_dealt_differently() -> None:
    deals = {deal(game_rng("tournament", n), 5) for n in range(1, 21)}
    assert len(deals) == 20


def test_different_seeds_deal_differently() -> None:
    assert deal(game_rng("a", 1), 5) != deal(game_rng("b", 1), 5)


def test_without_a_seed_the_deal_comes_from_a_sound_source() -> None:
    for seed in (None, ""):
        rng = game_rng(seed, 1)
        assert isinstance(rng, random.SystemRandom)
        assert_a_full_deal(deal(rng, 5))
    assert deal(game_rng(None, 1), 5) != deal(game_rng(None, 1), 5)  # 1 in 10^60 to fail


def test_a_seeded_deal_does_not_depend_on_the_global_random_state() -> None:
    random.seed(1)
    a = deal(game_rng("x", 3), 5)
    random.seed(2)
    random.random()
    assert deal(game_rng("x", 3), 5) == a


# -- who starts --


def test_game_1_starts_with_the_holder_of_the_heart_3() -> None:
    assert HEART_3 == card_id(2, 3) == 16
    for seat in range(5):
        hands = [hand("1-4")] * 5
        hands[seat] = hand("2-3", "1-5")
        assert first_player(hands, None) == seat


def test_game_1_of_a_real_deal_starts_with_the_heart_3() -> None:
    for seed in range(10):
        hands = deal(game_rng(str(seed), 1), 5)
        seat = first_player(hands, None)
        assert hands[seat] >> HEART_3 & 1


def test_later_games_start_with_the_last_rank_of_the_previous_game() -> None:
    hands = deal(game_rng("w", 2), 5)
    assert first_player(hands, (1, 2, 3, 4, 5)) == 4
    assert first_player(hands, (5, 4, 3, 2, 1)) == 0
    assert first_player(hands, (2, 5, 1, 3, 4)) == 1


def test_a_later_game_does_not_start_with_the_heart_3_holder() -> None:
    hands = [hand("2-3")] + [hand("1-4")] * 4
    assert first_player(hands, (5, 1, 2, 3, 4)) == 0
    assert first_player(hands, (1, 5, 2, 3, 4)) == 1


# -- choosing cards for the exchange --


def test_the_weakest_cards_are_the_lowest_in_the_normal_order() -> None:
    h = hand("1-2", "2-1", "3-13", "4-5", "1-4", "joker")
    assert weakest(h, 2) == [card_id(1, 4), card_id(4, 5)]
    assert weakest(h, 1) == [card_id(1, 4)]


def test_the_strongest_cards_count_the_joker_strongest() -> None:
    h = hand("1-2", "2-1", "3-13", "4-5", "1-4", "joker")
    assert strongest(h, 2) == [53, card_id(1, 2)]
    assert strongest(hand("1-2", "2-1", "3-13"), 2) == [card_id(1, 2), card_id(2, 1)]


def test_among_equal_cards_the_lower_mark_goes_first() -> None:
    threes = hand("4-3", "2-3", "3-3", "1-9")
    assert weakest(threes, 2) == [card_id(2, 3), card_id(3, 3)]
    twos = hand("4-2", "3-2", "2-2", "1-9")
    assert strongest(twos, 2) == [card_id(2, 2), card_id(3, 2)]
    assert strongest(hand("joker", "joker", "1-2"), 2) == [53, 54]


# -- the exchange --


def exchange_hands() -> list[int]:
    return [
        hand("1-3", "2-3", "1-9", "1-13", "1-1"),  # seat 0: rank 1 (大富豪)
        hand("3-4", "1-10", "2-10", "3-1"),  # seat 1: rank 2
        hand("4-4", "4-9", "4-10"),  # seat 2: rank 3
        hand("3-5", "3-6", "4-2", "3-12"),  # seat 3: rank 4
        hand("4-5", "4-6", "2-2", "joker", "3-2"),  # seat 4: rank 5 (大貧民)
    ]


RANKS = (1, 2, 3, 4, 5)


def test_rank_1_and_the_last_rank_swap_two_cards() -> None:
    new, moves = exchange(exchange_hands(), RANKS)
    assert new[0] == hand("1-9", "1-13", "1-1", "joker", "2-2")
    assert new[4] == hand("4-5", "4-6", "3-2", "1-3", "2-3")


def test_rank_2_and_rank_4_swap_one_card() -> None:
    new, moves = exchange(exchange_hands(), RANKS)
    assert new[1] == hand("1-10", "2-10", "3-1", "4-2")
    assert new[3] == hand("3-5", "3-6", "3-12", "3-4")


def test_rank_3_keeps_its_hand_and_every_hand_keeps_its_size() -> None:
    before = exchange_hands()
    new, _ = exchange(before, RANKS)
    assert new[2] == before[2]
    assert [h.bit_count() for h in new] == [h.bit_count() for h in before]
    union = 0
    for h in new:
        assert not union & h
        union |= h
    assert union == sum(before)


def test_the_exchange_records_who_gave_what() -> None:
    _, moves = exchange(exchange_hands(), RANKS)
    got = {(m.giver, m.receiver): set(m.cards) for m in moves}
    assert got == {
        (0, 4): {card_id(1, 3), card_id(2, 3)},
        (4, 0): {53, card_id(2, 2)},
        (1, 3): {card_id(3, 4)},
        (3, 1): {card_id(4, 2)},
    }


def test_the_exchange_follows_the_ranks_not_the_seats() -> None:
    ranks = (5, 4, 3, 2, 1)  # seat 0 is now 大貧民, seat 4 大富豪
    new, _ = exchange(exchange_hands(), ranks)
    # seat 4 (rank 1) gives its two weakest, 4-5 and 4-6; seat 0 gives its two strongest, A and K
    assert new[4] == hand("joker", "2-2", "3-2", "1-1", "1-13")
    assert new[0] == hand("1-3", "2-3", "1-9", "4-5", "4-6")


def test_the_exchanged_cards_are_chosen_before_anything_moves() -> None:
    # the poor seat's strongest cards are weaker than the rich seat's weakest: had the
    # rich seat received first, it would hand the same cards straight back
    hands = [
        hand("1-10", "2-10", "1-11"),  # rank 1
        hand("1-12", "2-12"),  # rank 2
        hand("1-13"),  # rank 3
        hand("3-3", "4-3"),  # rank 4
        hand("1-3", "2-3", "1-4", "2-4"),  # rank 5
    ]
    new, _ = exchange(hands, RANKS)
    assert new[0] == hand("1-11", "1-4", "2-4")
    assert new[4] == hand("1-3", "2-3", "1-10", "2-10")
    # and the rank 2 / rank 4 swap: 4's strongest 3 for 2's weakest queen
    assert new[1] == hand("2-12", "3-3")
    assert new[3] == hand("4-3", "1-12")


def test_the_exchange_uses_the_normal_order_whatever_the_last_game_ended_in() -> None:
    # the exchange takes only the hands and the ranks: a 3 is always weak, a 2 strong
    hands = [
        hand("1-3", "1-2", "1-9"),
        hand("2-9", "2-8"),
        hand("3-9"),
        hand("4-9", "4-8"),
        hand("2-3", "2-2", "2-10"),
    ]
    new, _ = exchange(hands, RANKS)
    assert new[0] == hand("1-2", "2-2", "2-10")
    assert new[4] == hand("2-3", "1-3", "1-9")


# -- a place's deal --


def test_the_first_game_is_dealt_without_an_exchange_and_starts_with_the_heart_3() -> None:
    d = make_deal(game_rng("m", 1), 5, None)
    assert d.hands == d.dealt and d.exchanges == []
    assert d.hands[d.first] >> HEART_3 & 1


def test_a_later_game_is_exchanged_and_starts_with_the_last_rank() -> None:
    last = (3, 5, 1, 2, 4)
    d = make_deal(game_rng("m", 2), 5, last)
    assert d.dealt == deal(game_rng("m", 2), 5)
    assert d.hands == exchange(d.dealt, last)[0]
    assert d.first == 1
    assert_a_full_deal(d.hands)
