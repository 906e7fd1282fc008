"""get_rank (PROTOCOL.md §3, new): ranks in the current game and in the last finished one."""

from __future__ import annotations

import pytest

from places.reads import documents
from tests.api.conftest import seating
from tests.api.helpers import DECL, body, data, error_json, error_xml, login

pytestmark = pytest.mark.django_db


def test_before_any_rank_is_known_every_rank_is_null(alice, place):
    response = alice.get("/operations/get_rank.json")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json; charset=utf-8"
    ranks = ",".join('{"name":"%s","rank":null,"last_rank":null}' % n for n in seating())  # noqa: UP031
    assert body(response) == '{"game_no":1,"ranks":[%s]}' % ranks  # noqa: UP031


def test_the_xml_is_the_rails_hash_with_nil_ranks(alice, place):
    response = alice.get("/get_rank.xml")
    assert response["Content-Type"] == "application/xml; charset=utf-8"
    entries = "".join(
        f"    <rank>\n      <name>{n}</name>\n"
        '      <rank nil="true"/>\n      <last-rank nil="true"/>\n    </rank>\n'
        for n in seating()
    )
    assert body(response) == DECL + (
        '<hash>\n  <game-no type="integer">1</game-no>\n'
        '  <ranks type="array">\n' + entries + "  </ranks>\n</hash>\n"
    )


def test_a_miss_gives_the_worst_rank_at_once(alice, place):
    alice.post("/post_cards.json")  # a pass when leading is a miss
    doc = data(alice.get("/get_rank"))
    assert list(doc) == ["game_no", "ranks"]
    assert [list(r) for r in doc["ranks"]] == [["name", "rank", "last_rank"]] * 5
    assert {r["name"]: r["rank"] for r in doc["ranks"]}["alice"] == 5
    assert doc == documents.ranks(place.id)


def test_a_waiting_place_is_game_zero(client, waiting_place):
    login(client, "alice", waiting_place.id)
    assert data(client.get("/get_rank.json"))["game_no"] == 0


def test_not_logged_in_is_401(client):
    error_json("NOT_LOGGED_IN", client.get("/get_rank.json"))
    error_xml("NOT_LOGGED_IN", client.get("/get_rank.xml"))
