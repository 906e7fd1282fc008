"""get_hand (PROTOCOL.md §3): the player's own cards, as JSON or Rails XML, from the session only."""

from __future__ import annotations

import pytest

from places.reads import documents, seats
from tests.api.helpers import DECL, body, data, error_json, error_xml, login

pytestmark = pytest.mark.django_db

PATHS = ["/operations/get_hand", "/get_hand"]


def alice_hand(place) -> list[int]:
    alice = next(s for s in seats.seats_of(place.id) if s.name == "alice")
    return documents.hand_ids(place.id, alice.user_id)


@pytest.mark.parametrize("path", [p + s for p in PATHS for s in ("", ".json")])
def test_the_hand_is_compact_json_in_protocol_key_order(alice, place, path):
    response = alice.get(path)
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json; charset=utf-8"
    hand = alice_hand(place)
    assert len(hand) in (10, 11)
    expected = ",".join(
        '{"card":{"id":%d,"joker":%s,"mark":%d,"number":%d}}'  # noqa: UP031
        % (
            c,
            "true" if c >= 53 else "false",
            0 if c >= 53 else (c - 1) // 13 + 1,
            0 if c >= 53 else (c - 1) % 13 + 1,
        )
        for c in hand
    )
    assert body(response) == f"[{expected}]"


def test_the_protocol_example_is_served_byte_for_byte(alice, monkeypatch):
    monkeypatch.setattr(documents, "hand_ids", lambda place_id, user_id: [20, 53])
    assert alice.get("/get_hand.json").content == (
        b'[{"card":{"id":20,"joker":false,"mark":2,"number":7}},'
        b'{"card":{"id":53,"joker":true,"mark":0,"number":0}}]'
    )


def test_one_card_in_xml_is_the_protocol_example_byte_for_byte(alice, monkeypatch):
    monkeypatch.setattr(documents, "hand_ids", lambda place_id, user_id: [20])
    response = alice.get("/operations/get_hand.xml")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/xml; charset=utf-8"
    assert body(response) == DECL + (
        '<cards type="array">\n'
        "  <card>\n"
        '    <id type="integer">20</id>\n'
        '    <joker type="boolean">false</joker>\n'
        '    <mark type="integer">2</mark>\n'
        '    <number type="integer">7</number>\n'
        "  </card>\n"
        "</cards>\n"
    )


@pytest.mark.parametrize("path", [p + ".xml" for p in PATHS])
def test_the_real_hand_in_xml_lists_every_card(alice, place, path):
    text = body(alice.get(path))
    assert text.startswith(DECL + '<cards type="array">\n  <card>\n')
    assert text.count("<card>") == len(alice_hand(place))


def test_an_empty_hand_is_an_empty_array_and_rails_nil_classes(client, waiting_place):
    login(client, "alice", waiting_place.id)
    assert client.get("/get_hand.json").content == b"[]"
    assert body(client.get("/get_hand.xml")) == DECL + '<nil-classes type="array"/>\n'


def test_cards_are_listed_weakest_first_jokers_last(alice):
    from daifugo.cards import sort_key

    ids = [c["card"]["id"] for c in data(alice.get("/get_hand.json"))]
    assert ids == sorted(ids, key=sort_key)


@pytest.mark.parametrize("path", [p + s for p in PATHS for s in ("", ".json")])
def test_not_logged_in_is_401_with_the_json_error_body(client, path):
    response = client.get(path)
    assert response.status_code == 401
    error_json("NOT_LOGGED_IN", response)


@pytest.mark.parametrize("path", [p + ".xml" for p in PATHS])
def test_not_logged_in_in_xml_is_the_xml_error_body(client, path):
    response = client.get(path)
    assert response.status_code == 401
    error_xml("NOT_LOGGED_IN", response)


def test_a_player_never_reads_another_player_s_hand(alice, bob, place):
    alice_cards = data(alice.get("/get_hand.json"))
    bob_cards = data(bob.get("/get_hand.json"))
    assert {c["card"]["id"] for c in alice_cards}.isdisjoint(c["card"]["id"] for c in bob_cards)
    for query in (
        "?name=bob",
        "?player=bob",
        "?user_id=2",
        "?player_id=2",
        f"?place_id={place.id}&name=bob",
    ):
        assert data(alice.get("/get_hand.json" + query)) == alice_cards


def test_a_player_of_another_place_reads_only_their_own_place(frank, place, other_place):
    for query in ("", f"?place_id={place.id}", f"?place={place.id}"):
        cards = data(frank.get("/get_hand.json" + query))
        frank_id = next(s.user_id for s in seats.seats_of(other_place.id) if s.name == "frank")
        assert [c["card"]["id"] for c in cards] == documents.hand_ids(other_place.id, frank_id)


def test_a_post_to_get_hand_is_405(alice):
    response = alice.post("/get_hand.json")
    assert response.status_code == 405
    error_json("METHOD_NOT_ALLOWED", response)


def test_a_session_whose_user_left_the_place_is_not_logged_in(alice, place):
    from places.models import Player

    seats.forget()
    Player.objects.filter(place=place, user__username="alice").delete()
    response = alice.get("/get_hand.json")
    assert response.status_code == 401
    error_json("NOT_LOGGED_IN", response)


def test_hands_are_never_cached(alice):
    cache_control = alice.get("/get_hand.json")["Cache-Control"]
    assert "no-store" in cache_control and "private" in cache_control
