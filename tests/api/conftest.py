"""Fixtures of the player API tests.

Alice is the player: in ``place`` she sits where the first game's heart 3 is
dealt, so the first turn is hers; Bob sits after her. ``other_place`` is
played by five other users (Frank … Judy), none of them in ``place``.
"""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from daifugo.deal import game_rng
from daifugo.place import make_deal
from places import services
from places.reads import seats
from tests.api.helpers import login
from tests.conftest import clear_cache

NAMES = ("alice", "bob", "charlie", "dave", "eve")
OTHERS = ("frank", "grace", "heidi", "ivan", "judy")
SEED = "fixed"


def seating(names=NAMES, seed: str = SEED) -> list[str]:
    """``names`` in seat order such that ``names[0]`` leads the first game and names[1] follows."""
    first = make_deal(game_rng(seed, 1), len(names), None).first
    seats = [""] * len(names)
    for i, name in enumerate(names):
        seats[(first + i) % len(names)] = name
    return seats


@pytest.fixture(autouse=True)
def _fresh_caches():
    # services caches seats by place id; ids come back after a rolled-back test
    seats.forget()
    clear_cache()  # the failed-login counts
    yield
    seats.forget()
    clear_cache()


@pytest.fixture
def users(db):
    model = get_user_model()
    return {name: model.objects.create_user(name, password=f"{name}-pw") for name in NAMES + OTHERS}


def _make(title: str, names, **kwargs):
    kwargs.setdefault("game_count", 3)
    kwargs.setdefault("pace", 0)
    kwargs.setdefault("time_limit", 120.0)
    kwargs.setdefault("seed", SEED)
    return services.create_place(title, seating(names, kwargs["seed"]), **kwargs)


@pytest.fixture
def make_place(users):
    def make(names=NAMES, start: bool = True, **kwargs):
        place = _make("API place", names, **kwargs)
        if start:
            services.start_place(place.id)
        return place

    return make


@pytest.fixture
def place(make_place):
    """A running place whose first turn, Alice's, is open."""
    return make_place()


@pytest.fixture
def waiting_place(make_place):
    """A place that has not started: no hands, no turn."""
    return make_place(start=False)


@pytest.fixture
def other_place(make_place):
    return make_place(OTHERS)


def _client_for(name: str, place_id: int) -> Client:
    client = Client()
    login(client, name, place_id)
    return client


@pytest.fixture
def alice(place) -> Client:
    return _client_for("alice", place.id)


@pytest.fixture
def bob(place) -> Client:
    return _client_for("bob", place.id)


@pytest.fixture
def frank(other_place) -> Client:
    return _client_for("frank", other_place.id)
