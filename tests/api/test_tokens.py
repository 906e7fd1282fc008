"""Personal API tokens (issue 38): made from a session, shown once, stored hashed, sent as
``Authorization: Bearer`` on the player routes (JSON, XML, the fast path) and the socket,
revoked, and then refused, a running socket at its next frame."""

from __future__ import annotations

import hashlib
import json
from datetime import timedelta
from urllib.parse import urlencode

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from api import fast
from daihinmin.asgi import router
from places.models import ApiToken, Player
from places.reads import documents
from places.reads import tokens as tokens_read
from places.services import tokens
from tests.api.helpers import FORM, data, error_json, error_xml
from tests.api.test_fast_path import CountingDjango, request
from tests.api.test_post_cards import a_safe_single, user_id
from tests.api.test_websocket_acting import ask

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("close_thread_connections"),
]


def make_token(client: Client, label: str = "v2") -> dict:
    response = client.post("/tokens.json", urlencode({"label": label}), content_type=FORM)
    assert response.status_code == 201, response.content
    return data(response)


def bearer(token: str) -> dict:
    return {"HTTP_AUTHORIZATION": f"Bearer {token}"}


def test_a_token_s_life_over_http(place, alice):
    made = make_token(alice, "v2")
    token = made["token"]
    assert token.startswith(f"dh_{made['prefix']}_") and made["label"] == "v2"
    # seen once: the list never holds it, the row holds only its SHA-256
    listed = alice.get("/tokens.json")
    assert listed.status_code == 200 and token not in listed.content.decode()
    assert [t["label"] for t in data(listed)["tokens"]] == ["v2"]
    row = ApiToken.objects.get(pk=made["id"])
    assert row.digest == hashlib.sha256(token.encode()).hexdigest()
    assert token not in {row.label, row.prefix, row.digest}
    assert row.last_used_at is None

    bot = Client()  # no cookie: the token alone
    me = user_id(place, "alice")
    hand = bot.get(f"/get_hand.json?place_id={place.id}", **bearer(token))
    assert hand.status_code == 200
    assert [c["card"]["id"] for c in data(hand)] == documents.hand_ids(place.id, me)
    assert (
        bot.get(f"/operations/get_rank.xml?place_id={place.id}", **bearer(token)).status_code == 200
    )
    assert Player.objects.get(place=place, user_id=me).version == ""  # reads record nothing
    card = a_safe_single(place)
    posted = bot.post(
        "/post_cards.json", urlencode({"card_0": card, "place_id": place.id}),
        content_type=FORM, **bearer(token),
    )  # fmt: skip
    assert data(posted) == {"result": "play", "reason": None, "reset_place": False}
    assert Player.objects.get(place=place, user_id=me).version == "v2"  # the seat's version
    assert ApiToken.objects.get(pk=made["id"]).last_used_at is not None

    revoked = alice.delete(f"/tokens/{made['id']}.json")
    assert revoked.status_code == 200 and data(revoked)["revoked_at"]
    refused = bot.get(f"/get_hand.json?place_id={place.id}", **bearer(token))
    assert refused.status_code == 401
    error_json("INVALID_TOKEN", refused)
    error_xml("INVALID_TOKEN", bot.get(f"/get_hand.xml?place_id={place.id}", **bearer(token)))
    assert alice.delete(f"/tokens/{made['id']}.json").status_code == 200  # again: nothing more


def test_a_post_by_cookie_records_no_version(place, alice):
    card = a_safe_single(place)
    alice.post("/post_cards.json", urlencode({"card_0": card}), content_type=FORM)
    assert Player.objects.get(place=place, user_id=user_id(place, "alice")).version == ""


def test_a_token_names_no_place_the_request_does(place, other_place, alice):
    token = make_token(alice)["token"]
    bot = Client()
    no_place = bot.get("/get_hand.json", **bearer(token))
    assert no_place.status_code == 400
    error_json("INVALID_PARAMETER", no_place)
    elsewhere = bot.get(f"/get_hand.json?place_id={other_place.id}", **bearer(token))
    assert elsewhere.status_code == 401
    error_json("NOT_LOGGED_IN", elsewhere)


