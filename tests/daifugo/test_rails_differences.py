"""RULES.md "Differences from the 2011 Rails implementation": one test (or more) per row,
so that nobody "fixes" a deliberate choice back."""

from __future__ import annotations

import pytest

from daifugo import game as g
from daifugo.cards import CardFormatError, parse_card
from daifugo.game import ActionError, GameState
from daifugo.plays import Kind, Miss, judge, read_play

from .helpers import act, cards, hand, play, position, snapshot


def five(*hands: int) -> list[int]:
    return list(hands)


def seat_1_over_a_pair() -> GameState:
    return position(
        five(
            hand("1-4", "1-9"),
            hand("2-4", "2-5", "2-6", "2-10", "3-10", "joker"),
            hand("3-4", "3-5"),
            hand("4-4", "4-5"),
            hand("4-6", "4-7"),
        ),
        1,
        table=("1-7", "2-7"),
        last_player=0,
    )


# forbidden finish on a joker or the strongest card: 2011 never enforced it (it read the
# hand before the play); here it is enforced


def test_rails_finishing_on_a_joker_is_now_a_miss() -> None:
    s = position(
        five(hand("1-4", "1-9"), hand("joker"), hand("3-4"), hand("4-4"), hand("4-6")),
        1,
        table=("1-7",),
        last_player=0,
    )
    new, result, _ = act(s, 1, "joker")
    assert (result.outcome, result.reason) == ("miss", Miss.FORBIDDEN_FINISH)
    assert new.ranks[1] == 5


def test_rails_finishing_on_the_strongest_card_is_now_a_miss_in_both_orders() -> None:
    assert judge(cards("1-2"), cards("1-2"), None, False) == (None, Miss.FORBIDDEN_FINISH)
    assert judge(cards("1-3"), cards("1-3"), None, True) == (None, Miss.FORBIDDEN_FINISH)


# stairs: 2011 accepted them from 2 cards, and one joker filled any number of gaps


def test_rails_a_two_card_stair_is_now_no_play() -> None:
    assert read_play(cards("3-5", "3-6"), False) == ()
    s = position(
        five(hand("1-5", "1-6", "1-9"), hand("2-4"), hand("3-4"), hand("4-4"), hand("4-6")), 0
    )
    _, result, _ = act(s, 0, "1-5", "1-6")
    assert (result.outcome, result.reason) == ("miss", Miss.NOT_A_COMBINATION)


def test_rails_one_joker_now_fills_only_one_gap() -> None:
    assert read_play(cards("3-5", "joker", "3-9"), False) == ()
    assert read_play(cards("3-5", "joker", "3-8"), False) == ()
    assert read_play(cards("3-5", "joker", "3-7"), False)[0].kind == Kind.STAIR


# both jokers in a group of 3 or more: 2011 rejected it as a miss


def test_rails_both_jokers_in_a_group_of_three_or_more_are_now_allowed() -> None:
    s = position(
        five(
            hand("1-4", "1-9"),
            hand("2-10", "3-10", "joker", "joker", "2-3"),
            hand("3-4"),
            hand("4-4"),
            hand("4-6"),
        ),
        1,
        table=("1-7", "2-7", "3-7"),
        last_player=0,
    )
    new, result, _ = act(s, 1, "2-10", "joker", "joker")
    assert result.outcome == "play"
    assert new.table is not None and (new.table.kind, new.table.size) == (Kind.GROUP, 3)
    s2 = s.replace(table=None, last_player=-1)
    _, result, _ = act(s2, 1, "2-10", "3-10", "joker", "joker")
    assert result.outcome == "play"


# the same card twice in one play: 2011 accepted it and moved one card


def test_rails_the_same_card_twice_is_now_a_miss() -> None:
    new, result, _ = act(seat_1_over_a_pair(), 1, "2-10", "2-10")
    assert (result.outcome, result.reason) == ("miss", Miss.DUPLICATE_CARD)
    assert new.hands[1] == 0


# kind of combination when following: 2011 did not compare it (a stair could beat a pair)


def test_rails_a_stair_can_no_longer_beat_a_pair() -> None:
    _, result, _ = act(seat_1_over_a_pair(), 1, "2-4", "2-5", "2-6")
    assert (result.outcome, result.reason) == ("miss", Miss.KIND_MISMATCH)


def test_rails_a_pair_can_no_longer_beat_a_stair() -> None:
    table = play("1-3", "1-4", "1-5")
    assert judge(cards("2-10", "3-10"), cards("2-10", "3-10", "1-9"), table, False) == (
        None,
        Miss.KIND_MISMATCH,
    )


