"""RULES.md "End of a trick" (the five rules, first that applies) and "Revolution"."""

from __future__ import annotations

from daifugo import game as g
from daifugo.cards import card_id, sorted_ids
from daifugo.events import EndPlayer, EndTurn, StartTurn
from daifugo.game import GameState, new_game
from daifugo.plays import Kind, Miss

from .helpers import act, cards, hand, position, typed


def five(*hands: int) -> list[int]:
    assert len(hands) == 5
    return list(hands)


def ids(*written: str) -> tuple[int, ...]:
    return tuple(sorted_ids(cards(*written)))


def everyone_passes(state: GameState, seats: list[int]) -> GameState:
    """The given seats pass in turn (each must be the one to act)."""
    for seat in seats:
        assert state.turn == seat, (state.turn, seat)
        state = g.advance(state)[0]
        state, result, _ = act(state, seat)
        assert result.outcome == "pass"
    return state


# -- rule 1: the player finished --


def test_a_player_who_finishes_takes_the_best_free_rank() -> None:
    s = position(
        five(hand("1-9"), hand("2-4", "2-5"), hand("3-4"), hand("4-4"), hand("4-6", "3-6")),
        0,
        table=("1-7",),
        last_player=4,
    )
    new, result, events = act(s, 0, "1-9")
    assert (result.outcome, result.rank, result.reset, result.finished) == ("play", 1, True, True)
    assert new.ranks == (1, 0, 0, 0, 0)
    assert typed(events) == typed([EndPlayer(0, 1), EndTurn(0, ids("1-9"), True)])


def test_a_finish_takes_the_best_rank_still_free() -> None:
    # seat 1 already finished first, seat 3 missed (rank 5)
    s = position(
        five(hand("1-9"), 0, hand("3-4", "3-5"), 0, hand("4-6", "3-6")),
        0,
        ranks=(0, 1, 0, 5, 0),
    )
    new, result, _ = act(s, 0, "1-9")
    assert result.rank == 2
    assert new.ranks == (2, 1, 0, 5, 0)


def test_a_finish_ends_the_trick_and_the_next_holder_leads() -> None:
    s = position(
        five(hand("1-9"), 0, hand("3-4", "3-5"), hand("4-4"), hand("4-6", "3-6")),
        0,
        table=("1-7",),
        last_player=4,
        passed=[2],
        ranks=(0, 1, 0, 0, 0),
    )
    new, _, _ = act(s, 0, "1-9")
    assert new.table is None and new.passed == 0 and new.last_player == -1
    assert new.phase == g.READY
    assert new.turn == 2  # seat 1 holds nothing; seat 2 leads although it had passed
    opened, events = g.advance(new)
    assert typed(events) == typed([StartTurn(2, (), False)])
    assert opened.turn == 2


def test_finishing_on_an_8_is_a_finish_not_an_8_cut() -> None:
    s = position(
        five(hand("1-8"), hand("2-4", "2-5"), hand("3-4"), hand("4-4"), hand("4-6", "3-6")),
        0,
        table=("1-7",),
        last_player=4,
    )
    new, result, _ = act(s, 0, "1-8")
    assert result.rank == 1 and result.reset
    assert not result.eight_cut
    assert new.turn == 1  # rule 1 comes before rule 3: the next holder leads


def test_the_last_seat_finishing_hands_the_lead_round_to_seat_0() -> None:
    s = position(
        five(hand("1-4", "1-5"), hand("2-4", "2-5"), hand("3-4"), hand("4-4"), hand("4-9")),
        4,
        table=("1-7",),
        last_player=3,
    )
    new, _, _ = act(s, 4, "4-9")
    assert new.turn == 0


# -- rule 2: the player missed --


def test_a_miss_discards_the_hand_and_takes_the_worst_free_rank() -> None:
    s = position(
        five(hand("1-5", "1-9"), hand("2-4", "2-5"), hand("3-4"), hand("4-4"), hand("4-6", "3-6")),
        0,
        table=("1-7",),
        last_player=4,
    )
    new, result, events = act(s, 0, "1-5")
    assert (result.outcome, result.reason, result.rank, result.reset) == (
        "miss",
        Miss.NOT_STRONGER,
        5,
        True,
    )
    assert result.cards == ()
    assert new.hands[0] == 0
    assert new.ranks == (5, 0, 0, 0, 0)
    assert typed(events) == typed([EndPlayer(0, 5), EndTurn(0, (), True)])


