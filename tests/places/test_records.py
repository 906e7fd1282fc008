"""Game records read from the database (places/reads/records.py) and served over HTTP
(places/views/records.py): only finished games, the seed only once the place is over,
a bounded number of queries, and a replay of each gives the ranks the database holds."""

from __future__ import annotations

import json
import random
from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async
from django.db import connection
from django.http import StreamingHttpResponse
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from daifugo.cards import format_card, sorted_ids
from daifugo.deal import game_rng
from daifugo.place import make_deal
from daifugo.record_schema import schema_errors
from daifugo.replay import Replayed, replay_records
from places import services
from places.models import Place, Rank
from places.reads import records as records_read
from places.reads import seats
from places.reads.records import game_record, place_records

from .drive import choose, engine_state, play_out


def ranks_in_the_database(place_id: int) -> dict[int, list[int]]:
    out: dict[int, list[int]] = {}
    for no, seat, rank in Rank.objects.filter(game__place_id=place_id).values_list(
        "game__no", "player__seat", "rank"
    ):
        out.setdefault(no, [0] * 5)[seat] = rank
    return out


def act(place_id: int, cards: list[str]) -> None:
    state = engine_state(place_id)
    user_id = seats.seats_of(place_id)[state.game.turn].user_id
    services.post_cards(place_id, user_id, cards)


def play_until(place_id: int, game_no: int, turns: int = 3) -> None:
    """Play legal actions until game ``game_no`` has had ``turns`` turns."""
    rng = random.Random(1)
    while True:
        state = engine_state(place_id)
        if state.game_no == game_no and state.game.turn_no >= turns:
            return
        if not state.needs_action:
            services.next_turn(place_id)
        else:
            act(place_id, choose(state, rng))


@pytest.fixture
def finished(make_place) -> Place:
    """A seeded place of four games, played to its end."""
    place = make_place(game_count=4)
    services.start_place(place.id)
    play_out(place.id)
    return place


@pytest.fixture
def running(make_place) -> Place:
    """A seeded place of four games in its second game."""
    place = make_place(game_count=4, pace=None)
    services.start_place(place.id)
    play_until(place.id, 2)
    return place


# -- the read -------------------------------------------------------------------------------


def test_a_finished_places_records_replay_to_the_ranks_in_the_database(finished):
    records = list(place_records(finished.id))
    database = ranks_in_the_database(finished.id)
    assert [r["game"] for r in records] == [1, 2, 3, 4]
    assert [r["ranks"] for r in records] == [database[no] for no in (1, 2, 3, 4)]
    assert list(replay_records(records)) == [
        Replayed(no, tuple(database[no])) for no in (1, 2, 3, 4)
    ]


def test_every_record_the_server_builds_fits_the_schema(finished):
    for record in place_records(finished.id):
        assert schema_errors(record) == []


def test_a_record_tells_the_place_the_players_and_the_seed_once_the_place_is_over(finished):
    record = game_record(finished.id, 3)
    assert record["format"] == "daihinmin-record" and record["version"] == 1
    assert record["place"] == {"id": finished.id, "title": "Test place", "games": 4}
    assert record["game"] == 3
    assert record["seed"] == "fixed"
    assert [p["name"] for p in record["players"]] == ["alice", "bob", "charlie", "dave", "eve"]
    assert record["points"] == [5 - r for r in record["ranks"]]


def test_a_records_deal_and_exchange_are_the_engines_in_its_order(finished):
    records = list(place_records(finished.id))
    for before, record in zip(records, records[1:], strict=False):
        deal = make_deal(game_rng("fixed", record["game"]), 5, before["ranks"])
        assert record["exchange"] == [
            {"from": m.giver, "to": m.receiver, "cards": [format_card(c) for c in m.cards]}
            for m in deal.exchanges
        ]
        assert record["dealt"] == [[format_card(c) for c in sorted_ids(h)] for h in deal.dealt]
    assert records[0]["exchange"] == []
    assert records[0]["hands"] == records[0]["dealt"]


def test_a_record_is_read_in_a_bounded_number_of_queries(finished):
    counts = []
    for no in (1, 4):
        seats.forget()
        with CaptureQueriesContext(connection) as queries:
            assert game_record(finished.id, no) is not None
        counts.append(len(queries))
    # 6, and one for the places that share the seed (``places.reads.disclosure``)
    assert counts[0] == counts[1] <= 7


