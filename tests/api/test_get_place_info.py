"""get_place_info (PROTOCOL.md §3): game_count, player_count, player_infos first, in seat order."""

from __future__ import annotations

import pytest

from places.reads import documents
from tests.api.conftest import seating
from tests.api.helpers import DECL, body, data, error_json, error_xml, login

pytestmark = pytest.mark.django_db

PATHS = ["/operations/get_place_info", "/get_place_info"]


def contract_json(place, counts) -> str:
    infos = ",".join('{"name":"%s","has_card":%d}' % (n, counts[n]) for n in seating())  # noqa: UP031
    return '{"game_count":%d,"player_count":5,"player_infos":[%s]' % (place.game_count, infos)  # noqa: UP031


def contract_xml(place, counts) -> str:
    infos = "".join(
        "    <player-info>\n"
        f"      <name>{n}</name>\n"
        f'      <has-card type="integer">{counts[n]}</has-card>\n'
        "    </player-info>\n"
        for n in seating()
    )
    return DECL + (
        "<hash>\n"
        f'  <game-count type="integer">{place.game_count}</game-count>\n'
        '  <player-count type="integer">5</player-count>\n'
        '  <player-infos type="array">\n' + infos + "  </player-infos>\n"
    )


@pytest.mark.parametrize("path", [p + s for p in PATHS for s in ("", ".json")])
def test_the_json_starts_with_the_contract_keys_byte_for_byte(alice, place, path):
    response = alice.get(path)
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json; charset=utf-8"
    counts = {i["name"]: i["has_card"] for i in documents.place_info(place.id)["player_infos"]}
    assert sorted(counts.values()) == [10, 11, 11, 11, 11]
    text = body(response)
    assert text.startswith(contract_json(place, counts) + ",")
    assert text.endswith("}")
    assert " " not in text.replace("turn_player", "")  # compact: no spaces between tokens


def test_the_keys_after_player_infos_are_those_of_the_service_in_its_order(alice, place):
    doc = data(alice.get("/get_place_info.json"))
    expected = documents.place_info(place.id)
    assert list(doc) == list(expected)
    assert list(doc)[:3] == ["game_count", "player_count", "player_infos"]
    assert doc == expected
    assert doc["turn_player"] == "alice"


def test_a_waiting_place_has_no_cards_yet(client, waiting_place):
    login(client, "alice", waiting_place.id)
    counts = dict.fromkeys(seating(), 0)
    assert body(client.get("/get_place_info.json")).startswith(
        contract_json(waiting_place, counts) + ","
    )


@pytest.mark.parametrize("path", [p + ".xml" for p in PATHS])
def test_the_xml_is_rails_hash_with_dasherized_keys(alice, place, path):
    response = alice.get(path)
    assert response.status_code == 200
    assert response["Content-Type"] == "application/xml; charset=utf-8"
    counts = {i["name"]: i["has_card"] for i in documents.place_info(place.id)["player_infos"]}
    text = body(response)
    assert text.startswith(contract_xml(place, counts))
    assert "  <turn-player>alice</turn-player>\n" in text
    assert text.endswith("</hash>\n")


def test_names_with_markup_are_escaped_in_xml(client, users, make_place):
    from django.contrib.auth import get_user_model

    get_user_model().objects.filter(username="eve").update(username="<eve&>")
    place = make_place(names=("alice", "bob", "charlie", "dave", "<eve&>"))
    login(client, "alice", place.id)
    assert "<name>&lt;eve&amp;&gt;</name>" in body(client.get("/get_place_info.xml"))
    assert '"name":"<eve&>"' in body(client.get("/get_place_info.json"))


def test_not_logged_in_is_401(client):
    error_json("NOT_LOGGED_IN", client.get("/get_place_info.json"))
    error_xml("NOT_LOGGED_IN", client.get("/operations/get_place_info.xml"))
    assert client.get("/get_place_info").status_code == 401


def test_a_player_of_another_place_sees_only_their_own_place(frank, place, other_place):
    doc = data(frank.get(f"/get_place_info.json?place_id={place.id}"))
    assert [i["name"] for i in doc["player_infos"]] == seating(
        ("frank", "grace", "heidi", "ivan", "judy")
    )
