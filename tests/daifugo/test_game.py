"""One game: turns, misses, non-moves, ranks, events and persistence."""

from __future__ import annotations

import json

import pytest

from daifugo import game as g
from daifugo.cards import sorted_ids
from daifugo.events import EndGame, EndPlayer, EndTurn, StartTurn
from daifugo.game import ActionError, GameState, new_game
from daifugo.plays import Kind, Miss

from .helpers import act, cards, hand, position, snapshot, typed


def five(*hands: int) -> list[int]:
    assert len(hands) == 5
    return list(hands)


def ids(*written: str) -> tuple[int, ...]:
    return tuple(sorted_ids(cards(*written)))


def following() -> GameState:
    """Seat 1 to act over seat 0's 7 of spades."""
    return position(
        five(
            hand("1-4", "1-9"),
            hand("2-4", "2-5", "2-6", "2-10", "3-10", "joker"),
            hand("3-4", "3-5"),
            hand("4-4", "4-5"),
            hand("4-6", "4-7"),
        ),
        1,
        table=("1-7",),
        last_player=0,
    )


def assert_missed(result: g.TurnResult, new: GameState, seat: int, reason: str) -> None:
    assert (result.outcome, result.reason, result.cards, result.reset) == ("miss", reason, (), True)
    assert new.hands[seat] == 0
    assert new.ranks[seat] == result.rank > 0


# -- the game's phases --


def test_a_new_game_waits_for_its_first_turn() -> None:
    hands = five(hand("1-3"), hand("2-3"), hand("3-3"), hand("4-3"), hand("1-4"))
    s = new_game(7, hands, 1)
    assert (s.phase, s.turn, s.table, s.revolution, s.game_no) == (g.READY, 1, None, False, 7)
    assert s.ranks == (0, 0, 0, 0, 0) and s.passed == 0 and s.turn_no == 0
    assert s.hands == tuple(hands)


def test_advance_opens_the_turn_with_a_start_turn_event() -> None:
    s = new_game(1, five(hand("1-3"), hand("2-3"), hand("3-3"), hand("4-3"), hand("1-4")), 2)
    opened, events = g.advance(s)
    assert opened.phase == g.TURN_OPEN and opened.turn == 2 and opened.turn_no == 1
    assert typed(events) == typed([StartTurn(2, (), False)])


def test_start_turn_shows_the_table_weakest_first() -> None:
    s = following().replace(phase=g.READY)
    _, events = g.advance(s)
    assert typed(events) == typed([StartTurn(1, ids("1-7"), False)])


def test_advance_while_a_turn_is_open_is_refused() -> None:
    s = following()
    before = snapshot(s)
    with pytest.raises(g.NoTurnOpen):
        g.advance(s)
    assert snapshot(s) == before


def test_a_turn_settles_into_ready_until_the_next_advance() -> None:
    new, _, _ = act(following(), 1, "2-10")
    assert new.phase == g.READY and new.turn == 2


# -- actions that are not moves change nothing --


def test_an_action_out_of_turn_is_refused_and_changes_nothing() -> None:
    s = following()
    before = snapshot(s)
    for seat in (0, 2, 3, 4):
        for action in (
            lambda st, se: act(st, se, "4-6"),
            lambda st, se: act(st, se),
            g.time_out,
            lambda st, se: g.play_mask(st, se, cards("4-6")),
        ):
            with pytest.raises(g.NotYourTurn):
                action(s, seat)
    assert snapshot(s) == before


def test_a_seat_that_is_no_seat_is_not_to_act() -> None:
    with pytest.raises(g.NotYourTurn):
        act(following(), 9, "2-10")


def test_an_action_when_no_turn_is_open_is_refused_and_changes_nothing() -> None:
    s = following().replace(phase=g.READY)
    before = snapshot(s)
    for action in (
        lambda st: act(st, 1, "2-10"),
        lambda st: act(st, 1),
        lambda st: g.time_out(st, 1),
    ):
        with pytest.raises(g.NoTurnOpen):
            action(s)
    assert snapshot(s) == before


def test_a_second_action_in_one_turn_is_refused_and_changes_nothing() -> None:
    s, _, _ = act(following(), 1, "2-10")
    before = snapshot(s)
    for action in (
        lambda st: act(st, 1, "3-10"),
        lambda st: act(st, 1),
        lambda st: g.time_out(st, 1),
    ):
        with pytest.raises(ActionError):
            action(s)
    assert snapshot(s) == before


def test_a_late_timeout_for_the_previous_turn_hits_nobody() -> None:
    s, _, _ = act(following(), 1, "2-10")
    s = g.advance(s)[0]
    with pytest.raises(g.NotYourTurn):
        g.time_out(s, 1)
    assert s.hands[1] and s.ranks[1] == 0