def test_a_places_records_are_read_a_chunk_of_games_at_a_time(finished):
    whole = list(place_records(finished.id))
    with CaptureQueriesContext(connection) as queries:
        records = place_records(finished.id, chunk=3)
        first = next(records)
        read_for_the_first = len(queries)
        rest = list(records)
    assert [first, *rest] == whole
    # the place and the places sharing its seed (its seats are kept), then four queries a
    # chunk: games 1-3, then game 4
    assert read_for_the_first == 2 + 4
    assert len(queries) == 2 + 4 + 4


def test_a_miss_and_a_timeout_are_recorded_as_they_happened(make_place):
    place = make_place(game_count=1, pace=None)
    services.start_place(place.id)
    play_until(place.id, 1, turns=1)
    state = engine_state(place.id)
    neighbour = state.game.hands[(state.game.turn + 1) % 5]
    foreign = format_card(sorted_ids(neighbour)[0])
    act(place.id, [f" {foreign} ", foreign])  # written with spaces, and twice
    services.next_turn(place.id)
    services.run_due(place.id, now=timezone.now() + timedelta(hours=1))  # the next one is silent
    play_out(place.id)

    record = game_record(place.id, 1)
    miss, timeout = record["actions"][0], record["actions"][1]
    assert miss["cards"] == [foreign, foreign]  # as written, stripped
    assert (miss["verdict"], miss["reason"], miss["reset"]) == ("miss", "DUPLICATE_CARD", True)
    assert (timeout["cards"], timeout["verdict"], timeout["reason"]) == ([], "timeout", "TIMEOUT")
    assert all(a["ms"] >= 0 for a in record["actions"])
    assert list(replay_records([record])) == [Replayed(1, tuple(record["ranks"]))]


def test_a_running_place_has_no_record_of_the_game_in_play_and_no_seed(running):
    assert game_record(running.id, 2) is None
    assert game_record(running.id, 3) is None
    first = game_record(running.id, 1)
    assert first["seed"] is None
    assert [r["game"] for r in place_records(running.id)] == [1]
    assert schema_errors(first) == []
    assert isinstance(next(replay_records([first])), Replayed)


def test_no_place_has_no_records(db):
    assert game_record(999, 1) is None
    assert place_records(999) is None


# -- the routes -----------------------------------------------------------------------------


def test_the_record_route_answers_the_record_as_json(client, finished):
    response = client.get(f"/places/{finished.id}/games/2/record.json")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response.json() == game_record(finished.id, 2)


@pytest.mark.parametrize("game", [0, 5])
def test_a_game_the_place_never_played_is_not_found(client, finished, game):
    response = client.get(f"/places/{finished.id}/games/{game}/record.json")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "NOT_FOUND"


def test_the_game_in_play_is_not_found_and_its_hands_stay_secret(client, running):
    response = client.get(f"/places/{running.id}/games/2/record.json")
    assert response.status_code == 404
    assert response.json() == {
        "error": {"code": "NOT_FOUND", "message": f"no finished game 2 in place {running.id}"}
    }


def test_an_unknown_place_has_no_records_route(client, db):
    for path in ("/places/999/games/1/record.json", "/places/999/records.jsonl"):
        response = client.get(path)
        assert response.status_code == 404
        assert response.json()["error"]["code"] == "NOT_FOUND"


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_thread_connections")
async def test_the_records_route_streams_a_running_places_lines_a_chunk_at_a_time(
    async_client, make_place, monkeypatch
):
    monkeypatch.setattr(records_read, "CHUNK", 3)

    @sync_to_async
    def running_place() -> tuple[int, list[str]]:
        place = make_place(game_count=5, pace=None)
        services.start_place(place.id)
        play_until(place.id, 5)
        return place.id, [
            json.dumps(game_record(place.id, no), separators=(",", ":"), ensure_ascii=False)
            for no in (1, 2, 3, 4)
        ]

    place_id, each = await running_place()
    response = await async_client.get(f"/places/{place_id}/records.jsonl")
    assert isinstance(response, StreamingHttpResponse) and response.is_async
    assert response.status_code == 200
    assert response["Content-Type"] == "application/x-ndjson"
    assert not response.has_header("ETag")  # read afresh: the place is still playing
    chunks = [chunk async for chunk in response.streaming_content]
    assert len(chunks) == 2  # games 1-3, then game 4
    assert b"".join(chunks).decode().splitlines() == each
