"""The same turn posted twice at the same moment is applied once."""

from __future__ import annotations

import threading

import pytest
from django.db import connections
from django.test import Client

from places.models import PlaceEvent
from tests.api.helpers import data, login
from tests.api.test_post_cards import a_safe_single
from tests.timing import guard

pytestmark = pytest.mark.django_db(transaction=True)


def post_together(clients: list[Client], fields: dict) -> list:
    barrier = threading.Barrier(len(clients))
    responses: list = [None] * len(clients)
    errors: list = []

    def run(i: int) -> None:
        try:
            barrier.wait(timeout=10)
            responses[i] = clients[i].post("/post_cards.json", fields)
        except Exception as e:  # reported below: a thread's failure must fail the test
            errors.append(e)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(clients))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=guard(60))
    assert not errors, errors
    return responses


@pytest.mark.parametrize("same_session", [True, False], ids=["one session", "two sessions"])
def test_two_posts_of_one_turn_at_once_apply_once(place, alice, same_session):
    if same_session:
        twin = Client()
        twin.cookies = alice.cookies
    else:
        twin = Client()
        login(twin, "alice", place.id)
    ends_before = PlaceEvent.objects.filter(place=place, operation="end_turn").count()
    responses = post_together([alice, twin], {"card_0": a_safe_single(place)})
    statuses = sorted(r.status_code for r in responses)
    assert statuses == [200, 409], [r.content for r in responses]
    applied = next(r for r in responses if r.status_code == 200)
    refused = next(r for r in responses if r.status_code == 409)
    assert data(applied)["result"] == "play"
    assert data(refused)["error"]["code"] in {"NOT_YOUR_TURN", "NO_TURN_OPEN"}
    assert PlaceEvent.objects.filter(place=place, operation="end_turn").count() == ends_before + 1
