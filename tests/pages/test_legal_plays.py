"""GET /operations/legal_plays.json: the player's own hand and the plays the engine accepts."""

from __future__ import annotations

import json

import pytest

from daifugo.cards import format_card, mask_of, sorted_ids
from daifugo.legal import legal_plays
from places import services
from places.models import Place
from places.reads import documents, seats
from places.reads.position import state_of
from tests.pages.conftest import player_client

pytestmark = pytest.mark.django_db


def doc(client) -> dict:
    response = client.get("/operations/legal_plays.json")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json; charset=utf-8"
    assert "no-cache" in response["Cache-Control"]
    return json.loads(response.content)


def hand_of(place_id: int, name: str) -> list[str]:
    user_id = next(s.user_id for s in seats.seats_of(place_id) if s.name == name)
    return [format_card(c) for c in documents.hand_ids(place_id, user_id)]


def test_it_needs_a_player_session(client, place):
    response = client.get("/operations/legal_plays.json")
    assert response.status_code == 401
    assert json.loads(response.content)["error"]["code"] == "NOT_LOGGED_IN"


def test_staff_without_a_seat_get_nothing(staff_client, place):
    assert staff_client.get("/operations/legal_plays.json").status_code == 401


def test_alice_leading_gets_her_hand_and_every_lead(place):
    d = doc(player_client("alice", place.id))
    assert d["my_turn"] is True
    assert d["can_pass"] is False
    assert d["table"] == []
    assert d["hand"] == hand_of(place.id, "alice")
    state = state_of(Place.objects.get(pk=place.id))
    hand = state.game.hands[state.game.turn]
    expected = {tuple(format_card(c) for c in p.cards) for p in legal_plays(hand, None, False)}
    assert {tuple(p) for p in d["plays"]} == expected
    assert len(d["plays"]) == len(expected)  # each written play once
    assert ["2-3"] in d["plays"]  # she holds the heart 3


def test_bob_waiting_sees_his_own_hand_not_alices(place):
    d = doc(player_client("bob", place.id))
    assert d["my_turn"] is False
    assert d["turn_open"] is True
    assert d["hand"] == hand_of(place.id, "bob")
    assert d["hand"] != hand_of(place.id, "alice")


def test_plays_against_the_table_follow_its_kind_and_strength(place):
    alice = player_client("alice", place.id)
    services.post_cards(place.id, _user(place.id, "alice"), ["2-3"])
    state = state_of(Place.objects.get(pk=place.id))
    if not state.needs_action:  # pace 0: the next turn is already open
        services.next_turn(place.id)
        state = state_of(Place.objects.get(pk=place.id))
    turn_name = seats.seats_of(place.id)[state.game.turn].name
    d = doc(player_client(turn_name, place.id))
    assert d["my_turn"] is True
    assert d["table"] == ["2-3"]
    assert d["can_pass"] is True
    hand = mask_of(_ids(d["hand"], state.game.hands[state.game.turn]))
    expected = {
        tuple(format_card(c) for c in p.cards)
        for p in legal_plays(hand, state.game.table, state.game.revolution)
    }
    assert {tuple(p) for p in d["plays"]} == expected
    assert all(len(p) == 1 for p in d["plays"])  # singles only, as on the table
    assert doc(alice)["my_turn"] is False


def test_a_waiting_place_has_no_plays(make_place):
    waiting = make_place(start=False)
    d = doc(player_client("alice", waiting.id))
    assert (d["hand"], d["plays"], d["my_turn"]) == ([], [], False)


def test_reading_it_changes_nothing(place):
    before = Place.objects.get(pk=place.id)
    doc(player_client("alice", place.id))
    after = Place.objects.get(pk=place.id)
    assert (after.event_seq, after.engine_state) == (before.event_seq, before.engine_state)


def _user(place_id: int, name: str) -> int:
    return next(s.user_id for s in seats.seats_of(place_id) if s.name == name)


def _ids(written: list[str], mask: int) -> list[int]:
    ids = sorted_ids(mask)
    assert [format_card(c) for c in ids] == written
    return ids