def test_a_bearer_token_wins_over_the_session_cookie(place, alice):
    """A wrong token with a good cookie is refused: the header says who is asking."""
    response = alice.get("/get_hand.json", **bearer("dh_000000000000_" + "x" * 43))
    assert response.status_code == 401
    error_json("INVALID_TOKEN", response)


def test_tokens_are_managed_from_a_logged_in_session_only(place, alice, bob):
    made = make_token(alice)
    anonymous = Client().post("/tokens.json", {"label": "v1"})
    assert anonymous.status_code == 401
    error_json("NOT_LOGGED_IN", anonymous)
    with_token = Client().post("/tokens.json", {"label": "v1"}, **bearer(made["token"]))
    assert with_token.status_code == 401  # a token cannot make tokens
    assert Client().get("/tokens.json", **bearer(made["token"])).status_code == 401
    cross = alice.post("/tokens.json", {"label": "v1"}, HTTP_ORIGIN="https://evil.example")
    assert cross.status_code == 403
    error_json("CROSS_SITE", cross)
    for label in ("", " ", "v 2", "x" * 41, "-v2", "v2<"):
        bad = alice.post("/tokens.json", {"label": label})
        assert bad.status_code == 400, label
        error_json("INVALID_PARAMETER", bad)
    not_hers = bob.delete(f"/tokens/{made['id']}.json")
    assert not_hers.status_code == 404
    error_json("NO_SUCH_TOKEN", not_hers)
    for no_id in ("null,null", "-1", "1e3", "9" * 19, "%C2%B2"):  # the fuzzer's: HTML 404s
        bad = alice.delete(f"/tokens/{no_id}.json")
        assert bad.status_code == 404, no_id
        error_json("NO_SUCH_TOKEN", bad)
    assert ApiToken.objects.get(pk=made["id"]).revoked_at is None
    assert ApiToken.objects.filter(user__username="alice").count() == 1  # nothing else made


def test_a_user_holds_at_most_so_many_tokens(place, alice):
    for n in range(tokens.MAX_TOKENS_PER_USER):
        make_token(alice, f"v{n}")
    too_many = alice.post("/tokens.json", {"label": "last"})
    assert too_many.status_code == 409
    error_json("TOO_MANY_TOKENS", too_many)
    first = ApiToken.objects.filter(user__username="alice").order_by("id").first()
    alice.delete(f"/tokens/{first.id}.json")
    make_token(alice, "last")  # a revoked one frees its room


def test_wrong_tokens_count_against_the_address_like_wrong_passwords(place, alice, settings):
    """Past LOGIN_ADDRESS_FAILURE_LIMIT wrong tokens, the address is held back: its tokens
    and its password logins alike (api/throttle.py)."""
    settings.LOGIN_ADDRESS_FAILURE_LIMIT = 3
    bot = Client()
    for n in range(3):
        wrong = bot.get(f"/get_hand.json?place_id={place.id}", **bearer(f"dh_{n:012x}_" + "y" * 43))
        assert wrong.status_code == 401
    held = bot.get(f"/get_hand.json?place_id={place.id}", **bearer("not-a-token"))
    assert held.status_code == 429 and int(held["Retry-After"]) >= 1
    error_json("TOO_MANY_ATTEMPTS", held)
    login = Client().post(
        "/login.json", {"name": "bob", "password": "bob-pw", "place_id": place.id}
    )
    assert login.status_code == 429  # a right password from that address waits too
    error_json("TOO_MANY_ATTEMPTS", login)


async def test_the_fast_path_checks_the_token_as_django_does(place, alice):
    """The hot routes run the same view: the token is checked there, not by a copy."""
    made = await sync_to_async(make_token)(alice)
    django_app = CountingDjango()
    fast_app = fast.wrap(django_app)
    path = f"/get_hand.json?place_id={place.id}"
    for token, status in ((made["token"], 200), ("dh_000000000000_" + "z" * 43, 401)):
        headers = [(b"authorization", f"Bearer {token}".encode()), (b"host", b"127.0.0.1")]
        answers = []
        for app in (fast_app, django_app):
            before = django_app.calls
            raw_path, _, query = path.partition("?")
            answer = await request(app, raw_path + "?" + query, headers=headers, method="GET")
            answers.append((answer["status"], answer["body"]))
            if app is fast_app:
                assert django_app.calls == before  # served by the fast path
        assert answers[0] == answers[1] and answers[0][0] == status


