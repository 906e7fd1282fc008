"""The records of an imported UECda place: served as kept (version 2) by the routes and
``export_records``, and verified by ``verify_record``."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import sync_to_async
from django.http import StreamingHttpResponse

from daifugo.record_schema import schema_errors
from places.models import Game, Place
from places.reads.records import game_record, place_records
from places.services import uecda

from .test_record_commands import failing, run
from .test_uecda_import import FIXTURE, fixture_bytes


@pytest.fixture
def imported(db) -> Place:
    return uecda.import_tndhms_log(fixture_bytes()).place


def test_a_uecda_game_is_served_as_kept_with_the_place_and_its_seed(imported):
    kept = Game.objects.get(place=imported, no=7).record
    record = game_record(imported.id, 7)
    assert record == {**kept, "seed": "1795692865"}
    assert record["version"] == 2 and record["rules"] == "uecda"
    assert record["place"] == {"id": imported.id, "title": imported.title, "games": 250}
    assert schema_errors(record) == []


def test_the_place_as_it_is_now_is_in_its_records(imported):
    Place.objects.filter(pk=imported.pk).update(title="Renamed")
    assert game_record(imported.id, 1)["place"]["title"] == "Renamed"


def test_every_record_of_an_imported_place_in_order(imported):
    records = list(place_records(imported.id, chunk=64))
    assert [r["game"] for r in records] == list(range(1, 251))
    assert all(schema_errors(r) == [] for r in records[:20])


def test_the_record_route_answers_a_uecda_game(client, imported):
    response = client.get(f"/places/{imported.id}/games/250/record.json")
    assert response.status_code == 200
    assert response.json() == game_record(imported.id, 250)
    assert client.get(f"/places/{imported.id}/games/251/record.json").status_code == 404


def test_an_export_of_an_imported_place_verifies(imported, tmp_path):
    target = tmp_path / "uecda.jsonl"
    out, _ = run("export_records", str(imported.id), "--out", str(target))
    assert out == f"250 records of place {imported.id} written to {target}\n"
    verified, err = run("verify_record", str(target))
    lines = verified.splitlines()
    assert err == "" and len(lines) == 250
    assert all(line.startswith("ok: game ") for line in lines)


def test_an_export_with_a_verdict_changed_fails_verification(imported, tmp_path):
    records = list(place_records(imported.id))
    action = records[9]["actions"][0]
    action["verdict"] = "pass" if action["verdict"] == "play" else "play"
    target = tmp_path / "bad.jsonl"
    target.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    out, err, error = failing("verify_record", str(target))
    assert error == "1 of 250 records fail"
    assert "game 10" in err and out.count("ok: game") == 249


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_thread_connections")
async def test_the_records_route_streams_every_uecda_game(async_client):
    place = await sync_to_async(uecda.import_tndhms_log)(FIXTURE.read_bytes())
    response = await async_client.get(f"/places/{place.place.id}/records.jsonl")
    assert isinstance(response, StreamingHttpResponse) and response.status_code == 200
    lines = b"".join([chunk async for chunk in response.streaming_content]).splitlines()
    assert len(lines) == 250
    assert json.loads(lines[-1])["game"] == 250 and json.loads(lines[0])["version"] == 2
