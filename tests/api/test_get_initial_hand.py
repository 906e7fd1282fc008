"""get_initial_hand (PROTOCOL.md §3, new): the hand as dealt, before the exchange."""

from __future__ import annotations

import pytest

from places.models import Hand
from tests.api.helpers import DECL, body, data, error_json, error_xml, login

pytestmark = pytest.mark.django_db


def test_the_initial_hand_is_the_dealt_hand_in_the_get_hand_shape(alice, place):
    response = alice.get("/operations/get_initial_hand.json")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json; charset=utf-8"
    dealt = Hand.objects.get(game__place=place, player__user__username="alice").dealt
    cards = data(response)
    assert [c["card"]["id"] for c in cards] == dealt
    assert all(list(c) == ["card"] for c in cards)
    assert all(list(c["card"]) == ["id", "joker", "mark", "number"] for c in cards)
    assert body(response).startswith('[{"card":{"id":')


def test_in_the_first_game_it_is_the_hand_before_any_play(alice, place):
    assert data(alice.get("/get_initial_hand.json")) == data(alice.get("/get_hand.json"))


def test_the_xml_has_the_get_hand_shape(alice, place):
    Hand.objects.filter(game__place=place, player__user__username="alice").update(dealt=[20])
    assert body(alice.get("/get_initial_hand.xml")) == DECL + (
        '<cards type="array">\n  <card>\n    <id type="integer">20</id>\n'
        '    <joker type="boolean">false</joker>\n    <mark type="integer">2</mark>\n'
        '    <number type="integer">7</number>\n  </card>\n</cards>\n'
    )


def test_before_the_first_deal_it_is_empty(client, waiting_place):
    login(client, "alice", waiting_place.id)
    assert client.get("/get_initial_hand").content == b"[]"
    assert body(client.get("/get_initial_hand.xml")) == DECL + '<nil-classes type="array"/>\n'


def test_not_logged_in_is_401(client):
    error_json("NOT_LOGGED_IN", client.get("/get_initial_hand.json"))
    error_xml("NOT_LOGGED_IN", client.get("/operations/get_initial_hand.xml"))