def test_a_miss_takes_the_worst_rank_still_free() -> None:
    s = position(
        five(hand("1-5", "1-9"), 0, hand("3-4"), 0, hand("4-6", "3-6")),
        0,
        ranks=(0, 1, 0, 5, 0),
    )
    new, result, _ = g.time_out(s, 0)
    assert result.rank == 4
    assert new.ranks == (4, 1, 0, 5, 0)


def test_a_miss_ends_the_trick_and_the_next_holder_leads_even_if_they_passed() -> None:
    s = position(
        five(hand("1-5", "1-9"), hand("2-4", "2-5"), hand("3-4", "3-3"), hand("4-4"), hand("4-6")),
        0,
        table=("1-7",),
        last_player=4,
        passed=[1, 2, 3],
    )
    new, _, _ = act(s, 0, "1-5")
    assert new.table is None and new.passed == 0 and new.last_player == -1
    assert new.turn == 1


def test_a_miss_by_the_only_other_holder_ends_the_game() -> None:
    s = position(
        five(hand("1-5", "1-9"), 0, hand("3-4", "3-3"), 0, 0),
        0,
        table=("3-7",),
        last_player=2,
        ranks=(0, 1, 0, 2, 3),
    )
    new, result, _ = act(s, 0, "1-5")
    assert result.rank == 5
    over, events = g.advance(new)
    assert over.phase == g.OVER
    assert over.ranks == (5, 1, 4, 2, 3)
    assert [type(e).__name__ for e in events] == ["EndPlayer", "EndGame"]
    assert typed(events[:1]) == typed([EndPlayer(2, 4)])


# -- rule 3: 8-cut --


def test_an_8_ends_the_trick_and_the_same_player_leads_again() -> None:
    s = position(
        five(hand("1-8", "1-9"), hand("2-4", "2-5"), hand("3-4"), hand("4-4"), hand("4-6")),
        0,
        table=("1-7",),
        last_player=4,
        passed=[2, 3],
    )
    new, result, events = act(s, 0, "1-8")
    assert (result.outcome, result.reset, result.eight_cut, result.rank) == ("play", True, True, 0)
    assert new.table is None and new.passed == 0
    assert new.turn == 0
    assert typed(events) == typed([EndTurn(0, ids("1-8"), True)])


def test_leading_an_8_cuts_at_once() -> None:
    s = position(five(hand("1-8", "1-9"), hand("2-4"), hand("3-4"), hand("4-4"), hand("4-6")), 0)
    new, result, _ = act(s, 0, "1-8")
    assert result.eight_cut and new.turn == 0 and new.table is None


def test_a_pair_of_8s_cuts() -> None:
    s = position(
        five(hand("1-8", "2-8", "1-9"), hand("2-4"), hand("3-4"), hand("4-4"), hand("4-6")),
        0,
        table=("3-5", "4-5"),
        last_player=2,
    )
    new, result, _ = act(s, 0, "1-8", "2-8")
    assert result.eight_cut and new.turn == 0


def test_an_8_with_a_joker_cuts() -> None:
    s = position(
        five(hand("1-8", "joker", "1-9"), hand("2-4"), hand("3-4"), hand("4-4"), hand("4-6")),
        0,
        table=("3-5", "4-5"),
        last_player=2,
    )
    _, result, _ = act(s, 0, "1-8", "joker")
    assert result.eight_cut


def test_a_stair_through_a_real_8_cuts() -> None:
    s = position(
        five(hand("1-7", "1-8", "1-9", "2-3"), hand("2-4"), hand("3-4"), hand("4-4"), hand("4-6")),
        0,
    )
    new, result, _ = act(s, 0, "1-7", "1-8", "1-9")
    assert result.eight_cut and new.turn == 0


def test_a_joker_standing_for_an_8_in_a_stair_does_not_cut() -> None:
    s = position(
        five(
            hand("1-7", "joker", "1-9", "2-3"), hand("2-4"), hand("3-4"), hand("4-4"), hand("4-6")
        ),
        0,
    )
    new, result, _ = act(s, 0, "1-7", "joker", "1-9")
    assert not result.eight_cut and not result.reset
    assert new.turn == 1 and new.table is not None and new.table.kind == Kind.STAIR


