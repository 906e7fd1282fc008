"""Fixtures for places: five named players (Alice … Eve) and places made for them."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from places import services

NAMES = ("alice", "bob", "charlie", "dave", "eve")


@pytest.fixture
def users(db):
    model = get_user_model()
    return [model.objects.create_user(name, password=f"{name}-pw") for name in NAMES]


@pytest.fixture
def make_place(users):
    def make(**kwargs):
        kwargs.setdefault("game_count", 3)
        kwargs.setdefault("pace", 0)
        kwargs.setdefault("seed", "fixed")
        return services.create_place("Test place", NAMES, **kwargs)

    return make
