"""Who reads what of a place, and when (places/reads/disclosure.py, docs/records.md): a deal
that another place with the same seed has still to play is held back from all but staff
(its record, the seed, a finished place's event log), on every route that shows them."""

from __future__ import annotations

import asyncio
import json
import re
import socket
from io import StringIO

import pytest
from asgiref.sync import async_to_sync
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import connections
from django.test import Client

from places import errors, services
from places.models import Place, Tournament
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


def test_a_tournaments_records_in_one_stream_leave_out_what_its_places_hold_back(
    client, staff_client, twins
):
    """``/tournaments/ID/records.jsonl``: every table's records, in table order, each as its
    place's own ``records.jsonl`` gives them to the reader (it was a 404)."""
    first, second = twins
    tournament = Tournament.objects.create(title="Twins", rules=first.rules)
    Place.objects.filter(pk=second.id).update(tournament=tournament, table_no=0)
    Place.objects.filter(pk=first.id).update(tournament=tournament, table_no=1)
    url = f"/tournaments/{tournament.id}/records.jsonl"

    def lines(reader: Client) -> list[tuple[int, int]]:
        response = reader.get(url)
        assert response.status_code == 200
        assert response["Content-Type"] == "application/x-ndjson"
        assert (
            f'filename="tournament-{tournament.id}-records.jsonl"'
            in (response["Content-Disposition"])
        )
        body = async_to_sync(drained)(response).decode().splitlines()
        return [(r["place"]["id"], r["game"]) for r in map(json.loads, body)]

    assert lines(client) == [(second.id, 1), (first.id, 1)]
    assert lines(staff_client) == [(second.id, 1), (first.id, 1), (first.id, 2)]
    # each line is the place's own
    own = async_to_sync(drained)(client.get(f"/places/{first.id}/records.jsonl")).decode()
    whole = async_to_sync(drained)(client.get(url)).decode()
    assert whole.endswith(own)
    missing = client.get("/tournaments/999999/records.jsonl")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == errors.NOT_FOUND


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


# -- a UECda seat's join code: its user's and staff's alone (places/reads/join_codes.py) --------


def _public_texts(client: Client, place_id: int, names: list[str]) -> list[str]:
    """Every route of the site about a place and its players, as ``client`` reads it, and
    the records' export: what anyone (or another player) can learn."""
    paths = ["/", "/ratings", "/ratings.json", "/tournaments/"]
    for name in names:
        paths += [f"/users/{name}", f"/users/{name}.json"]
    base = f"/places/{place_id}"
    paths += [f"{base}/{page}" for page in ("", "state.json", "results", "results.csv")]
    paths += [f"{base}/{doc}" for doc in ("events.json", "info.json", "graph.json")]
    paths += [f"{base}/players_card.json", f"{base}/games/1/record.json", f"{base}/games/1/replay"]
    texts = []
    for path in paths:
        response = client.get(path)
        assert response.status_code in (200, 401, 403, 404), (path, response.status_code)
        texts.append(path + ": " + response.content.decode())
    records = client.get(f"{base}/records.jsonl")
    texts.append(async_to_sync(drained)(records).decode())
    texts.append(json.dumps(exported(str(place_id))))
    return texts


@pytest.mark.django_db(transaction=True)
def test_a_join_code_is_on_no_public_route_before_during_or_after_its_match(staff_client):
    from asgiref.sync import sync_to_async

    from places.uecda.shared import SharedListener
    from tests.uecda.test_shared import client as uecda_client
    from tests.uecda.test_shared import place_of_two

    place, codes = place_of_two(2)
    names = [p.user.username for p in place.players.order_by("seat")]
    ann, bob = Client(), Client()
    ann.force_login(place.players.get(seat=1).user)
    bob.force_login(place.players.get(seat=3).user)

    def leaks(client: Client, code: str) -> list[str]:
        return [t[:80] for t in _public_texts(client, place.id, names) if code in t]

    # waiting: each player reads their own code on the place's page, and nobody else's
    assert codes[1] in ann.get(f"/places/{place.id}/").content.decode()
    assert codes[3] in bob.get(f"/places/{place.id}/").content.decode()
    for code in codes.values():
        assert code in staff_client.get(f"/places/{place.id}/").content.decode()
    assert leaks(Client(), codes[1]) == leaks(Client(), codes[3]) == []
    assert leaks(bob, codes[1]) == leaks(ann, codes[3]) == []

    async def play() -> None:
        sock = socket.create_server(("127.0.0.1", 0))
        sock.setblocking(False)
        listener = SharedListener()
        await listener.start(sock)
        port = sock.getsockname()[1]
        await asyncio.gather(*(uecda_client(port, code).run() for code in codes.values()))
        await asyncio.gather(*listener.matches)
        await listener.close()
        await sync_to_async(connections.close_all)()

    async_to_sync(play)()
    assert Place.objects.get(pk=place.id).state == Place.State.FINISHED
    for code in codes.values():  # over: the records (named by user), the export, the pages
        assert leaks(Client(), code) == leaks(ann, code) == leaks(bob, code) == []