def test_a_lone_joker_does_not_cut() -> None:
    s = position(
        five(hand("joker", "1-9"), hand("2-4"), hand("3-4"), hand("4-4"), hand("4-6")),
        0,
        table=("2-8",),
        last_player=4,
    )
    new, result, _ = act(s, 0, "joker")
    assert not result.eight_cut and new.turn == 1


# -- rule 4: everyone else passed --


def test_when_everyone_else_passes_the_last_player_leads() -> None:
    h = five(hand("1-4", "1-9"), hand("2-4"), hand("3-4"), hand("4-4"), hand("4-6"))
    s = position(h, 0)
    s, _, _ = act(s, 0, "1-9")
    assert s.turn == 1 and s.last_player == 0
    s = everyone_passes(s, [1, 2, 3])
    assert s.table is not None  # seat 4 has yet to pass
    s = g.advance(s)[0]
    s, result, events = act(s, 4)
    assert result.reset and typed(events) == typed([EndTurn(4, (), True)])
    assert s.table is None and s.passed == 0
    assert s.turn == 0


def test_only_players_still_holding_cards_need_to_pass() -> None:
    s = position(
        five(hand("1-4", "1-9"), hand("2-4"), 0, 0, hand("4-6")),
        0,
        ranks=(0, 0, 1, 2, 0),
    )
    s, _, _ = act(s, 0, "1-9")
    s = everyone_passes(s, [1, 4])
    assert s.table is None and s.turn == 0


def test_the_trick_goes_to_whoever_played_last() -> None:
    h = five(hand("1-4", "1-9"), hand("2-4", "2-10"), hand("3-4"), hand("4-4"), hand("4-6"))
    s = position(h, 0)
    s, _, _ = act(s, 0, "1-9")
    s = g.advance(s)[0]
    s, _, _ = act(s, 1, "2-10")
    s = everyone_passes(s, [2, 3, 4, 0])
    assert s.table is None and s.turn == 1


# -- rule 5: the turn goes round; a player who passed stays out --


def test_the_turn_goes_to_the_next_holder_in_seat_order_wrapping_around() -> None:
    s = position(
        five(hand("1-4", "1-9"), 0, hand("3-4", "3-5"), hand("4-4"), hand("4-6", "4-7")),
        4,
        table=("1-5",),
        last_player=3,
        ranks=(0, 1, 0, 0, 0),
    )
    new, result, events = act(s, 4, "4-6")
    assert not result.reset and typed(events) == typed([EndTurn(4, ids("4-6"), False)])
    assert new.turn == 0 and new.last_player == 4
    new, _, _ = act(g.advance(new)[0], 0, "1-9")
    assert new.turn == 2  # seat 1 holds nothing


def test_a_player_who_passed_stays_out_until_the_trick_ends() -> None:
    h = five(
        hand("1-4", "1-6", "1-9"),
        hand("2-4", "2-13"),
        hand("3-4", "3-5", "3-10"),
        hand("4-4", "4-3"),
        hand("4-6", "4-7"),
    )
    s = position(h, 0)
    s, _, _ = act(s, 0, "1-4")
    s = everyone_passes(s, [1])
    s, _, _ = act(g.advance(s)[0], 2, "3-5")
    s = everyone_passes(s, [3])
    s, _, _ = act(g.advance(s)[0], 4, "4-7")
    s, _, _ = act(g.advance(s)[0], 0, "1-9")
    # seats 1 and 3 passed earlier: they do not come round again although the table changed
    assert s.turn == 2
    s, _, _ = act(g.advance(s)[0], 2, "3-10")
    assert s.turn == 4
    s = everyone_passes(s, [4, 0])
    assert s.table is None and s.turn == 2


def test_a_pass_is_recorded_and_the_next_player_who_has_not_passed_acts() -> None:
    s = position(
        five(hand("1-4", "1-9"), hand("2-4", "2-5"), hand("3-4"), hand("4-4"), hand("4-6")),
        1,
        table=("1-7",),
        last_player=0,
        passed=[2],
    )
    new, result, events = act(s, 1)
    assert (result.outcome, result.reset, result.cards) == ("pass", False, ())
    assert typed(events) == typed([EndTurn(1, (), False)])
    assert new.passed == (1 << 1) | (1 << 2)
    assert new.turn == 3


# -- revolution --

FOUR_5S = ("1-5", "2-5", "3-5", "4-5")
FOUR_6S = ("1-6", "2-6", "3-6", "4-6")
FOUR_4S = ("1-4", "2-4", "3-4", "4-4")


