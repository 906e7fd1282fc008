"""Downloads of records (places/views/records.py): a finished place's ``records.jsonl``
made once into a file (places/reads/record_files.py) and served from it with an
``ETag``, a new file when what its lines show changes, none while games are held
back from the reader, and a bounded number of downloads at once per address
(api/downloads.py). On the real server: tests/e2e/test_downloads.py."""

from __future__ import annotations

import asyncio
import gc
import json
from pathlib import Path

import pytest
from asgiref.sync import sync_to_async
from django.conf import settings

from places import services
from places.models import Place
from places.reads import records as records_read
from places.reads.records import game_record
from tests.conftest import clear_cache

from .drive import play_out

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("close_thread_connections"),
]


@pytest.fixture(autouse=True)
def _no_downloads_counted_before():
    """Each test counts its own downloads from none: on Redis the counts of an earlier
    test's downloads left unread (a test client that never closed its answer) outlive it,
    until they expire, and one address holds only a few."""
    clear_cache()


@sync_to_async
def finished_place(make_place, **options) -> tuple[int, list[str]]:
    """A place of four games played to its end, and its records as lines."""
    place = make_place(game_count=4, **options)
    services.start_place(place.id)
    play_out(place.id)
    lines = [
        json.dumps(game_record(place.id, no), separators=(",", ":"), ensure_ascii=False)
        for no in (1, 2, 3, 4)
    ]
    return place.id, lines


async def body(response) -> bytes:
    return b"".join([part async for part in response.streaming_content])


def files() -> list[Path]:
    return sorted(Path(settings.RECORDS_CACHE_DIR).glob("*.jsonl"))


async def test_a_finished_places_records_are_made_once_and_served_from_their_file(
    async_client, make_place, monkeypatch
):
    place_id, lines = await finished_place(make_place)
    url = f"/places/{place_id}/records.jsonl"
    first = await async_client.get(url)
    assert first.status_code == 200 and first["Content-Type"] == "application/x-ndjson"
    assert first["Content-Disposition"] == f'inline; filename="place-{place_id}-records.jsonl"'
    content = await body(first)
    assert content.decode().splitlines() == lines
    assert int(first["Content-Length"]) == len(content)
    [made] = files()
    assert made.read_bytes() == content and made.name.startswith(f"place-{place_id}-")

    def unread(*args, **kwargs):
        raise AssertionError("the records were read again")

    monkeypatch.setattr(records_read, "records_after", unread)
    again = await async_client.get(url)
    assert await body(again) == content and again["ETag"] == first["ETag"]
    cached = await async_client.get(url, headers={"If-None-Match": first["ETag"]})
    assert cached.status_code == 304
    stale = await async_client.get(url, headers={"If-None-Match": '"something-else"'})
    assert stale.status_code == 200 and await body(stale) == content


async def test_a_new_title_makes_a_new_file(async_client, make_place):
    place_id, _ = await finished_place(make_place)
    url = f"/places/{place_id}/records.jsonl"
    first = await async_client.get(url)
    await body(first)
    await Place.objects.filter(pk=place_id).aupdate(title="Renamed")
    second = await async_client.get(url)
    renamed = [json.loads(line) for line in (await body(second)).decode().splitlines()]
    assert second["ETag"] != first["ETag"] and len(files()) == 2
    assert {record["place"]["title"] for record in renamed} == {"Renamed"}


async def test_records_held_back_are_read_afresh_and_never_filed(async_client, make_place):
    # another place deals the same cards and has played none of them: all held back
    place_id, lines = await finished_place(make_place, seed="shared-seed")
    await sync_to_async(make_place)(game_count=4, seed="shared-seed")
    response = await async_client.get(f"/places/{place_id}/records.jsonl")
    assert response.status_code == 200 and not response.has_header("ETag")
    assert await body(response) == b""
    assert files() == []


async def test_an_address_has_a_bounded_number_of_downloads_under_way(
    async_client, make_place, settings
):
    settings.RECORDS_DOWNLOADS_PER_ADDRESS = 2
    place_id, lines = await finished_place(make_place)
    url = f"/places/{place_id}/records.jsonl"
    under_way = [await async_client.get(url) for _ in range(2)]
    assert [r.status_code for r in under_way] == [200, 200]
    refused = await async_client.get(url)
    assert refused.status_code == 429 and refused["Retry-After"] == "1"
    assert refused.json()["error"]["code"] == "TOO_MANY_DOWNLOADS"
    # a reader who has the file asks nothing of the server's downloads
    has_it = await async_client.get(url, headers={"If-None-Match": under_way[0]["ETag"]})
    assert has_it.status_code == 304
    # one ended (sent whole), one more may begin
    assert (await body(under_way[0])).decode().splitlines() == lines
    next_one = await async_client.get(url)
    assert next_one.status_code == 200
    # a tournament's records count with the places'
    assert (await async_client.get("/tournaments/999999/records.jsonl")).status_code == 404
    for response in (under_way[1], next_one):
        await body(response)


async def test_a_client_gone_mid_download_ends_its_download(async_client, make_place, settings):
    settings.RECORDS_DOWNLOADS_PER_ADDRESS = 1
    place_id, _ = await finished_place(make_place)
    url = f"/places/{place_id}/records.jsonl"
    first = await async_client.get(url)
    parts = aiter(first.streaming_content)
    await anext(parts)  # the client took a part
    assert (await async_client.get(url)).status_code == 429
    # and went: the server drops the answer unfinished (Django closes what it iterated,
    # the loop the rest as each is let go)
    await parts.aclose()
    del first, parts
    gc.collect()
    await asyncio.sleep(0)
    second = await async_client.get(url)
    assert second.status_code == 200
    await body(second)
