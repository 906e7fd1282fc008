"""Liveness, readiness and the metrics of ``places/views/health.py``."""

import asyncio
import time

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import override_settings

from places import metrics, services
from places.metrics import REGISTRY
from places.services import house
from tests.places.drive import play_out


@pytest.mark.django_db
def test_home_page(client):
    response = client.get("/")
    assert response.status_code == 200
    body = response.content.decode()
    assert "daihinmin" in body
    assert "no places yet" in body


def test_livez_touches_nothing(client):
    response = client.get("/livez")  # no database: this test may not reach it
    assert response.status_code == 200 and response.json() == {"status": "ok"}


@pytest.mark.django_db
def test_healthz_ok(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    expected = {"status": "ok", "database": "ok"}
    if settings.REDIS_URL:  # CI's second step: the processes share Redis
        expected["redis"] = "ok"
    assert response.json() == expected
    assert "no-cache" in response["Cache-Control"]


@pytest.mark.django_db
def test_healthz_database_down(client, monkeypatch):
    from django.db import connection

    def broken_cursor(*args, **kwargs):
        raise RuntimeError("database is down")

    monkeypatch.setattr(connection, "cursor", broken_cursor)
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["status"] == "error"
    assert response.json()["database"] == "error: RuntimeError"


@pytest.mark.django_db
@override_settings(REDIS_URL="redis://127.0.0.1:1/0")  # nothing listens there
def test_healthz_redis_down(client):
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["database"] == "ok"
    assert response.json()["redis"].startswith("error: ")


def value(name: str, **labels) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def house_place(games: int = 2):
    names = [f"m{i}" for i in range(5)]
    for n in names:
        house.make_house_user(n, "greedy")
    return services.create_place("Metrics", names, game_count=games, pace=0, seed="m")


@pytest.mark.django_db(transaction=True)  # the counters move after commit
@override_settings(DEBUG=False)
def test_metrics_count_the_turns_of_a_place_for_staff(admin_client):
    before = {o: value("daihinmin_turns_total", outcome=o) for o in ("play", "pass")}
    events_before = value("daihinmin_events_sent_total")
    place = house_place()
    services.start_place(place.id)
    turns = place.games.model.objects.filter(place=place).values_list("turns__outcome", flat=True)
    counts = {o: list(turns).count(o) for o in ("play", "pass")}
    assert counts["play"] > 0
    response = admin_client.get("/metrics")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain")
    text = response.content.decode()
    for o in ("play", "pass"):
        assert value("daihinmin_turns_total", outcome=o) - before[o] == counts[o]
        assert f'daihinmin_turns_total{{outcome="{o}"}}' in text
    place.refresh_from_db()
    assert value("daihinmin_events_sent_total") - events_before == place.event_seq
    assert "daihinmin_places_running 0.0" in text
    assert "daihinmin_open_sockets 0.0" in text
    for name in ("daihinmin_post_seconds_bucket", "daihinmin_dealer_lag_seconds_bucket"):
        assert name in text


@pytest.mark.django_db
@override_settings(DEBUG=False, METRICS_TOKEN="s3cret")
def test_metrics_are_for_staff_or_the_token_only(client):
    refused = client.get("/metrics")
    assert refused.status_code == 403
    assert refused.json()["error"]["code"] == "STAFF_ONLY"
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer wrong").status_code == 403
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer s3cret").status_code == 200


@pytest.mark.django_db
@override_settings(METRICS_TOKEN="")
def test_an_empty_token_opens_nothing(client):
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer ").status_code == 403


@pytest.mark.django_db(transaction=True)
def test_a_post_is_timed(client):
    before = value("daihinmin_post_seconds_count")
    names = ["p1", "p2", "p3", "p4", "p5"]
    for n in names:
        get_user_model().objects.create_user(n, password="pw")
    place = services.create_place("Posts", names, game_count=1, pace=0, seed="p")
    services.start_place(place.id)
    posts = play_out(place.id)
    assert value("daihinmin_post_seconds_count") - before == posts


async def test_a_busy_loop_shows_in_the_loop_lag():
    probe = metrics.watch_loop_lag()
    try:
        assert probe is not None and metrics.watch_loop_lag() is None  # once per loop
        count, total = (
            value("daihinmin_loop_lag_seconds_count"),
            value("daihinmin_loop_lag_seconds_sum"),
        )
        await asyncio.sleep(0)  # the probe asks for its timer
        time.sleep(metrics.LAG_PROBE_SECONDS + 0.2)  # the loop held by a callback
        while value("daihinmin_loop_lag_seconds_count") == count:
            await asyncio.sleep(0.01)
        assert value("daihinmin_loop_lag_seconds_sum") - total >= 0.2
    finally:
        probe.cancel()