# revolution: 2011 toggled once per trick made of 4+ groups; here per odd number of
# revolution plays (the seed's 革命返し)


def test_rails_two_revolutions_in_one_trick_now_cancel_out() -> None:
    s = position(
        five(
            hand("1-5", "2-5", "3-5", "4-5", "1-13"),
            hand("1-6", "2-6", "3-6", "4-6", "2-13"),
            hand("3-4"),
            hand("4-4"),
            hand("4-7"),
        ),
        0,
    )
    s, _, _ = act(s, 0, "1-5", "2-5", "3-5", "4-5")
    s, _, _ = act(g.advance(s)[0], 1, "1-6", "2-6", "3-6", "4-6")
    for seat in (2, 3, 4, 0):
        s, _, _ = act(g.advance(s)[0], seat)
    assert s.table is None and s.revolution is False


# action out of turn: 2011 made the poster miss and the turn order jumped


def test_rails_an_action_out_of_turn_is_now_an_error_that_changes_nothing() -> None:
    s = seat_1_over_a_pair()
    before = snapshot(s)
    with pytest.raises(g.NotYourTurn):
        act(s, 3, "4-4", "4-5")
    assert snapshot(s) == before
    # and the player whose turn it is still acts
    _, result, _ = act(s, 1, "2-10", "3-10")
    assert result.outcome == "play"


# second action in one turn: 2011 accepted it


def test_rails_a_second_action_in_one_turn_is_now_an_error_that_changes_nothing() -> None:
    s, _, _ = act(seat_1_over_a_pair(), 1, "2-10", "3-10")
    before = snapshot(s)
    with pytest.raises(g.NoTurnOpen):  # the turn is being settled
        act(s, 1, "2-4")
    assert snapshot(s) == before
    opened = g.advance(s)[0]
    with pytest.raises(g.NotYourTurn):
        act(opened, 1, "2-4")


# lead after a finish or miss: 2011 skipped players who had passed in that trick


def test_rails_after_a_finish_the_next_holder_leads_even_if_they_passed() -> None:
    s = position(
        five(hand("1-9"), hand("2-4", "2-5"), hand("3-4", "3-5"), hand("4-4"), hand("4-6")),
        0,
        table=("4-7",),
        last_player=4,
        passed=[1, 2, 3],
    )
    new, result, _ = act(s, 0, "1-9")
    assert result.rank == 1 and new.turn == 1


def test_rails_after_a_miss_the_next_holder_leads_even_if_they_passed() -> None:
    s = position(
        five(hand("1-4", "1-9"), hand("2-4", "2-5"), hand("3-4"), hand("4-4"), hand("4-6")),
        0,
        table=("4-7",),
        last_player=4,
        passed=[1, 2, 3],
    )
    new, result, _ = g.time_out(s, 0)
    assert result.outcome == "miss" and new.turn == 1


# unreadable card string: 2011 treated it as a card that matched a joker


@pytest.mark.parametrize("text", ["7", "5-14", "0-3", "hello"])
def test_rails_an_unreadable_card_string_is_now_an_error_not_a_joker(text: str) -> None:
    with pytest.raises(CardFormatError):
        parse_card(text)
    # the error comes before any move: the state a server holds is untouched, and the
    # player can still play their joker
    s = position(
        five(hand("1-4", "1-9"), hand("2-10", "joker"), hand("3-4"), hand("4-4"), hand("4-6")),
        1,
        table=("1-7",),
        last_player=0,
    )
    _, result, _ = act(s, 1, "joker")
    assert result.outcome == "play" and result.cards == (53,)


# timeout timer: 2011 ran a thread per turn that could fire on the next turn; here one
# deadline per turn, checked by the server: a late timeout cannot hit the next turn


def test_rails_a_stale_timeout_cannot_hit_the_next_turn() -> None:
    s = seat_1_over_a_pair()
    s, _, _ = act(s, 1, "2-10", "3-10")
    # the timer of seat 1's turn fires late, while the turn is being settled ...
    with pytest.raises(ActionError):
        g.time_out(s, 1)
    s = g.advance(s)[0]
    # ... or after seat 2's turn opened: it is not seat 1's turn, nothing happens
    before = snapshot(s)
    with pytest.raises(g.NotYourTurn):
        g.time_out(s, 1)
    assert snapshot(s) == before
    # only a timeout for the seat whose turn it is counts
    _, result, _ = g.time_out(s, 2)
    assert (result.seat, result.reason) == (2, Miss.TIMEOUT)
