"""The replay page as the server renders it: a shell that reads the game's record itself."""

from __future__ import annotations

import json

import pytest

from daifugo import record_schema
from places.models import Place
from places.presentation.cards import SEAT_COLOURS

pytestmark = pytest.mark.django_db

JA = {"HTTP_ACCEPT_LANGUAGE": "ja,en;q=0.5"}


def config(response) -> dict:
    text = response.content.decode()
    return json.loads(
        text.split('<script id="replay-config" type="application/json">')[1].split("</script>")[0]
    )


def test_the_page_of_a_finished_game_reads_that_game_s_record(client, finished_place):
    response = client.get(f"/places/{finished_place.id}/games/2/replay")
    assert response.status_code == 200
    cfg = config(response)
    assert cfg["record_url"] == f"/places/{finished_place.id}/games/2/record.json"
    assert client.get(cfg["record_url"]).status_code == 200
    assert (cfg["place"], cfg["game"]) == (finished_place.id, 2)
    assert cfg["colours"] == list(SEAT_COLOURS)
    assert cfg["strings"]["played"] == "%(name)s played %(cards)s"  # the live page's words too
    assert cfg["strings"]["at_turn"] == "Turn %(turn)s · %(at)s of %(count)s"
    text = response.content.decode()
    assert 'src="/static/js/replay.js"' in text
    assert f'href="/places/{finished_place.id}/games/2/record.json"' in text


def test_the_page_holds_no_card_of_the_game_itself(client, finished_place):
    response = client.get(f"/places/{finished_place.id}/games/1/replay")
    cfg = config(response)
    assert set(cfg) == {
        "place", "game", "record_url", "colours", "strings", "schema",
        # the analysis's route (read, and asked for with a POST) and words (none of its cards)
        "analysis_url", "analysis_strings",
    }  # fmt: skip
    assert cfg["schema"] == record_schema.schema()  # what a dropped file is checked against
    text = response.content.decode().replace(" ", "")
    assert "data-card=" not in text and '"dealt":[' not in text  # the script reads the record


def test_previous_and_next_lead_to_the_neighbouring_finished_games(client, finished_place):
    first = client.get(f"/places/{finished_place.id}/games/1/replay").content.decode()
    assert 'id="previous-game"' not in first
    assert f'href="/places/{finished_place.id}/games/2/replay" id="next-game"' in first
    last = client.get(f"/places/{finished_place.id}/games/3/replay").content.decode()
    assert f'href="/places/{finished_place.id}/games/2/replay" id="previous-game"' in last
    assert 'id="next-game"' not in last


def test_a_game_still_to_be_played_has_a_page_but_no_record(client, place):
    response = client.get(f"/places/{place.id}/games/1/replay")
    assert response.status_code == 200
    text = response.content.decode()
    assert 'id="record-link"' not in text and 'id="next-game"' not in text
    assert client.get(config(response)["record_url"]).status_code == 404  # its hands are secret


def test_an_unknown_place_or_a_game_the_place_never_plays_is_404(client, finished_place):
    assert client.get("/places/999999/games/1/replay").status_code == 404
    assert client.get(f"/places/{finished_place.id}/games/0/replay").status_code == 404
    assert finished_place.game_count == 3
    assert client.get(f"/places/{finished_place.id}/games/4/replay").status_code == 404


def test_the_page_only_reads(client, finished_place):
    url = f"/places/{finished_place.id}/games/1/replay"
    assert client.head(url).status_code == 200
    assert client.post(url).status_code == 405
    assert Place.objects.get(pk=finished_place.id).state == Place.State.FINISHED


def test_the_results_page_links_every_game_to_its_replay(client, finished_place):
    text = client.get(f"/places/{finished_place.id}/results").content.decode()
    for no in (1, 2, 3):
        assert f'href="/places/{finished_place.id}/games/{no}/replay"' in text
    assert text.count('class="replay-link"') == 3


def test_the_page_speaks_japanese(client, finished_place):
    response = client.get(f"/places/{finished_place.id}/games/2/replay", **JA)
    text = response.content.decode()
    assert "第2ゲーム" in text and "記録ファイルを開く" in text and "手札" in text
    strings = config(response)["strings"]
    assert strings["at_turn"] == "第%(turn)s手 · %(at)s / %(count)s"
    assert strings["ranks"]["1"] == "大富豪"
    results = client.get(f"/places/{finished_place.id}/results", **JA).content.decode()
    assert "リプレイ" in results
