"""Profiles from aggregates kept as games end (issue 28, item 5): the same documents as
reading every game's ranks and turns (``profile_reference``, the read as it was), at a
cost that does not grow with the games played."""

from __future__ import annotations

import random

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from places import services
from places.models import Place, ProfileOpponent, ProfileThink, ProfileTotals
from places.reads.profiles import profile
from places.reads.seats import seats_of
from places.services import house
from places.services.profiles import recount
from tests.conftest import PLAYS_WHOLE_PLACES

from . import profile_reference
from .drive import choose, engine_state
from .test_profiles import place_with_alice

pytestmark = pytest.mark.django_db


def house_place(prefix: str, games: int, rated: bool = False, seed: str = "") -> Place:
    """Five house bots at pace 0: the place is played out when it starts."""
    names = []
    for i, strategy in enumerate(["greedy", "shedder", "random", "greedy", "random"]):
        house.make_house_user(f"{prefix}{i}", strategy)
        names.append(f"{prefix}{i}")
    place = services.create_place(
        prefix, names, game_count=games, pace=0.0, seed=seed or prefix, rated=rated
    )
    services.start_place(place.id)
    return place


def several_places() -> list[str]:
    """Alice in three places (one rated, one still running), against house bots old and new."""
    place_with_alice(games=4)  # alice, h0…h3: a miss, a timeout
    get_user_model().objects.create_user("bob", password="bob-pw")
    running = services.create_place(
        "Running", ["alice", "h0", "h1", "bob", "h3"], game_count=3, pace=0.0, seed="r"
    )
    services.start_place(running.id)
    rng = random.Random(7)
    for _ in range(60):  # alice and bob answer until game 2 is being played
        state = engine_state(running.id)
        if state.game.game_no > 1:
            break
        player = seats_of(running.id)[state.game.turn]
        services.post_cards(running.id, player.user_id, choose(state, rng))
    house_place("r", 3, rated=True)
    return ["alice", "bob", "h0", "h1", "h2", "h3", "r0", "r4", "nobody"]


def documents(names: list[str], read) -> dict:
    return {n: (None if (p := read(n)) is None else p.as_dict()) for n in names}


def test_the_profiles_are_those_every_game_s_records_give():
    names = several_places()
    found = documents(names, profile)
    assert found == documents(names, profile_reference.profile)
    assert found["alice"]["games"] >= 5 and found["alice"]["misses"] == {"DUPLICATE_CARD": 1}
    assert found["r0"]["rating"] is not None and len(found["r0"]["rating_history"]) == 3


def test_added_up_again_from_the_records_they_are_the_same():
    names = several_places()
    before = documents(names, profile)
    ProfileTotals.objects.all().delete()
    ProfileOpponent.objects.all().delete()
    ProfileThink.objects.all().delete()
    recount()  # what the migration does for the games played before it
    assert documents(names, profile) == before


def test_a_place_deleted_takes_its_games_out_of_the_profiles():
    names = several_places()
    Place.objects.filter(title="Profiled").delete()  # the admin's delete: its games go with it
    found = documents(names, profile)
    assert found == documents(names, profile_reference.profile)
    assert found["h2"] is None  # its only place gone, it is no player any more


def profile_queries(name: str) -> list[str]:
    with CaptureQueriesContext(connection) as queries:
        assert profile(name) is not None
    return [q["sql"] for q in queries.captured_queries]


@PLAYS_WHOLE_PLACES
def test_a_profile_reads_no_game_and_as_many_rows_at_20_games_as_at_5():
    house_place("a", 5)
    house_place("b", 20)
    few, many = profile_queries("a0"), profile_queries("b0")
    assert profile("b0").games == 20
    assert len(few) == len(many)
    for table in ("places_turn", "places_rank", "places_game"):
        assert not [q for q in few + many if table in q], f"a profile read {table}"


@pytest.mark.django_db(transaction=True)
def test_the_migration_adds_up_the_games_played_before_it():
    names = several_places()
    made = services.start_practice(get_user_model().objects.get(username="bob").id).place
    before = documents(names, profile_reference.profile)
    call_command("migrate", "places", "0003", verbosity=0)  # the aggregates' tables go
    call_command("migrate", "places", verbosity=0)  # and come back, filled from the records
    assert documents(names, profile) == before
    assert list(Place.objects.filter(practice=True)) == [made]  # marked as /practice's