def revolution_position(revolution: bool = False) -> GameState:
    return position(
        five(
            hand(*FOUR_5S, "1-13", "1-12"),
            hand(*FOUR_6S, "2-13"),
            hand(*FOUR_4S, "3-13"),
            hand("1-9", "2-9", "3-9", "joker", "4-13"),
            hand("1-10", "2-10", "1-11", "4-11"),
        ),
        0,
        revolution=revolution,
    )


def test_every_game_starts_in_the_normal_order() -> None:
    s = new_game(1, five(hand("1-3"), hand("1-4"), hand("1-5"), hand("1-6"), hand("1-7")), 0)
    assert s.revolution is False
    _, events = g.advance(s)
    assert typed(events) == typed([StartTurn(0, (), False)])


def test_a_revolution_does_not_change_the_order_before_the_trick_ends() -> None:
    s = revolution_position()
    s, result, _ = act(s, 0, *FOUR_5S)
    assert s.revolution is False and s.trick_revolutions == 1
    _, events = g.advance(s)
    assert typed(events) == typed([StartTurn(1, ids(*FOUR_5S), False)])
    # in this trick 4s are still weaker than 5s: four 4s are a miss, four 6s beat them
    s2 = g.advance(s)[0]
    s2, result, _ = act(s2, 1, *FOUR_6S)
    assert result.outcome == "play"
    s3 = g.advance(s2)[0]
    _, result, _ = act(s3, 2, *FOUR_4S)
    assert (result.outcome, result.reason) == ("miss", Miss.NOT_STRONGER)


def test_a_revolution_flips_the_order_when_the_trick_ends() -> None:
    s = revolution_position()
    s, _, _ = act(s, 0, *FOUR_5S)
    s = g.advance(s)[0]
    s, _, _ = act(s, 1)
    s = g.advance(s)[0]
    s, _, _ = act(s, 2)
    s = g.advance(s)[0]
    s, _, _ = act(s, 3)
    s = g.advance(s)[0]
    s, result, _ = act(s, 4)
    assert result.reset and result.revolution_changed
    assert s.revolution is True and s.trick_revolutions == 0
    _, events = g.advance(s)
    assert typed(events) == typed([StartTurn(0, (), True)])


def test_two_revolutions_in_one_trick_cancel_out() -> None:
    s = revolution_position()
    s, _, _ = act(s, 0, *FOUR_5S)
    s, _, _ = act(g.advance(s)[0], 1, *FOUR_6S)
    assert s.trick_revolutions == 2
    s = everyone_passes(s, [2, 3, 4, 0])
    assert s.table is None and s.turn == 1
    assert s.revolution is False


def test_three_revolutions_in_one_trick_flip_the_order() -> None:
    s = revolution_position()
    s, _, _ = act(s, 0, *FOUR_5S)
    s, _, _ = act(g.advance(s)[0], 1, *FOUR_6S)
    s = everyone_passes(s, [2])
    s, _, _ = act(g.advance(s)[0], 3, "1-9", "2-9", "3-9", "joker")
    assert s.trick_revolutions == 3
    s = everyone_passes(s, [4, 0, 1])
    assert s.table is None and s.turn == 3
    assert s.revolution is True


def test_a_revolution_during_a_revolution_returns_to_the_normal_order() -> None:
    s = revolution_position(revolution=True)
    s, _, _ = act(s, 0, *FOUR_5S)
    s = everyone_passes(s, [1, 2, 3, 4])
    assert s.revolution is False


def test_a_group_of_four_with_both_jokers_is_a_revolution() -> None:
    s = position(
        five(
            hand("1-10", "2-10", "joker", "joker", "1-3"),
            hand("2-4"),
            hand("3-4"),
            hand("4-4"),
            hand("4-6"),
        ),
        0,
    )
    s, _, _ = act(s, 0, "1-10", "2-10", "joker", "joker")
    assert s.trick_revolutions == 1
    s = everyone_passes(s, [1, 2, 3, 4])
    assert s.revolution is True


def test_a_group_of_five_with_a_joker_is_a_revolution() -> None:
    s = position(
        five(
            hand("1-10", "2-10", "3-10", "4-10", "joker", "1-3"),
            hand("2-4"),
            hand("3-4"),
            hand("4-4"),
            hand("4-6"),
        ),
        0,
    )
    s, _, _ = act(s, 0, "1-10", "2-10", "3-10", "4-10", "joker")
    s = everyone_passes(s, [1, 2, 3, 4])
    assert s.revolution is True


