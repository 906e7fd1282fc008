"""House bots: seats the server plays itself, each move in a change of its own right after
the change that opens their turn (``tests/places/test_house_turns.py``: how long each holds)."""

from __future__ import annotations

import json
import logging
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model

from bots.strategies import STRATEGIES, greedy_player
from daifugo.cards import format_card, sorted_ids
from daifugo.record_schema import schema_errors
from daifugo.replay import Replayed, replay_records
from daifugo.view import answer_2011
from places import errors, services
from places.models import HouseBot, Place, PlaceEvent, Turn
from places.reads import records, seats
from places.services import house

from .drive import engine_state

pytestmark = pytest.mark.django_db

HOUSE = ["greedy", "shedder", "random", "greedy", "shedder"]


def house_place(strategies=HOUSE, *, wire=(), pace=0.0, games=3, seed="house") -> Place:
    """A place of house bots of ``strategies`` (and wire players named in ``wire``, in front)."""
    names = list(wire)
    for i, strategy in enumerate(strategies):
        house.make_house_user(f"h{i}-{strategy}", strategy)
        names.append(f"h{i}-{strategy}")
    for name in wire:
        get_user_model().objects.create_user(name, password=f"{name}-pw")
    return services.create_place("House", names, game_count=games, pace=pace, seed=seed)


def turns(place: Place) -> list[Turn]:
    return list(Turn.objects.filter(game__place=place).order_by("game__no", "no"))


def events(place: Place) -> list[dict]:
    return [
        json.loads(m)
        for m in PlaceEvent.objects.filter(place=place).values_list("message", flat=True)
    ]


def test_five_house_bots_at_pace_0_play_a_whole_place_in_one_start_place():
    place = house_place(games=5)
    services.start_place(place.id)
    place.refresh_from_db()
    assert place.state == Place.State.FINISHED
    assert place.games.filter(status=1).count() == 5
    assert [e["operation"] for e in events(place)][-1] == "end_place"
    assert all(t.outcome in ("play", "pass") for t in turns(place))  # no timeouts, no misses


def test_a_house_play_records_the_cards_it_wrote():
    place = house_place(games=1)
    services.start_place(place.id)
    played = [t for t in turns(place) if t.outcome == "play"]
    assert played
    for t in played:
        assert t.submitted == [format_card(c) for c in t.cards]
        assert t.settled_at is not None
    assert all(t.submitted == [] for t in turns(place) if t.outcome == "pass")


def test_the_house_plays_on_within_a_players_post_until_the_player_must_act_again():
    place = house_place(HOUSE[:4], wire=["alice"], games=2)
    services.start_place(place.id)
    alice = seats.seats_of(place.id)[0]
    for _ in range(200):
        place.refresh_from_db()
        if place.state == Place.State.FINISHED:
            break
        state = engine_state(place.id)
        # after each change only alice can be waited for: the house never leaves a turn open
        assert state.needs_action and state.game.turn == alice.no
        hand = state.game.hands[alice.no]
        choice = answer_2011(greedy_player(), hand, state.game.table, state.game.revolution)
        cards = [] if choice is None else [format_card(c) for c in sorted_ids(choice)]
        services.post_cards(place.id, alice.user_id, cards)
    assert place.state == Place.State.FINISHED
    open_turns = [t for t in turns(place) if not t.outcome]
    assert open_turns == []


def test_at_a_positive_pace_each_step_shows_one_house_move_and_the_next_waits_for_the_pace():
    place = house_place(pace=1.0, games=1)
    services.start_place(place.id)
    place.refresh_from_db()
    assert [e["operation"] for e in events(place)] == ["start_place"]
    moves = 0
    for _ in range(500):
        place.refresh_from_db()
        if place.state == Place.State.FINISHED:
            break
        due = place.next_step_at
        assert due is not None and place.turn_deadline is None  # never a house turn left open
        before = len(events(place))
        assert services.run_due(place.id, now=due)
        new = [e["operation"] for e in events(place)[before:]]
        assert new.count("end_turn") <= 1
        if "start_turn" in new:
            assert "end_turn" in new[new.index("start_turn") :]  # opened and settled at once
            moves += 1
    assert place.state == Place.State.FINISHED
    assert moves == len(turns(place))


