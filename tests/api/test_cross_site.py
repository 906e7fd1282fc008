"""No CSRF token for bots, yet another site's page cannot make a browser play cards.

Bots send the session cookie alone and pass. A browser on another site sends
Origin (or at least Referer) with its POST and is refused with 403 CROSS_SITE,
before anything is read or changed; SameSite=Lax keeps the cookie off such
POSTs in the first place.
"""

from __future__ import annotations

import pytest

from tests.api.helpers import error_json, error_xml, snapshot
from tests.api.test_post_cards import a_safe_single

pytestmark = pytest.mark.django_db

ELSEWHERE = [
    "http://evil.example",
    "http://testserver.evil.example",
    "http://testserver:8081",
    "null",
]


def test_a_bot_posting_with_the_cookie_alone_plays(alice, place):
    response = alice.post("/post_cards.json", {"card_0": a_safe_single(place)})
    assert response.status_code == 200


def test_the_session_cookie_is_same_site_lax(client, place):
    response = client.post(
        "/sessions.json", {"name": "alice", "password": "alice-pw", "place_id": place.id}
    )
    assert response.cookies["sessionid"]["samesite"] == "Lax"


@pytest.mark.parametrize("origin", ELSEWHERE)
def test_a_post_whose_origin_is_another_site_is_refused(alice, place, origin):
    before = snapshot(place.id)
    response = alice.post(
        "/post_cards.json", {"card_0": a_safe_single(place)}, headers={"Origin": origin}
    )
    assert response.status_code == 403
    error_json("CROSS_SITE", response)
    assert snapshot(place.id) == before


def test_a_form_post_from_another_site_gets_a_403_page(alice, place):
    response = alice.post(
        "/operations/post_cards", {"card_0": "2-3"}, headers={"Origin": "http://evil.example"}
    )
    assert response.status_code == 403
    assert response["Content-Type"] == "text/html; charset=utf-8"
    assert "CROSS_SITE" in response.content.decode()


def test_a_post_with_no_origin_but_a_foreign_referer_is_refused(alice, place):
    before = snapshot(place.id)
    response = alice.post(
        "/post_cards.xml", {"card_0": "2-3"}, headers={"Referer": "https://evil.example/page"}
    )
    assert response.status_code == 403
    error_xml("CROSS_SITE", response)
    assert snapshot(place.id) == before


@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": "http://testserver"},
        {"Origin": "http://TESTSERVER:80"},
        {"Referer": "http://testserver/operations"},
        {"Origin": "http://testserver", "Referer": "http://evil.example/"},
        {"Origin": "TODO"},  # what the 2011 WebSocket sample sent: names no site
    ],
)
def test_the_site_s_own_pages_may_post(alice, place, headers):
    response = alice.post("/post_cards.json", {"card_0": a_safe_single(place)}, headers=headers)
    assert response.status_code == 200


def test_an_origin_trusted_in_settings_may_post(alice, place, settings):
    settings.CSRF_TRUSTED_ORIGINS = ["https://play.example"]
    response = alice.post(
        "/post_cards.json",
        {"card_0": a_safe_single(place)},
        headers={"Origin": "https://play.example"},
    )
    assert response.status_code == 200


def test_a_referer_from_a_trusted_origin_may_post(alice, place, settings):
    settings.CSRF_TRUSTED_ORIGINS = ["https://play.example"]
    response = alice.post(
        "/post_cards.json",
        {"card_0": a_safe_single(place)},
        headers={"Referer": "https://play.example/operations"},
    )
    assert response.status_code == 200


def test_a_cross_site_login_is_refused(client, place):
    response = client.post(
        "/sessions.json",
        {"name": "alice", "password": "alice-pw", "place_id": place.id},
        headers={"Origin": "http://evil.example"},
    )
    assert response.status_code == 403
    error_json("CROSS_SITE", response)
    assert "_auth_user_id" not in client.session


def test_a_cross_site_post_to_logout_is_refused_but_reading_is_allowed(alice):
    assert alice.post("/logout.json", headers={"Origin": "http://evil.example"}).status_code == 403
    response = alice.get("/get_hand.json", headers={"Origin": "http://evil.example"})
    assert response.status_code == 200


def test_the_django_csrf_token_is_not_needed(place):
    from django.test import Client

    strict = Client(enforce_csrf_checks=True)
    response = strict.post(
        "/sessions.json", {"name": "alice", "password": "alice-pw", "place_id": place.id}
    )
    assert response.status_code == 200
    assert strict.post("/post_cards.json", {"card_0": a_safe_single(place)}).status_code == 200