def test_a_group_of_three_is_no_revolution() -> None:
    s = position(
        five(
            hand("1-10", "2-10", "3-10", "1-3"), hand("2-4"), hand("3-4"), hand("4-4"), hand("4-6")
        ),
        0,
    )
    s, _, _ = act(s, 0, "1-10", "2-10", "3-10")
    s = everyone_passes(s, [1, 2, 3, 4])
    assert s.revolution is False


def test_a_stair_of_four_or_more_is_never_a_revolution() -> None:
    for stair in [
        ("1-3", "1-4", "1-5", "1-6"),
        ("1-3", "1-4", "1-5", "1-6", "1-7"),
        ("1-3", "1-4", "joker", "1-6", "joker"),
    ]:
        s = position(
            five(hand(*stair, "2-12"), hand("2-4"), hand("3-4"), hand("4-4"), hand("4-6")),
            0,
        )
        s, _, _ = act(s, 0, *stair)
        assert s.trick_revolutions == 0
        s = everyone_passes(s, [1, 2, 3, 4])
        assert s.revolution is False


def test_four_8s_are_a_revolution_that_cuts_and_flips_at_once() -> None:
    s = position(
        five(
            hand("1-8", "2-8", "3-8", "4-8", "1-3"),
            hand("2-4"),
            hand("3-4"),
            hand("4-4"),
            hand("4-6"),
        ),
        0,
    )
    s, result, _ = act(s, 0, "1-8", "2-8", "3-8", "4-8")
    assert result.eight_cut and result.revolution_changed
    assert s.revolution is True and s.turn == 0 and s.table is None


def test_a_revolution_that_finishes_the_hand_flips_the_order() -> None:
    s = position(
        five(hand("1-9", "2-9", "3-9", "4-9"), hand("2-4"), hand("3-4"), hand("4-4"), hand("4-6")),
        0,
    )
    s, result, _ = act(s, 0, "1-9", "2-9", "3-9", "4-9")
    assert result.rank == 1
    assert s.revolution is True


def test_a_miss_ending_a_trick_with_a_revolution_flips_the_order() -> None:
    s = revolution_position()
    s, _, _ = act(s, 0, *FOUR_5S)
    s, result, _ = g.time_out(g.advance(s)[0], 1)
    assert result.outcome == "miss" and result.revolution_changed
    assert s.revolution is True


def test_the_forbidden_finish_uses_the_order_in_force_when_the_trick_began() -> None:
    # a revolution is in force; seat 0's four 9s will restore the normal order only
    # when the trick ends, so the 3s are still the strongest number for seat 1
    s = position(
        five(
            hand("1-9", "2-9", "3-9", "4-9", "1-13"),
            hand("1-3", "2-3", "3-3", "4-3"),
            hand("3-4"),
            hand("4-4"),
            hand("4-6"),
        ),
        0,
        revolution=True,
    )
    s, _, _ = act(s, 0, "1-9", "2-9", "3-9", "4-9")
    s, result, _ = act(g.advance(s)[0], 1, "1-3", "2-3", "3-3", "4-3")
    assert (result.outcome, result.reason) == ("miss", Miss.FORBIDDEN_FINISH)


def test_the_seat_after_a_revolution_trick_plays_under_the_new_order() -> None:
    s = revolution_position()
    s, _, _ = act(s, 0, *FOUR_5S)
    s = everyone_passes(s, [1, 2, 3, 4])
    assert s.revolution is True and s.turn == 0
    s, _, _ = act(g.advance(s)[0], 0, "1-13")
    # now a 4 beats a king
    s, result, _ = act(g.advance(s)[0], 1, "2-13")
    assert (result.outcome, result.reason) == ("miss", Miss.NOT_STRONGER)


def test_a_4_beats_a_king_after_a_revolution() -> None:
    s = position(
        five(hand("1-4", "1-9"), hand("2-4", "2-5"), hand("3-4"), hand("4-4"), hand("4-6")),
        0,
        table=("1-13",),
        last_player=4,
        revolution=True,
    )
    _, result, _ = act(s, 0, "1-4")
    assert result.outcome == "play"
    assert card_id(1, 4) in result.cards
