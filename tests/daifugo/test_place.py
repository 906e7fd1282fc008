"""A whole place: games in a row, ranks, points, who starts, and the event stream."""

from __future__ import annotations

import json

import pytest

from daifugo import game as g
from daifugo import place as pl
from daifugo.deal import exchange, game_rng
from daifugo.events import EndGame, EndPlace, EndPlayer, StartGame, StartPlace, StartTurn
from daifugo.game import ActionError
from daifugo.place import PlaceState, new_place, points_for

from .helpers import drive_place, typed


def rng_for(seed: str):
    return lambda n: game_rng(seed, n)


def test_a_new_place_has_not_started() -> None:
    s = new_place(3)
    assert (s.phase, s.game_no, s.game, s.last_ranks) == (pl.NEW, 0, None, None)
    assert s.points == (0, 0, 0, 0, 0) and s.players == 5 and s.game_count == 3
    assert not s.needs_action


def test_a_place_is_five_players_unless_told_otherwise() -> None:
    s = new_place(50)
    assert s.players == 5 and s.game_count == 50


def test_a_place_needs_three_players_and_a_game() -> None:
    with pytest.raises(ValueError):
        new_place(1, players=2)
    with pytest.raises(ValueError):
        new_place(0)


def test_the_place_starts_then_deals_its_first_game() -> None:
    s, events, d = pl.step(new_place(2), rng_for("p"))
    assert typed(events) == typed([StartPlace()]) and d is None and s.phase == pl.BETWEEN_GAMES
    s, events, d = pl.step(s, rng_for("p"))
    assert typed(events) == typed([StartGame(1)]) and s.phase == pl.IN_GAME and s.game_no == 1
    assert d is not None and s.game is not None
    assert s.game.hands == d.hands and s.game.turn == d.first
    assert s.game.phase == g.READY and s.game.revolution is False
    assert not s.needs_action
    s, events, _ = pl.step(s, rng_for("p"))
    assert typed(events) == typed([StartTurn(d.first, (), False)])
    assert s.needs_action


def test_the_dealer_waits_while_a_turn_is_open() -> None:
    s = new_place(1)
    for _ in range(3):
        s, _, _ = pl.step(s, rng_for("p"))
    assert s.needs_action
    before = s.to_dict()
    with pytest.raises(g.NoTurnOpen):
        pl.step(s, rng_for("p"))
    assert s.to_dict() == before


def test_no_action_is_taken_between_games() -> None:
    s, _, _ = pl.step(new_place(1), rng_for("p"))
    for action in (
        lambda: pl.act(s, 0, []),
        lambda: pl.time_out(s, 0),
        lambda: pl.play_mask(s, 0, 1 << 16),
    ):
        with pytest.raises(g.NoTurnOpen):
            action()


def test_a_finished_place_takes_no_more_steps() -> None:
    s, _, _, _ = drive_place(new_place(1), "done")
    assert s.phase == pl.OVER
    with pytest.raises(ActionError):
        pl.step(s, rng_for("done"))
    with pytest.raises(ActionError):
        pl.act(s, 0, [])


def test_points_are_players_minus_rank() -> None:
    assert [points_for(r, 5) for r in (1, 2, 3, 4, 5)] == [4, 3, 2, 1, 0]


def test_a_place_where_everyone_times_out() -> None:
    s = new_place(2)
    heart_3_holder = None
    order = []
    while s.phase != pl.OVER:
        if s.needs_action:
            order.append((s.game_no, s.game.turn))
            s, result, _ = pl.time_out(s, s.game.turn)
            assert result.outcome == "miss"
        else:
            s, _, d = pl.step(s, rng_for("sleepy"))
            if d is not None and heart_3_holder is None:
                heart_3_holder = d.first
    h = heart_3_holder
    assert h is not None
    # game 1: the heart-3 holder misses first (rank 5), then the next seats; the last one left
    # is 大富豪. Game 2 starts with that game's 大貧民, the heart-3 holder again.
    assert order == [(1, (h + i) % 5) for i in range(4)] + [(2, (h + i) % 5) for i in range(4)]
    expected_ranks = [0] * 5
    for i in range(5):
        expected_ranks[(h + i) % 5] = 5 - i
    assert s.last_ranks == tuple(expected_ranks)
    assert s.points == tuple(2 * (5 - r) for r in expected_ranks)


