"""Many users asking at once for one game's analysis (issue 44, item 5): one job, and every
one of them answered. On PostgreSQL a lock on the analysis's row locked nothing while it did
not exist yet: 2 to 17 of twelve asks were answered 500 (``IntegrityError`` on
``places_gameanalysis_game_id_key``). SQLite writes one transaction at a time and never
raced, so this runs on PostgreSQL only (``DATABASE_URL``)."""

from __future__ import annotations

import threading
from collections import Counter

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client

from places import services
from places.models import GameAnalysis
from tests.needs import need

from .drive import play_out

pytestmark = pytest.mark.django_db(transaction=True)

ASKERS = 12


@pytest.fixture(autouse=True)
def only_on_postgresql():
    need("postgresql")  # SQLite's transactions never overlap


@pytest.mark.parametrize("repeat", range(3))
def test_twelve_users_asking_at_once_for_one_game_get_one_job_and_no_error(
    make_place, settings, repeat
):
    settings.ANALYSES_UNDER_WAY_PER_ADDRESS = ASKERS  # each from an address of its own anyway
    place = make_place(game_count=1, seed=f"ask-race-{repeat}")
    services.start_place(place.id)
    play_out(place.id)
    model = get_user_model()
    clients = []
    for i in range(ASKERS):
        client = Client(REMOTE_ADDR=f"192.0.2.{i + 1}", raise_request_exception=False)
        client.force_login(model.objects.create_user(f"asker-{repeat}-{i}", password="pw-12345"))
        clients.append(client)
    url = f"/places/{place.id}/games/1/analysis.json"
    barrier = threading.Barrier(ASKERS)
    statuses: list[int] = [0] * ASKERS

    def ask(i: int) -> None:
        try:
            barrier.wait()
            statuses[i] = clients[i].post(url).status_code
        finally:
            connection.close()

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(ASKERS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    print("answers:", dict(Counter(statuses)))
    assert statuses == [202] * ASKERS  # the one job, queued, answered to each
    (job,) = GameAnalysis.objects.filter(game__place=place)
    assert job.state == GameAnalysis.State.QUEUED
    assert job.requested_by.username.startswith(f"asker-{repeat}-")