def test_actions_after_the_game_is_over_are_refused() -> None:
    s = position(five(hand("1-5"), 0, 0, 0, 0), 0, ranks=(0, 1, 2, 3, 4), phase=g.READY)
    over, _ = g.advance(s)
    assert over.phase == g.OVER
    with pytest.raises(g.NoTurnOpen):
        act(over, 0, "1-5")
    with pytest.raises(ActionError):
        g.advance(over)


def test_the_old_state_is_never_changed() -> None:
    s = following()
    before = snapshot(s)
    for action in (
        lambda: act(s, 1, "2-10"),
        lambda: act(s, 1),
        lambda: act(s, 1, "2-4"),
        lambda: g.time_out(s, 1),
        lambda: g.play_mask(s, 1, cards("2-10", "3-10")),
    ):
        action()
        assert snapshot(s) == before


# -- a play, a pass --


def test_a_play_moves_the_cards_from_the_hand_to_the_table() -> None:
    s = following()
    new, result, events = act(s, 1, "2-10")
    assert (result.outcome, result.reason, result.cards, result.reset, result.rank) == (
        "play",
        None,
        ids("2-10"),
        False,
        0,
    )
    assert new.hands[1] == s.hands[1] & ~cards("2-10")
    assert new.table is not None and new.table.mask == cards("2-10")
    assert new.last_player == 1
    assert typed(events) == typed([EndTurn(1, ids("2-10"), False)])


def test_play_mask_is_the_same_as_writing_the_cards() -> None:
    a = act(following(), 1, "2-10")
    b = g.play_mask(following(), 1, cards("2-10"))
    assert snapshot(a[0]) == snapshot(b[0]) and a[1] == b[1] and typed(a[2]) == typed(b[2])


def test_a_written_joker_plays_the_joker_held() -> None:
    new, result, _ = act(following(), 1, "joker")
    assert result.outcome == "play" and result.cards == (53,)
    assert not new.hands[1] >> 53 & 1


def test_both_written_jokers_play_both_jokers() -> None:
    s = position(
        five(hand("1-4", "joker", "joker"), hand("2-4"), hand("3-4"), hand("4-4"), hand("4-6")),
        0,
        table=("1-9", "2-9"),
        last_player=3,
    )
    new, result, _ = act(s, 0, "joker", "joker")
    assert result.outcome == "play" and result.cards == (53, 54)
    assert new.hands[0] == cards("1-4")


def test_the_cards_may_be_written_in_any_order() -> None:
    s = position(
        five(hand("1-4", "1-5", "1-6", "2-3"), hand("2-4"), hand("3-4"), hand("4-4"), hand("4-6")),
        0,
    )
    _, result, _ = act(s, 0, "1-6", "1-4", "1-5")
    assert result.outcome == "play" and result.cards == ids("1-4", "1-5", "1-6")


def test_a_pass_on_a_table_is_a_pass() -> None:
    new, result, events = act(following(), 1)
    assert result.outcome == "pass" and result.reason is None
    assert new.hands[1] == following().hands[1]
    assert typed(events) == typed([EndTurn(1, (), False)])


def test_the_heart_3_holder_need_not_lead_the_heart_3() -> None:
    s = new_game(1, five(hand("2-3", "1-9"), hand("2-4"), hand("3-4"), hand("4-4"), hand("4-6")), 0)
    _, result, _ = act(g.advance(s)[0], 0, "1-9")
    assert result.outcome == "play"


# -- every reason for a miss --


def test_a_card_not_held_is_a_miss() -> None:
    new, result, events = act(following(), 1, "1-10")
    assert_missed(result, new, 1, Miss.CARD_NOT_HELD)
    assert typed(events) == typed([EndPlayer(1, 5), EndTurn(1, (), True)])


def test_a_held_card_with_one_not_held_is_a_miss() -> None:
    new, result, _ = act(following(), 1, "2-10", "1-10")
    assert_missed(result, new, 1, Miss.CARD_NOT_HELD)


def test_a_joker_not_held_is_a_miss() -> None:
    s = position(
        five(hand("1-4", "1-9"), hand("2-4", "2-5"), hand("3-4"), hand("4-4"), hand("4-6")),
        1,
        table=("1-7",),
        last_player=0,
    )
    new, result, _ = act(s, 1, "joker")
    assert_missed(result, new, 1, Miss.CARD_NOT_HELD)


