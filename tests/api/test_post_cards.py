"""post_cards (PROTOCOL.md §3): card_ parameters from a form or the query string; misses are results."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

from daifugo.cards import format_card
from places import services
from places.reads import documents, seats
from tests.api.helpers import DECL, FORM, body, data, error_json, error_xml, login, snapshot

pytestmark = pytest.mark.django_db

PATHS = ["/operations/post_cards", "/post_cards"]


def user_id(place, name: str) -> int:
    return next(s.user_id for s in seats.seats_of(place.id) if s.name == name)


def a_safe_single(place, name: str = "alice") -> str:
    """A card the player can lead alone without ending the trick (no 8) or the hand."""
    hand = documents.hand_ids(place.id, user_id(place, name))
    return next(format_card(c) for c in hand if c < 53 and (c - 1) % 13 + 1 != 8)


def a_card_not_held(place, name: str = "alice") -> str:
    hand = set(documents.hand_ids(place.id, user_id(place, name)))
    return next(format_card(c) for c in range(1, 53) if c not in hand)


def post_json(client, path="/post_cards.json", **fields):
    return client.post(path, urlencode(fields), content_type=FORM)


# -- results ----------------------------------------------------------------------------------


@pytest.mark.parametrize("path", [p + ".json" for p in PATHS])
def test_a_legal_play_answers_play_in_compact_json(alice, place, path):
    response = post_json(alice, path, card_0=a_safe_single(place))
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json; charset=utf-8"
    assert response.content == b'{"result":"play","reason":null,"reset_place":false}'


def test_the_played_card_leaves_the_hand(alice, place):
    card = a_safe_single(place)
    post_json(alice, card_0=card)
    assert card not in [format_card(c["card"]["id"]) for c in data(alice.get("/get_hand.json"))]


def test_a_pass_when_following_answers_pass(alice, bob, place):
    post_json(alice, card_0=a_safe_single(place))
    response = post_json(bob)
    assert response.status_code == 200
    assert data(response) == {"result": "pass", "reason": None, "reset_place": False}


def test_a_pass_when_leading_is_a_miss_answered_200_with_a_reason(alice, place):
    response = post_json(alice)
    assert response.status_code == 200
    doc = data(response)
    assert list(doc) == ["result", "reason", "reset_place"]
    assert doc["result"] == "miss"
    assert doc["reason"]


def test_a_card_not_held_is_a_miss_not_an_error(alice, place):
    doc = data(post_json(alice, card_0=a_card_not_held(place)))
    assert doc["result"] == "miss"


@pytest.mark.parametrize("path", [p + ".xml" for p in PATHS])
def test_the_xml_answer_is_a_rails_hash(alice, place, path):
    response = alice.post(path, {"card_0": a_safe_single(place)})
    assert response.status_code == 200
    assert body(response) == DECL + (
        '<hash>\n  <result>play</result>\n  <reason nil="true"/>\n'
        '  <reset-place type="boolean">false</reset-place>\n</hash>\n'
    )


@pytest.mark.parametrize("path", PATHS)
def test_a_form_client_is_redirected_to_operations(alice, place, path):
    card = a_safe_single(place)
    response = alice.post(path, urlencode({"card_0": card, "card_1": ""}), content_type=FORM)
    assert response.status_code == 302
    assert response["Location"] == "/operations"
    assert f"played {card}" in body(alice.get("/operations"))


def test_accept_application_json_gets_the_json_answer_without_a_suffix(alice, place):
    response = alice.post(
        "/post_cards", {"card_0": a_safe_single(place)}, headers={"Accept": "application/json"}
    )
    assert response.status_code == 200
    assert data(response)["result"] == "play"


def test_cards_may_come_in_the_query_string(alice, place):
    response = alice.post(f"/post_cards.json?card_0={a_safe_single(place)}")
    assert data(response)["result"] == "play"


def test_query_and_body_cards_are_one_play(alice, place):
    hand = documents.hand_ids(place.id, user_id(place, "alice"))
    first = format_card(hand[0])
    other = format_card(next(c for c in hand if c != hand[0]))
    response = alice.post(
        f"/post_cards.json?card_0={first}", urlencode({"card_1": other}), content_type=FORM
    )
    # two cards of different numbers are no combination (or a pair if equal): one action either way
    assert data(response)["result"] in {"play", "miss"}
    assert documents.place_info(place.id)["turn_player"] == "bob"


def test_blank_card_fields_are_ignored(alice, place):
    fields = {f"card_{i}": "" for i in range(14)}
    fields["card_5"] = a_safe_single(place)
    fields["card_6"] = "   "
    assert (
        data(alice.post("/post_cards.json", urlencode(fields), content_type=FORM))["result"]
        == "play"
    )


def test_only_parameters_whose_name_contains_card__count(alice, place):
    fields = {"my_card_x": a_safe_single(place), "cards": "joker", "card": "1-1", "commit": "Post"}
    assert data(alice.post("/post_cards.json", fields))["result"] == "play"


def test_the_2011_numbering_from_card_1_works_too(alice, place):
    assert (
        data(alice.post("/post_cards.json", {"card_1": a_safe_single(place)}))["result"] == "play"
    )


# -- errors: they change nothing ----------------------------------------------------------------


@pytest.mark.parametrize("text", ["7", "5-14", "0-3", "hello", "2-3-4", "１-3", "2-03x"])
def test_a_card_in_no_known_form_is_400_invalid_card_and_changes_nothing(alice, place, text):
    before = snapshot(place.id)
    response = post_json(alice, card_0=text)
    assert response.status_code == 400
    error_json("INVALID_CARD", response)
    assert snapshot(place.id) == before


def test_more_than_54_cards_is_invalid_card(alice, place):
    before = snapshot(place.id)
    fields = {f"card_{i}": "1-1" for i in range(55)}
    response = alice.post("/post_cards.json", urlencode(fields), content_type=FORM)
    assert response.status_code == 400
    error_json("INVALID_CARD", response)
    assert snapshot(place.id) == before


def test_not_logged_in_is_401(client, place):
    for path in ("/post_cards.json", "/operations/post_cards.json"):
        response = post_json(client, path, card_0="2-3")
        assert response.status_code == 401
        error_json("NOT_LOGGED_IN", response)
    error_xml("NOT_LOGGED_IN", client.post("/post_cards.xml", {"card_0": "2-3"}))


def test_another_player_s_turn_is_409_not_your_turn_and_changes_nothing(bob, place):
    before = snapshot(place.id)
    for fields in ({}, {"card_0": a_safe_single(place, "bob")}):
        response = post_json(bob, **fields)
        assert response.status_code == 409
        error_json("NOT_YOUR_TURN", response)
    assert snapshot(place.id) == before


def test_acting_again_in_the_same_turn_is_not_your_turn(alice, place):
    post_json(alice, card_0=a_safe_single(place))
    before = snapshot(place.id)
    response = post_json(alice, card_0=a_safe_single(place))
    assert response.status_code == 409
    error_json("NOT_YOUR_TURN", response)
    assert snapshot(place.id) == before


def test_no_game_running_is_409_no_turn_open(client, waiting_place):
    login(client, "alice", waiting_place.id)
    before = snapshot(waiting_place.id)
    response = post_json(client, card_0="2-3")
    assert response.status_code == 409
    error_json("NO_TURN_OPEN", response)
    assert snapshot(waiting_place.id) == before


def test_a_finished_place_is_409_no_turn_open(client, make_place):
    place = make_place(game_count=1)
    users = {s.name: s.user_id for s in seats.seats_of(place.id)}
    while (turn := documents.place_info(place.id)["turn_player"]) is not None:
        services.post_cards(place.id, users[turn], [])  # a pass when leading: a miss
    assert documents.place_info(place.id)["state"] == "finished"
    login(client, "alice", place.id)
    before = snapshot(place.id)
    response = post_json(client, card_0="2-3")
    assert response.status_code == 409
    error_json("NO_TURN_OPEN", response)
    assert snapshot(place.id) == before


def test_errors_in_xml_are_the_xml_error_body(bob, place):
    response = bob.post("/operations/post_cards.xml")
    assert response.status_code == 409
    error_xml("NOT_YOUR_TURN", response)


def test_a_form_client_that_hits_an_error_gets_the_status_and_a_short_page(bob, client, place):
    response = bob.post("/operations/post_cards", {"card_0": "2-3"})
    assert response.status_code == 409
    assert response["Content-Type"] == "text/html; charset=utf-8"
    assert "NOT_YOUR_TURN" in body(response)
    response = bob.post("/operations/post_cards", {"card_0": "hello"})
    assert response.status_code == 400
    assert "INVALID_CARD" in body(response)
    response = client.post("/operations/post_cards", {"card_0": "2-3"})
    assert response.status_code == 401
    assert "NOT_LOGGED_IN" in body(response)


def test_a_player_of_another_place_cannot_act_in_this_one(frank, place, other_place):
    before, theirs = snapshot(place.id), snapshot(other_place.id)
    # whatever names this place, frank's post goes to his own place (where it is his turn)
    response = frank.post(f"/post_cards.json?place_id={place.id}", {"place_id": place.id})
    assert response.status_code == 200
    assert snapshot(place.id) == before
    assert snapshot(other_place.id) != theirs


def test_no_parameter_can_act_for_another_player(bob, place):
    before = snapshot(place.id)
    response = bob.post("/post_cards.json?name=alice&player=alice", {"name": "alice", "user_id": 1})
    assert response.status_code == 409
    error_json("NOT_YOUR_TURN", response)
    assert snapshot(place.id) == before


def test_answers_chosen_by_accept_vary_on_accept(alice, place):
    assert "Accept" in alice.post("/post_cards", {"card_0": "zz"})["Vary"]
