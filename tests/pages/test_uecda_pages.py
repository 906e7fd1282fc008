"""The pages of an imported UECda place: its results like any place's, and the replay
of a game drawn from the positions the engine works out of its record."""

from __future__ import annotations

import csv
import io
import json

import pytest

from daifugo.replay import REVOLUTION
from places.models import Place
from places.presentation.replay_uecda import positions
from places.reads.records import game_record
from places.services import uecda
from tests.places.test_uecda_import import TOTAL_POINT, fixture_bytes

pytestmark = pytest.mark.django_db


@pytest.fixture
def imported() -> Place:
    return uecda.import_tndhms_log(fixture_bytes()).place


def test_the_results_page_of_an_imported_place(client, imported):
    response = client.get(f"/places/{imported.id}/results")
    assert response.status_code == 200
    text = response.content.decode()
    assert imported.title in text and "stock0" in text
    assert str(TOTAL_POINT[0]) in text
    assert 'id="rules"' in text and "UECda (tndhms&#x27;s defaults)" in text
    table = list(csv.reader(io.StringIO(client.get(f"/places/{imported.id}/results.csv").text)))
    body = table[1:]
    assert len(body) == 250 * 5
    # the UECda points, 5 for the daifugo … 1 for the daihinmin, add up to the log's
    last = {r[2]: int(r[5]) for r in body if r[0] == "250"}
    assert [last[f"stock{p}"] for p in range(5)] == TOTAL_POINT
    assert {int(r[4]) for r in body} == {1, 2, 3, 4, 5}


def test_the_results_page_says_the_points_a_uecda_game_gives(client, imported):
    """5 … 1, as its columns add (+5 … +1), not the 2011 rules' 4 … 0."""
    text = client.get(f"/places/{imported.id}/results").content.decode()
    assert "with the points it gave (1st to 5th: 5, 4, 3, 2, 1)." in text
    assert "+5" in text and "+0" not in text
    ja = client.get(f"/places/{imported.id}/results", HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    assert "1位から5位まで 5, 4, 3, 2, 1 点" in ja


def test_the_replay_of_a_uecda_game_loads_its_own_script_and_positions(client, imported):
    text = client.get(f"/places/{imported.id}/games/2/replay").content.decode()
    assert "js/replay-uecda.js" in text and "js/replay.js" not in text
    start = text.index('<script id="replay-config" type="application/json">') + 51
    config = json.loads(text[start : text.index("</script>", start)])
    assert config["record"] == game_record(imported.id, 2)
    assert len(config["positions"]) == len(config["record"]["actions"]) + 1


def test_every_position_follows_the_engine(imported):
    locked = revolutions = draws = 0
    for no in range(1, 251):
        record = game_record(imported.id, no)
        found = positions(record)
        assert len(found) == len(record["actions"]) + 1
        last = found[-1]
        assert last["ranks"] == record["ranks"]
        assert last["revolution"] == (record["order"] == REVOLUTION)
        for f, action in zip(found[1:], record["actions"], strict=True):
            assert f["event"]["verdict"] == action["verdict"]
            assert f["event"]["cleared"] == action["reset"]
            if f["lock"]:
                # a lock holds the table to the suits of the cards lying on it
                suits = {c["card"].split("-")[0] for c in f["table"] if c["card"] != "joker"}
                assert {"1": "S", "2": "H", "3": "D", "4": "C"}[min(suits)] in f["lock"]
        locked += any(f["lock"] for f in found)
        revolutions += any(f["event"].get("revolution") for f in found)
        draws += last["event"]["end"] == "draw"
    assert draws == 8 and locked > 100 and revolutions > 10


def test_the_deal_position_is_the_hands_after_the_exchange(imported):
    record = game_record(imported.id, 2)
    first = positions(record)[0]
    assert first["hands"] == record["hands"] and first["table"] == [] and first["lock"] is None


@pytest.mark.parametrize(
    "path",
    ["/", "/places/{id}/", "/places/{id}/state.json", "/users/stock0", "/users/stock0.json"],
)
def test_the_other_pages_of_an_imported_place_answer(client, imported, path):
    response = client.get(path.format(id=imported.id))
    assert response.status_code == 200
    text = response.content.decode()
    assert imported.title in text or "stock0" in text


def test_an_imported_players_profile_counts_the_log(client, imported):
    data = client.get("/users/stock0.json").json()
    assert data["games"] == 250 and data["points"] == TOTAL_POINT[0]


def test_a_2011_place_shows_no_rules_badge(client, finished_place):
    text = client.get(f"/places/{finished_place.id}/results").content.decode()
    assert 'id="rules"' not in text


def live_config(text: str) -> dict:
    start = text.index('<script id="live-config" type="application/json">') + 49
    return json.loads(text[start : text.index("</script>", start)])


def test_the_live_page_of_a_uecda_place_starts_from_its_last_game(client, imported):
    text = client.get(f"/places/{imported.id}/").content.decode()
    assert "js/live-uecda.js" in text and "js/uecda-table.js" in text
    assert "js/live.js" not in text  # the 2011 live page is another page
    config = live_config(text)
    assert config["ws_path"] == f"/ws/places/{imported.id}/live/"
    assert config["record"] == game_record(imported.id, 250)
    assert config["position"] == positions(config["record"])[-1]
    assert config["points"] == TOTAL_POINT
    assert config["names"] == [f"stock{p}" for p in range(5)]


def test_the_live_page_shows_no_game_a_reader_may_not_read_yet(client, imported):
    # another place deals the same seed and has played none of its games: all held back
    Place.objects.create(title="same deals", game_count=250, seed=imported.seed, rules="uecda")
    config = live_config(client.get(f"/places/{imported.id}/").content.decode())
    assert config["record"] is None and config["position"] is None


def test_a_2011_place_keeps_its_live_page(client, place):
    text = client.get(f"/places/{place.id}/").content.decode()
    assert "js/live.js" in text and "live-uecda" not in text
