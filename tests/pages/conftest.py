"""Fixtures of the page tests: five players (Alice … Eve), Sam of the staff, and Pat, who only watches.

``place`` is running with Alice's first turn open (the seats are ordered so
that she holds the heart 3); ``finished_place`` has played its three games.
"""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from places import services
from places.reads import seats
from tests.api.conftest import seating
from tests.places.drive import play_out

NAMES = ("alice", "bob", "charlie", "dave", "eve")


@pytest.fixture(autouse=True)
def _fresh_seats():
    seats.forget()  # ids come back after a rolled-back test
    yield
    seats.forget()


@pytest.fixture
def users(db):
    model = get_user_model()
    made = {name: model.objects.create_user(name, password=f"{name}-pw") for name in NAMES}
    made["sam"] = model.objects.create_user("sam", password="sam-pw", is_staff=True)
    made["pat"] = model.objects.create_user("pat", password="pat-pw")
    return made


@pytest.fixture
def make_place(users):
    def make(start: bool = True, title: str = "Page place", **kwargs):
        kwargs.setdefault("game_count", 3)
        kwargs.setdefault("pace", 0)
        kwargs.setdefault("time_limit", 120.0)
        kwargs.setdefault("seed", "fixed")
        place = services.create_place(title, seating(NAMES, kwargs["seed"]), **kwargs)
        if start:
            services.start_place(place.id)
        place.refresh_from_db()
        return place

    return make


@pytest.fixture
def place(make_place):
    return make_place()


@pytest.fixture
def finished_place(make_place):
    place = make_place(title="Done")
    play_out(place.id, seed=3)
    place.refresh_from_db()
    return place


@pytest.fixture
def staff_client(users) -> Client:
    client = Client()
    client.force_login(users["sam"])
    return client


@pytest.fixture
def pat_client(users) -> Client:
    client = Client()
    client.force_login(users["pat"])
    return client


def player_client(name: str, place_id: int) -> Client:
    """A client logged in as a player, the way a browser does it (POST /sessions)."""
    client = Client()
    response = client.post(
        "/sessions", {"name": name, "password": f"{name}-pw", "place_id": place_id}
    )
    assert response.status_code == 302
    return client


@pytest.fixture(scope="module")
def browser(server):
    """Debian's Chromium for a browser test module, once its ``server`` is up (each such
    module starts its own server)."""
    from playwright.sync_api import sync_playwright

    from tests.pages.browser import launch

    with sync_playwright() as p:
        b = launch(p)
        yield b
        b.close()