def test_more_jokers_than_held_is_a_miss() -> None:
    s = position(
        five(
            hand("1-4", "1-9"), hand("2-9", "joker", "2-5"), hand("3-4"), hand("4-4"), hand("4-6")
        ),
        1,
        table=("1-7", "2-7"),
        last_player=0,
    )
    new, result, _ = act(s, 1, "joker", "joker")
    assert_missed(result, new, 1, Miss.CARD_NOT_HELD)


def test_playing_a_card_not_held_by_mask_is_a_miss() -> None:
    new, result, _ = g.play_mask(following(), 1, cards("1-10"))
    assert_missed(result, new, 1, Miss.CARD_NOT_HELD)


def test_the_same_card_twice_is_a_miss() -> None:
    new, result, _ = act(following(), 1, "2-10", "2-10")
    assert_missed(result, new, 1, Miss.DUPLICATE_CARD)


def test_cards_that_form_no_play_are_a_miss() -> None:
    new, result, _ = act(following(), 1, "2-4", "2-10")
    assert_missed(result, new, 1, Miss.NOT_A_COMBINATION)


def test_a_play_of_another_kind_is_a_miss() -> None:
    new, result, _ = act(following(), 1, "2-10", "3-10")
    assert_missed(result, new, 1, Miss.KIND_MISMATCH)


def test_a_play_of_another_size_is_a_miss() -> None:
    s = position(
        five(
            hand("1-4", "1-9"),
            hand("2-10", "3-10", "joker", "2-3"),
            hand("3-4"),
            hand("4-4"),
            hand("4-6"),
        ),
        1,
        table=("1-7", "2-7"),
        last_player=0,
    )
    new, result, _ = act(s, 1, "2-10", "3-10", "joker")
    assert_missed(result, new, 1, Miss.SIZE_MISMATCH)


def test_a_play_that_is_not_stronger_is_a_miss() -> None:
    new, result, _ = act(following(), 1, "2-6")
    assert_missed(result, new, 1, Miss.NOT_STRONGER)


def test_a_forbidden_finish_is_a_miss() -> None:
    s = position(
        five(hand("1-4", "1-9"), hand("2-2"), hand("3-4"), hand("4-4"), hand("4-6")),
        1,
        table=("1-7",),
        last_player=0,
    )
    new, result, _ = act(s, 1, "2-2")
    assert_missed(result, new, 1, Miss.FORBIDDEN_FINISH)
    assert result.rank == 5  # the worst rank, not the best


def test_a_pass_when_leading_is_a_miss() -> None:
    s = position(five(hand("1-4", "1-9"), hand("2-4"), hand("3-4"), hand("4-4"), hand("4-6")), 0)
    new, result, events = act(s, 0)
    assert_missed(result, new, 0, Miss.PASS_ON_LEAD)
    assert typed(events) == typed([EndPlayer(0, 5), EndTurn(0, (), True)])


def test_no_action_in_time_is_a_miss() -> None:
    new, result, events = g.time_out(following(), 1)
    assert_missed(result, new, 1, Miss.TIMEOUT)
    assert typed(events) == typed([EndPlayer(1, 5), EndTurn(1, (), True)])


def test_every_miss_code_is_known() -> None:
    assert set(Miss.ALL) == {
        "CARD_NOT_HELD",
        "DUPLICATE_CARD",
        "NOT_A_COMBINATION",
        "KIND_MISMATCH",
        "SIZE_MISMATCH",
        "NOT_STRONGER",
        "FORBIDDEN_FINISH",
        "PASS_ON_LEAD",
        "TIMEOUT",
    }


# -- ranks and the end of a game --


def test_the_last_holder_takes_the_last_rank_and_the_game_ends() -> None:
    s = position(
        five(0, hand("2-4", "2-5"), 0, 0, 0), 1, ranks=(1, 0, 2, 5, 3), phase=g.READY, game_no=4
    )
    over, events = g.advance(s)
    assert over.phase == g.OVER
    assert over.ranks == (1, 4, 2, 5, 3)
    assert over.hands == (0, 0, 0, 0, 0)
    assert typed(events) == typed([EndPlayer(1, 4), EndGame(4, False, (1, 4, 2, 5, 3))])


def test_the_end_of_the_game_reports_the_order_in_force() -> None:
    s = position(
        five(0, hand("2-4"), 0, 0, 0), 1, ranks=(1, 0, 2, 5, 3), phase=g.READY, revolution=True
    )
    _, events = g.advance(s)
    assert typed(events[-1:]) == typed([EndGame(1, True, (1, 4, 2, 5, 3))])