def token_socket(place_id: int, token: str) -> WebsocketCommunicator:
    headers = [(b"host", b"testserver"), (b"authorization", f"Bearer {token}".encode())]
    return WebsocketCommunicator(router, f"/ws/places/{place_id}/", headers=headers)


async def test_a_token_acts_over_the_socket_and_a_revoked_one_stops_it_at_its_next_frame(
    place, alice
):
    made = await sync_to_async(make_token)(alice, "v3")
    me = await sync_to_async(user_id)(place, "alice")
    hand = await sync_to_async(documents.hand_ids)(place.id, me)
    ws = token_socket(place.id, made["token"])
    connected, _ = await ws.connect()
    assert connected
    try:
        reply = await ask(ws, {"action": "get_hand"})
        assert [c["card"]["id"] for c in reply["cards"]] == hand
        card = await sync_to_async(a_safe_single)(place)
        reply = await ask(ws, {"action": "post_cards", "cards": [card]})
        assert reply["result"] == "play"
        version = await sync_to_async(lambda: Player.objects.get(place=place, user_id=me).version)()
        assert version == "v3"

        await sync_to_async(alice.delete)(f"/tokens/{made['id']}.json")
        reply = await ask(ws, {"action": "get_hand"})
        assert reply["error"]["code"] == "INVALID_TOKEN"
        while True:  # events may come before the close; nothing after it
            out = await ws.receive_output(timeout=5)
            if out["type"] == "websocket.close":
                break
        assert out["code"] == 4001
    finally:
        await ws.disconnect()


async def test_a_socket_with_a_wrong_token_is_refused_at_its_action(place):
    ws = token_socket(place.id, "dh_000000000000_" + "q" * 43)
    connected, _ = await ws.connect()
    assert connected  # it may listen: the events are public
    try:
        reply = await ask(ws, {"action": "get_hand"})
        assert reply["error"]["code"] == "INVALID_TOKEN"
    finally:
        await ws.disconnect()


def test_json_of_a_new_token_is_its_listing_plus_the_token(place, alice):
    made = make_token(alice)
    listed = data(alice.get("/tokens.json"))["tokens"][0]
    assert {k: v for k, v in made.items() if k != "token"} == listed
    assert json.dumps(listed).count("dh_") == 0


def test_making_and_revoking_in_a_loop_stops_at_the_bound_and_lists_the_last_revoked(place, alice):
    """Issue 44, item 8: 300 tokens made and revoked in seconds were all kept and listed."""
    for n in range(tokens.MAX_MADE_PER_WINDOW):
        made = make_token(alice, f"loop{n}")
        assert alice.delete(f"/tokens/{made['id']}.json").status_code == 200
    refused = alice.post("/tokens.json", {"label": "one-more"})
    assert refused.status_code == 429
    error_json("TOO_MANY_NEW_TOKENS", refused)
    wait = int(refused["Retry-After"])
    assert 0 < wait <= tokens.MADE_WINDOW.total_seconds()
    listed = data(alice.get("/tokens.json"))["tokens"]
    assert [t["label"] for t in listed] == [
        f"loop{n}" for n in range(tokens.MAX_MADE_PER_WINDOW - 1, -1, -1)
    ][: tokens_read.REVOKED_LISTED]
    # a day later: room again, and the revoked ones but the last listed are gone
    mine = ApiToken.objects.filter(user__username="alice")
    day = tokens.MADE_WINDOW + timedelta(seconds=1)
    for row in list(mine):
        ApiToken.objects.filter(pk=row.pk).update(
            created_at=row.created_at - day, revoked_at=row.revoked_at - day
        )
    make_token(alice, "next-day")
    assert mine.all().count() == tokens_read.REVOKED_LISTED + 1
    assert len(data(alice.get("/tokens.json"))["tokens"]) == tokens_read.REVOKED_LISTED + 1