def test_a_whole_place_adds_up_points_and_follows_the_ranks() -> None:
    s, events, deals, _ = drive_place(new_place(4), "whole")
    assert s.phase == pl.OVER and s.game_no == 4
    games = [e for e in events if isinstance(e, EndGame)]
    assert [e.game_no for e in games] == [1, 2, 3, 4]
    for e in games:
        assert sorted(e.ranks) == [1, 2, 3, 4, 5]
    totals = [sum(points_for(e.ranks[seat], 5) for e in games) for seat in range(5)]
    assert s.points == tuple(totals)
    assert sum(s.points) == 10 * 4
    assert s.last_ranks == games[-1].ranks
    # later games: the exchange is made and the last rank starts
    assert deals[0].exchanges == []
    for prev, d in zip(games, deals[1:], strict=False):
        assert d.hands == exchange(d.dealt, prev.ranks)[0]
        assert d.first == prev.ranks.index(5)


def test_each_game_of_a_place_starts_in_the_normal_order() -> None:
    s = new_place(3)
    while s.phase != pl.OVER:
        if s.needs_action:
            s, _, _ = pl.time_out(s, s.game.turn)
        else:
            s, events, d = pl.step(s, rng_for("order"))
            if d is not None:
                assert s.game.revolution is False


def test_a_place_announces_its_events_in_protocol_order() -> None:
    _, events, _, _ = drive_place(new_place(3), "stream")
    ops = [e.operation for e in events]
    assert ops[0] == "start_place" and ops[-1] == "end_place"
    i = 1
    games = 0
    while ops[i] == "start_game":
        i += 1
        while ops[i] == "start_turn":
            i += 1
            if ops[i] == "end_player":
                i += 1
            assert ops[i] == "end_turn", (i, ops[i])
            i += 1
        assert ops[i] == "end_player", (i, ops[i])
        i += 1
        assert ops[i] == "end_game"
        i += 1
        games += 1
    assert games == 3 and ops[i:] == ["end_place"]
    assert typed(events[-1:]) == typed([EndPlace()])
    # five players get a rank in every game
    assert sum(isinstance(e, EndPlayer) for e in events) == 15


def test_the_same_seed_plays_the_same_place() -> None:
    a = drive_place(new_place(3), "again")
    b = drive_place(new_place(3), "again")
    assert a[0] == b[0] and typed(a[1]) == typed(b[1]) and a[3] == b[3]
    assert [d.hands for d in a[2]] == [d.hands for d in b[2]]


def test_a_place_state_survives_json_and_back() -> None:
    s = new_place(2)
    seen = 0
    while s.phase != pl.OVER:
        back = PlaceState.from_dict(json.loads(json.dumps(s.to_dict())))
        assert back == s and back.to_dict() == s.to_dict()
        seen += 1
        if s.needs_action:
            s, _, _ = pl.time_out(s, s.game.turn)
        else:
            s, _, _ = pl.step(s, rng_for("json"))
    assert PlaceState.from_dict(s.to_dict()) == s
    assert seen > 10


def test_aborting_drops_the_game_in_play_and_keeps_the_finished_ones() -> None:
    s = new_place(3)
    rng = rng_for("abort")
    while s.game_no < 2 or s.phase != pl.IN_GAME:  # game 1 over, game 2 dealt
        if s.needs_action:
            s, _, _ = pl.time_out(s, s.game.turn)
        else:
            s, _, _ = pl.step(s, rng)
    after_one = s.points
    assert sum(after_one) > 0  # game 1 counted
    s, _, _ = pl.step(s, rng)
    s, _, _ = pl.time_out(s, s.game.turn)  # game 2 under way
    stopped, events = pl.abort(s)
    assert typed(events) == typed([EndPlace()])
    assert (stopped.phase, stopped.game_no, stopped.game) == (pl.OVER, 1, None)
    assert stopped.points == after_one and stopped.last_ranks == s.last_ranks
    assert not stopped.needs_action
    with pytest.raises(g.NoTurnOpen):
        pl.abort(stopped)
    with pytest.raises(g.NoTurnOpen):
        pl.step(stopped, rng)


def test_aborting_before_the_first_deal_finishes_no_game() -> None:
    s, _, _ = pl.step(new_place(3), rng_for("abort"))
    stopped, events = pl.abort(s)
    assert (stopped.phase, stopped.game_no, stopped.points) == (pl.OVER, 0, (0,) * 5)
    assert typed(events) == typed([EndPlace()])
