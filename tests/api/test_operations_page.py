"""GET /operations: the manual-play page whose first form the 2011 Mechanize bot submitted."""

from __future__ import annotations

import pytest

from daifugo.cards import format_card
from places.reads import documents, seats
from tests.api.helpers import body, forms, login

pytestmark = pytest.mark.django_db


def test_not_logged_in_is_sent_to_the_login_page(client):
    response = client.get("/operations")
    assert response.status_code == 302
    assert response["Location"] == "/login"


def test_a_user_logged_in_without_a_place_is_sent_to_the_login_page(client, users):
    client.force_login(users["alice"])
    assert client.get("/operations")["Location"] == "/login"


def test_the_first_form_posts_card_0_to_card_13_to_post_cards(alice):
    response = alice.get("/operations")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/html; charset=utf-8"
    page_forms = forms(body(response))
    # Mechanize bots submit page.forms.first; practice comes after, the header's language form last
    assert [f.action for f in page_forms[1:]] == ["/practice", "/i18n/setlang/"]
    form = page_forms[0]
    assert (form.action, form.method) == ("/operations/post_cards", "post")
    assert list(form.fields) == [f"card_{i}" for i in range(14)]
    assert set(form.types.values()) == {"text"}
    assert all(value == "" for value in form.fields.values())
    assert form.submits == 1


def test_the_page_shows_the_place_the_user_and_the_hand(alice, place):
    text = body(alice.get("/operations"))
    assert 'class="site-header"' in text  # extends base.html
    assert f"Place {place.id}" in text
    assert "alice" in text
    alice_id = next(s.user_id for s in seats.seats_of(place.id) if s.name == "alice")
    for card in documents.hand_ids(place.id, alice_id):
        assert f"<code>{format_card(card)}</code>" in text
    assert "your turn" in text


def test_the_page_links_the_four_documents_in_json_and_xml(alice):
    text = body(alice.get("/operations"))
    for doc in ("get_hand", "get_place_info", "get_rank", "get_initial_hand"):
        for fmt in ("json", "xml"):
            assert f'href="/operations/{doc}.{fmt}"' in text


def test_the_page_shows_whose_turn_it_is_to_others(bob):
    text = body(bob.get("/operations"))
    assert "alice's turn" in text


def test_the_page_of_a_waiting_place_has_no_cards(client, waiting_place):
    login(client, "alice", waiting_place.id)
    text = body(client.get("/operations"))
    assert "No cards." in text
    assert "no turn open" in text


def test_the_page_shows_the_cards_on_the_table(bob, place, monkeypatch):
    from places.wire.records import api_card

    assert "Table:\n    empty" in body(bob.get("/operations"))
    real = documents.place_info

    def with_table(place_id):
        return {**real(place_id), "place_cards": [api_card(16), api_card(53)]}

    monkeypatch.setattr(documents, "place_info", with_table)
    assert "Table:\n    <code>2-3</code> ♥3, <code>joker</code> Joker" in body(
        bob.get("/operations")
    )
