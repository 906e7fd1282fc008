"""GET /places/ID/state.json: where the live page starts; hands only for staff."""

from __future__ import annotations

import json

import pytest

from daifugo.cards import format_card
from places.models import Place
from places.reads import documents, seats
from tests.pages.conftest import NAMES, player_client

pytestmark = pytest.mark.django_db


def snapshot(client, place_id: int) -> dict:
    response = client.get(f"/places/{place_id}/state.json")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert "no-cache" in response["Cache-Control"]
    return json.loads(response.content)


def test_it_describes_the_running_place_at_the_last_event(client, place):
    doc = snapshot(client, place.id)
    assert doc["last_seq"] == Place.objects.get(pk=place.id).event_seq > 0
    assert doc["place"] == {
        "id": place.id,
        "title": "Page place",
        "state": "running",
        "game_count": 3,
        "pace": 0.0,
        "time_limit": 120.0,
        "time_bank": 0.0,
    }
    assert doc["game_no"] == 1
    assert doc["phase"] == "in_game"
    assert [s["name"] for s in doc["seats"]] == [s.name for s in seats.seats_of(place.id)]
    assert sorted(s["cards"] for s in doc["seats"]) == [10, 11, 11, 11, 11]
    assert doc["turn"] == "alice"  # she holds the heart 3
    assert doc["turn_deadline"] is not None
    assert doc["table"] == []
    assert doc["order"] == "Nomal"


def test_it_shows_no_hand_to_a_spectator(client, place):
    doc = snapshot(client, place.id)
    assert "hands" not in doc
    assert doc["staff"] is False


def test_it_shows_no_hand_to_a_player_either(place):
    alice = player_client("alice", place.id)
    doc = snapshot(alice, place.id)
    assert "hands" not in doc
    text = json.dumps(doc)
    alice_id = next(s.user_id for s in seats.seats_of(place.id) if s.name == "alice")
    written = {format_card(c) for c in documents.hand_ids(place.id, alice_id)}
    assert not any(f'"{w}"' in text for w in written)  # no card written anywhere
    assert all(isinstance(s["cards"], int) for s in doc["seats"])  # counts, not cards


def test_it_shows_no_hand_to_a_logged_in_user_who_is_not_staff(pat_client, place):
    assert "hands" not in snapshot(pat_client, place.id)


def test_it_shows_every_hand_to_staff(staff_client, place):
    doc = snapshot(staff_client, place.id)
    assert doc["staff"] is True
    hands = doc["hands"]
    assert len(hands) == 5
    assert [len(h) for h in hands] == [s["cards"] for s in doc["seats"]]
    assert sorted(c for h in hands for c in h) == list(range(1, 55))


def test_a_waiting_place_has_seats_and_no_game(client, make_place):
    waiting = make_place(start=False)
    doc = snapshot(client, waiting.id)
    assert doc["place"]["state"] == "waiting"
    assert doc["last_seq"] == 0
    assert doc["game_no"] == 0
    assert doc["turn"] is None
    assert [s["name"] for s in doc["seats"]] == list(s.name for s in seats.seats_of(waiting.id))
    assert {s["cards"] for s in doc["seats"]} == {0}


def test_a_finished_place_has_its_points_and_rank_counts(client, finished_place):
    doc = snapshot(client, finished_place.id)
    assert doc["place"]["state"] == "finished"
    assert doc["phase"] == "over"
    assert doc["games_finished"] == 3
    assert sum(s["points"] for s in doc["seats"]) == 3 * (4 + 3 + 2 + 1 + 0)
    for s in doc["seats"]:
        assert sum(s["rank_counts"]) == 3
        assert s["last_rank"] in range(1, 6)
    assert set(NAMES) == {s["name"] for s in doc["seats"]}


def test_an_unknown_place_is_a_json_404(client, db):
    response = client.get("/places/999999/state.json")
    assert response.status_code == 404
    assert json.loads(response.content)["error"]["code"] == "NOT_FOUND"


def test_reading_it_changes_nothing(client, staff_client, place):
    before = Place.objects.get(pk=place.id)
    for c in (client, staff_client):
        snapshot(c, place.id)
    after = Place.objects.get(pk=place.id)
    assert (after.event_seq, after.engine_state) == (before.event_seq, before.engine_state)