def test_a_step_that_is_not_yet_due_moves_nothing():
    place = house_place(pace=5.0, games=1)
    services.start_place(place.id)
    place.refresh_from_db()
    assert not services.run_due(place.id, now=place.next_step_at - timedelta(seconds=1))


def test_a_strategy_that_raises_is_a_miss_for_its_seat_and_the_place_goes_on(monkeypatch, caplog):
    def broken(seed=None):
        def choose(view):
            raise RuntimeError("the strategy fell over")

        return choose

    monkeypatch.setitem(STRATEGIES, "broken", broken)
    place = house_place(["greedy", "greedy", "broken", "greedy", "greedy"], games=2)
    with caplog.at_level(logging.ERROR, logger="places.services.house"):
        services.start_place(place.id)
    place.refresh_from_db()
    assert place.state == Place.State.FINISHED
    broken_turns = [t for t in turns(place) if t.player.seat == 2]
    assert broken_turns and all(t.outcome == "timeout" for t in broken_turns)
    assert all(t.reason == "TIMEOUT" and t.submitted == [] for t in broken_turns)
    assert {r.rank for r in place.games.first().ranks.filter(player__seat=2)} == {5}
    assert "the strategy fell over" in caplog.text


@pytest.mark.parametrize("answer", ["2-3", 1.5, -1, 1 << 60, True])
def test_a_strategy_that_answers_no_card_mask_is_a_miss(monkeypatch, caplog, answer):
    monkeypatch.setitem(STRATEGIES, "odd", lambda seed=None: lambda view: answer)
    place = house_place(["odd", "greedy", "greedy", "greedy", "greedy"], games=1)
    with caplog.at_level(logging.ERROR, logger="places.services.house"):
        services.start_place(place.id)
    odd = [t for t in turns(place) if t.player.seat == 0]
    assert [t.outcome for t in odd] == ["timeout"]
    assert "not a card mask" in caplog.text


def test_a_strategy_that_plays_cards_it_does_not_hold_misses_as_a_player_would(monkeypatch):
    monkeypatch.setitem(STRATEGIES, "cheat", lambda seed=None: lambda view: (1 << 54) | (1 << 53))
    place = house_place(["greedy", "cheat", "greedy", "greedy", "greedy"], games=1)
    services.start_place(place.id)
    cheat = [t for t in turns(place) if t.player.seat == 1]
    assert cheat and cheat[-1].outcome == "miss"
    assert cheat[-1].reason  # the engine's judgement, as for a post


def test_a_seeded_place_of_house_bots_plays_the_same_moves_every_time():
    first = house_place(["random"] * 5, games=2, seed="again")
    names = [p.name for p in first.players.order_by("seat")]
    second = services.create_place("Again", names, game_count=2, pace=0, seed="again")
    services.start_place(first.id)
    services.start_place(second.id)
    moves = [(t.player.seat, t.submitted, t.outcome) for t in turns(first)]
    assert any(outcome == "pass" for _, _, outcome in moves)  # the random bots chose
    assert [(t.player.seat, t.submitted, t.outcome) for t in turns(second)] == moves


def test_the_turn_seed_depends_on_the_place_seed_the_game_and_the_turn():
    assert house.turn_seed("", 1, 1) is None
    seeds = {house.turn_seed("s", g, t) for g in (1, 2) for t in (1, 2)}
    assert len(seeds) == 4
    assert house.turn_seed("s", 1, 1) == house.turn_seed("s", 1, 1)
    assert house.turn_seed("t", 1, 1) != house.turn_seed("s", 1, 1)


# -- house users ---------------------------------------------------------------------------


