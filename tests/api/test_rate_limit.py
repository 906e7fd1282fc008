"""Requests per session and per user on the player API (``api/rate.py``): 429
``RATE_LIMITED`` with ``Retry-After`` past the limit, in the route's format, changing
nothing; counted in the shared cache, per session and per user, and in the process's own
memory while Redis does not answer (``api/counts.py``)."""

from __future__ import annotations

import logging
import socket

import pytest
from django.test import Client

from api import counts
from places import metrics
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


def test_logging_in_again_buys_no_fresh_budget(place, settings):
    """A user's sessions count together too: a login is not limited when it succeeds, and
    the old session stays valid."""
    settings.API_USER_RATE_LIMIT = LIMIT + 2
    first = player("alice", place.id)
    for _ in range(LIMIT):
        assert first.get("/get_hand.json").status_code == 200  # its session's limit reached
    second = player("alice", place.id)
    answers = [second.get("/get_hand.json") for _ in range(LIMIT)]
    assert [a.status_code for a in answers] == [200, 200, 429, 429]  # 4 + 2: the user's limit
    error_json("RATE_LIMITED", answers[-1])
    assert "this player's sessions" in answers[-1].json()["error"]["message"]
    assert player("bob", place.id).get("/get_hand.json").status_code == 200


# -- Redis not answering (api/counts.py) -------------------------------------------------------


@pytest.fixture
def redis_down(settings, monkeypatch):
    """The cache on a Redis that does not answer (nothing listens on its port)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: connections are refused
    shared = settings.CACHES
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": f"redis://127.0.0.1:{port}/0",
            "OPTIONS": {"socket_timeout": 1, "socket_connect_timeout": 1},
        }
    }
    monkeypatch.setattr(counts, "_shared_down_until", 0.0)  # restored after the test
    yield
    settings.CACHES = shared  # before the other fixtures clear the cache
    counts._local.clear()


def unshared(limit: str) -> float:
    return (
        metrics.REGISTRY.get_sample_value("daihinmin_limits_unshared_total", {"limit": limit}) or 0
    )


def test_with_redis_down_a_player_is_answered_and_still_limited(place, redis_down, caplog):
    alice = player("alice", place.id)
    before = unshared("api-rate")
    with caplog.at_level(logging.WARNING, logger="api.counts"):
        answers = [alice.get("/get_hand.json").status_code for _ in range(LIMIT + 1)]
    assert answers == [200] * LIMIT + [429]  # counted in this process meanwhile
    assert unshared("api-rate") == before + LIMIT + 1
    assert caplog.text.count("does not answer") == 1  # once an outage, not once a request


def test_with_redis_down_logins_go_on_and_guessing_is_still_limited(place, redis_down, settings):
    settings.LOGIN_FAILURE_LIMIT = 2
    before = unshared("login")
    assert player("alice", place.id).get("/get_hand.json").status_code == 200
    guesses = [
        Client().post("/sessions.json", {"name": "bob", "password": "x", "place_id": place.id})
        for _ in range(3)
    ]
    assert [g.status_code for g in guesses] == [401, 401, 429]
    assert unshared("login") > before
