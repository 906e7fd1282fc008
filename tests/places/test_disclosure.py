"""Who reads what of a place, and when (places/reads/disclosure.py, docs/records.md): a deal
that another place with the same seed has still to play is held back from all but staff
(its record, the seed, a finished place's event log), on every route that shows them."""

from __future__ import annotations

import json
import re
from io import StringIO

import pytest
from asgiref.sync import async_to_sync
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client

from places import errors, services
from places.models import Place
from places.reads.disclosure import disclosure
from places.reads.records import game_record, place_records
from places.services.tournaments import table_seed

from .drive import play_out
from .test_records import play_until
from .test_tournament_secrecy import drained

pytestmark = pytest.mark.django_db


@pytest.fixture
def twins(make_place) -> tuple[Place, Place]:
    """Two places dealt by one seed: the first played out, the second in its second game."""
    first = make_place(game_count=2, seed="twin")
    second = make_place(game_count=2, seed="twin", pace=None)
    services.start_place(first.id)
    play_out(first.id)
    services.start_place(second.id)
    play_until(second.id, 2)
    return first, second


@pytest.fixture
def staff_client(db) -> Client:
    client = Client()
    client.force_login(get_user_model().objects.create_superuser("boss", password="boss-pw"))
    return client


def exported(*args: str) -> list[dict]:
    out = StringIO()
    call_command("export_records", *args, stdout=out)
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_a_deal_another_place_still_plays_is_held_back_on_every_route(client, twins):
    first, second = twins
    base = f"/places/{first.id}"
    assert client.get(f"{base}/games/1/record.json").json()["seed"] is None
    held = client.get(f"{base}/games/2/record.json")
    assert held.status_code == 403 and held.json()["error"]["code"] == errors.HELD_BACK
    assert client.get(f"{base}/games/3/record.json").status_code == 404
    lines = async_to_sync(drained)(client.get(f"{base}/records.jsonl")).decode().splitlines()
    assert [json.loads(line)["game"] for line in lines] == [1]
    log = client.get(f"{base}/events.json")
    assert log.status_code == 403 and log.json()["error"]["code"] == errors.HELD_BACK
    assert 'id="record-link"' in client.get(f"{base}/games/1/replay").content.decode()
    assert 'id="record-link"' not in client.get(f"{base}/games/2/replay").content.decode()
    results = client.get(f"{base}/results").content.decode()
    assert re.findall(r'href="/places/\d+/games/(\d+)/replay"', results) == ["1"]
    assert [r["game"] for r in exported(str(first.id))] == [1]
    # the running place's own log stays open to its players and spectators
    assert client.get(f"/places/{second.id}/events.json").status_code == 200
    assert game_record(second.id, 1)["seed"] is None


def test_staff_read_every_finished_game_and_the_seed(staff_client, twins):
    first, _ = twins
    base = f"/places/{first.id}"
    assert staff_client.get(f"{base}/games/2/record.json").json()["seed"] == "twin"
    assert staff_client.get(f"{base}/events.json").status_code == 200
    assert 'id="record-link"' in staff_client.get(f"{base}/games/2/replay").content.decode()
    assert [r["seed"] for r in exported(str(first.id), "--staff")] == ["twin", "twin"]
    assert [r["game"] for r in place_records(first.id, staff=True)] == [1, 2]


def test_once_every_place_of_the_seed_is_over_all_is_public(client, twins):
    first, second = twins
    play_out(second.id)
    for place in (first, second):
        shown = disclosure(Place.objects.get(pk=place.id))
        assert (shown.played, shown.public, shown.seed, shown.log) == (2, 2, "twin", True)
        assert [r["seed"] for r in place_records(place.id)] == ["twin", "twin"]
        assert client.get(f"/places/{place.id}/events.json").status_code == 200


def test_a_place_of_its_own_seed_shows_its_games_as_they_end(make_place):
    place = make_place(game_count=3, seed="alone", pace=None)
    services.start_place(place.id)
    play_until(place.id, 2)
    shown = disclosure(Place.objects.get(pk=place.id))
    assert (shown.played, shown.public, shown.seed, shown.log) == (1, 1, None, True)


def test_a_guessed_tournament_seed_tells_no_table_seed(settings):
    """The seeds were ``SEED:k``: a guessed or published tournament seed told every table's."""
    settings.SEED_KEY = "key-one"
    seeds = [table_seed("cup", k) for k in range(5)]
    assert len(set(seeds)) == 5 and all(re.fullmatch(r"[0-9a-f]{32}", s) for s in seeds)
    assert seeds == [table_seed("cup", k) for k in range(5)]  # reproducible with the key
    assert not {f"cup:{k}" for k in range(5)} & set(seeds)
    settings.SEED_KEY = "key-two"
    assert not set(seeds) & {table_seed("cup", k) for k in range(5)}