def test_a_house_user_has_no_usable_password_and_its_seat_names_its_strategy():
    user, created = house.make_house_user("housey", "shedder")
    assert created and not user.has_usable_password()
    place = house_place()
    names = [p.name for p in place.players.order_by("seat")]
    services.reseat_place(place.id, ["housey", *names[1:]])
    assert [s.house for s in seats.seats_of(place.id)] == ["shedder", *HOUSE[1:]]


def test_an_unknown_strategy_is_refused_and_makes_no_user():
    with pytest.raises(errors.Refused) as e:
        house.make_house_user("nobody", "grandmaster")
    assert e.value.code == "UNKNOWN_STRATEGY"
    assert not get_user_model().objects.filter(username="nobody").exists()


def test_a_wire_user_made_house_loses_its_password_and_a_password_makes_it_wire_again():
    get_user_model().objects.create_user("wendy", password="wendy-pw")
    user, created = house.make_house_user("wendy", "random")
    assert not created and not user.has_usable_password()
    assert HouseBot.objects.get(user=user).strategy == "random"
    user, created = house.make_wire_user("wendy", "new-pw")
    assert user.check_password("new-pw")
    assert not HouseBot.objects.filter(user=user).exists()


def test_house_users_are_made_on_demand_and_reused():
    first = house.house_users("greedy", 2)
    assert [u.username for u in first] == ["house-greedy-1", "house-greedy-2"]
    again = house.house_users("greedy", 3)
    assert [u.username for u in again] == ["house-greedy-1", "house-greedy-2", "house-greedy-3"]
    assert [u.pk for u in again[:2]] == [u.pk for u in first]


def test_house_users_pass_over_a_name_a_wire_user_holds():
    get_user_model().objects.create_user("house-random-1", password="x")
    made = house.house_users("random", 1)
    assert [u.username for u in made] == ["house-random-2"]
    assert get_user_model().objects.get(username="house-random-1").check_password("x")


def test_the_records_of_a_house_place_are_complete_replays_of_it(monkeypatch):
    """What the house wrote is in the record: every game replays through the engine."""

    def broken(seed=None):
        def choose(view):
            raise RuntimeError("no answer")

        return choose

    monkeypatch.setitem(STRATEGIES, "broken", broken)
    place = house_place(["random", "shedder", "broken", "greedy", "random"], games=3)
    services.start_place(place.id)
    place.refresh_from_db()
    records_list = list(records.place_records(place.id))
    assert len(records_list) == 3
    for record in records_list:
        assert schema_errors(record) == []
    verdicts = {a["verdict"] for r in records_list for a in r["actions"]}
    assert {"play", "pass", "timeout"} <= verdicts  # the broken seat timed out
    replayed = list(replay_records(records_list))
    assert all(isinstance(r, Replayed) for r in replayed), [str(r) for r in replayed]
    for r, record in zip(replayed, records_list, strict=True):
        assert list(r.ranks) == record["ranks"]


def test_a_stock_house_user_is_made_but_seats_in_no_2011_place():
    """``stock`` is a UECda strategy alone: its house user exists for UECda places, and a
    2011 place refuses it by name (its turns would only time out)."""
    user, created = house.make_house_user("h-stock", "stock")
    assert created and HouseBot.objects.get(user=user).strategy == "stock"
    names = ["h-stock"]
    for i in range(4):
        house.make_house_user(f"h{i}", "greedy")
        names.append(f"h{i}")
    with pytest.raises(errors.Refused) as e:
        services.create_place("House", names, game_count=1, pace=0)
    assert e.value.code == errors.UNKNOWN_STRATEGY
    assert "no house strategy 'stock' (it plays the uecda rules" in e.value.message
    assert not Place.objects.exists()
    with pytest.raises(errors.Refused) as e:
        house.make_house_user("h-chess", "chess")
    assert e.value.code == errors.UNKNOWN_STRATEGY
