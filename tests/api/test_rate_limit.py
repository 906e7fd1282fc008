"""Requests per session on the player API (``api/rate.py``): 429 ``RATE_LIMITED`` with
``Retry-After`` past the limit, in the route's format, changing nothing; counted in
the shared cache, per session."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.api.helpers import error_json, error_xml, login, session_cookie, snapshot

pytestmark = pytest.mark.django_db

LIMIT = 4


@pytest.fixture(autouse=True)
def small_limit(settings):
    settings.API_RATE_LIMIT, settings.API_RATE_WINDOW = LIMIT, 3600


def player(name: str, place_id: int) -> Client:
    client = Client()
    login(client, name, place_id)
    return client


def test_past_the_limit_a_session_waits_and_changes_nothing(place):
    alice = player("alice", place.id)
    for _ in range(LIMIT):
        assert alice.get("/get_hand.json").status_code == 200
    before = snapshot(place.id)
    response = alice.post("/post_cards.json", {})  # her turn: a pass would count
    assert response.status_code == 429
    error_json("RATE_LIMITED", response)
    assert 0 < int(response["Retry-After"]) <= 3600
    assert snapshot(place.id) == before
    xml = alice.get("/get_place_info.xml")
    assert xml.status_code == 429
    error_xml("RATE_LIMITED", xml)
    assert alice.get("/operations").status_code == 429  # the manual-play page too


def test_another_session_is_not_held_back(place):
    alice = player("alice", place.id)
    for _ in range(LIMIT + 1):
        alice.get("/get_hand.json")
    assert alice.get("/get_hand.json").status_code == 429
    bob = player("bob", place.id)
    assert bob.get("/get_hand.json").status_code == 200


def test_one_session_counts_once_whichever_client_sends_it(place):
    """Two connections (two processes, behind nginx) with one cookie share one count."""
    alice = player("alice", place.id)
    other = Client()
    other.cookies["sessionid"] = session_cookie(alice)
    for i in range(LIMIT):
        assert (alice if i % 2 else other).get("/get_hand.json").status_code == 200
    assert other.get("/get_hand.json").status_code == 429


def test_zero_turns_the_limit_off(place, settings):
    settings.API_RATE_LIMIT = 0
    alice = player("alice", place.id)
    assert all(alice.get("/get_hand.json").status_code == 200 for _ in range(3 * LIMIT))


def test_logging_in_is_not_counted(place):
    for _ in range(LIMIT + 2):
        player("alice", place.id)  # the login limits (api/throttle.py) govern these