def test_ranks_follow_finishes_from_the_top_and_misses_from_the_bottom() -> None:
    # seat order 0..4; everyone holds two cards except as noted
    s = new_game(
        1,
        five(
            hand("1-9"),
            hand("2-3", "2-4"),
            hand("3-10", "3-11"),
            hand("4-5", "4-6"),
            hand("1-6", "1-7"),
        ),
        0,
    )
    s, r, _ = act(g.advance(s)[0], 0, "1-9")  # seat 0 finishes: rank 1
    assert r.rank == 1 and s.turn == 1
    s, r, _ = g.time_out(g.advance(s)[0], 1)  # seat 1 misses: rank 5
    assert r.rank == 5 and s.turn == 2
    s, r, _ = act(g.advance(s)[0], 2, "3-10")
    s, r, _ = act(g.advance(s)[0], 3, "4-5")  # not stronger: a miss, rank 4
    assert r.outcome == "miss" and r.rank == 4 and s.turn == 4
    s, r, _ = act(g.advance(s)[0], 4, "1-6")
    s, r, _ = act(g.advance(s)[0], 2, "3-11")  # seat 2 finishes: rank 2
    assert r.rank == 2
    over, events = g.advance(s)
    assert over.phase == g.OVER and over.ranks == (1, 5, 2, 4, 3)
    assert typed(events) == typed([EndPlayer(4, 3), EndGame(1, False, (1, 5, 2, 4, 3))])


def test_a_whole_game_announces_its_events_in_protocol_order() -> None:
    s = new_game(
        1,
        five(
            hand("1-9", "1-3"),
            hand("2-3", "2-4"),
            hand("3-10", "3-11"),
            hand("4-5", "4-6"),
            hand("1-6", "1-7"),
        ),
        1,
    )
    script = [
        (1, ("2-3",)),
        (2, ("3-10",)),
        (3, ()),
        (4, ()),
        (0, ()),
        (1, ()),  # everyone else passed: seat 2 leads
        (2, ("3-11",)),  # finishes: rank 1, seat 3 leads
        (3, ("4-5",)),
        (4, ("1-6",)),
        (0, ("1-9",)),
        (1, ()),
        (3, ()),
        (4, ()),  # seat 0 leads
        (0, ("1-3",)),  # finishes: rank 2
        (1, ("2-4",)),  # finishes: rank 3; seat 3 and 4 remain
        (3, ("4-6",)),  # finishes: rank 4; seat 4 is left
    ]
    log: list[object] = []
    for seat, written in script:
        s, events = g.advance(s)
        log.extend(events)
        assert s.turn == seat
        s, _, events = act(s, seat, *written)
        log.extend(events)
    s, events = g.advance(s)
    log.extend(events)
    assert s.phase == g.OVER and s.ranks == (2, 3, 1, 4, 5)
    names = [e.operation for e in log]  # type: ignore[attr-defined]
    # start_turn, (end_player), end_turn ... end_player, end_game
    i = 0
    while names[i] == "start_turn":
        i += 1
        if names[i] == "end_player":
            i += 1
        assert names[i] == "end_turn"
        i += 1
    assert names[i:] == ["end_player", "end_game"]
    assert [e for e in log if isinstance(e, EndPlayer)] == [
        EndPlayer(2, 1),
        EndPlayer(0, 2),
        EndPlayer(1, 3),
        EndPlayer(3, 4),
        EndPlayer(4, 5),
    ]
    assert sum(1 for n in names if n == "start_turn") == len(script)


# -- persistence --


def round_trip(s: GameState) -> GameState:
    return GameState.from_dict(json.loads(json.dumps(s.to_dict())))


def test_a_state_survives_json_and_back() -> None:
    s = position(
        five(hand("1-4", "1-9"), 0, hand("3-4"), hand("4-4"), hand("4-6", "joker")),
        3,
        table=("1-5", "1-6", "joker"),
        last_player=2,
        revolution=True,
        trick_revolutions=1,
        passed=[0],
        ranks=(0, 1, 0, 0, 0),
    )
    back = round_trip(s)
    assert back == s
    assert snapshot(back) == snapshot(s)
    assert back.table == s.table and back.passed == s.passed and back.hands == s.hands


def test_one_card_with_two_jokers_on_the_table_keeps_its_kind_through_json() -> None:
    for kind in (Kind.GROUP, Kind.STAIR):
        s = position(
            five(hand("1-4", "1-9"), hand("2-4"), hand("3-4"), hand("4-4"), hand("4-6")),
            3,
            table=("2-7", "joker", "joker"),
            table_kind=kind,
            last_player=2,
        )
        back = round_trip(s)
        assert back.table is not None and back.table.kind == kind
        assert back.table.strength == s.table.strength  # type: ignore[union-attr]


def test_states_that_differ_are_not_equal() -> None:
    s = following()
    assert s != s.replace(turn=2)
    assert s != s.replace(passed=1)
    assert s == s.replace()