def _public_games(client: Client, place_id: int) -> tuple[int, int, int]:
    """What anyone reads of a place's games: records.jsonl lines, record.json 1's status,
    /games.json results."""
    lines = async_to_sync(drained)(client.get(f"/places/{place_id}/records.jsonl")).splitlines()
    record = client.get(f"/places/{place_id}/games/1/record.json").status_code
    found = client.get("/games.json", {"place": place_id}).json()["games"]
    return len(lines), record, len(found)


def test_a_practice_dealing_a_published_seed_hides_nothing_of_the_place_that_played_it(
    client, make_place
):
    """Issue 44 item 3: a new account's practice with a finished place's published seed held
    back that place's games (records.jsonl 4 lines -> 0, record.json 403 HELD_BACK)."""
    done = make_place(game_count=4, seed="published")
    services.start_place(done.id)
    play_out(done.id)
    before = _public_games(client, done.id)
    assert before == (4, 200, 4)
    assert client.get(f"/places/{done.id}/games/1/record.json").json()["seed"] == "published"
    get_user_model().objects.create_user("mallory", password="mallory-pw")
    asked = {"name": "mallory", "password": "mallory-pw", "seed": "published", "games": "1"}
    response = client.post("/practice.json", {**asked, "time_limit": "600"})
    assert response.status_code == 200
    practice = Place.objects.get(pk=response.json()["place"])
    assert practice.practice and practice.seed == "published"
    assert practice.state not in (Place.State.FINISHED, Place.State.ABORTED)
    assert _public_games(client, done.id) == before
    assert client.get(f"/places/{done.id}/events.json").status_code == 200
    replay = client.get(f"/places/{done.id}/games/4/replay").content.decode()
    assert 'id="record-link"' in replay
    analysis = client.get(f"/places/{done.id}/games/4/analysis.json")  # none asked: not held
    assert analysis.json()["error"]["code"] == errors.NOT_ANALYSED
    shown = disclosure(Place.objects.get(pk=done.id))
    assert (shown.public, shown.seed, shown.log) == (4, "published", True)


def test_a_practice_is_still_held_back_by_a_staff_place_that_deals_its_seed(make_place):
    """A practice that guessed a running place's seed shows none of that place's deals to come."""
    running = make_place(game_count=2, seed="running", pace=None)
    services.start_place(running.id)
    practice = make_place(game_count=2, seed="running")
    Place.objects.filter(pk=practice.id).update(practice=True)
    services.start_place(practice.id)
    play_out(practice.id)
    shown = disclosure(Place.objects.get(pk=practice.id))
    assert (shown.played, shown.public, shown.seed, shown.log) == (2, 0, None, False)
    assert game_record(practice.id, 1) is None
    # and the practice holds back nothing of the place that still plays
    assert disclosure(Place.objects.get(pk=running.id)).log


def test_practices_of_one_seed_hold_each_other_back_no_more(make_place):
    """Their seed is their makers' own choice: no secret to guard among them."""
    first = make_place(game_count=1, seed="mine")
    second = make_place(game_count=1, seed="mine", pace=None)
    Place.objects.filter(pk__in=(first.id, second.id)).update(practice=True)
    services.start_place(first.id)
    play_out(first.id)
    services.start_place(second.id)
    shown = disclosure(Place.objects.get(pk=first.id))
    assert (shown.played, shown.public, shown.seed, shown.log) == (1, 1, "mine", True)
