"""Acting over the WebSocket (PROTOCOL.md §4): the session cookie decides, replies are private.

The socket goes through the same checks as HTTP: a player reads only their own
hand, a player of another place can neither read nor act, and a socket
without a session is not logged in.
"""

from __future__ import annotations

import json

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model

from daihinmin.asgi import router
from places.reads import documents
from tests.api.helpers import session_cookie, snapshot
from tests.api.test_post_cards import a_safe_single, user_id

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("close_thread_connections"),
]


def socket(place_id: int, client=None, origin: str | None = None) -> WebsocketCommunicator:
    headers = [(b"host", b"testserver")]
    if client is not None:
        headers.append((b"cookie", f"sessionid={session_cookie(client)}".encode()))
    if origin:
        headers.append((b"origin", origin.encode()))
    return WebsocketCommunicator(router, f"/ws/places/{place_id}/", headers=headers)


async def open_socket(*args, **kwargs) -> WebsocketCommunicator:
    comm = socket(*args, **kwargs)
    connected, _ = await comm.connect()
    assert connected
    return comm


async def ask(comm: WebsocketCommunicator, request: dict) -> dict:
    """Send a request and return its reply (events that arrive first are skipped)."""
    await comm.send_to(text_data=json.dumps(request))
    while True:
        message = json.loads(await comm.receive_from(timeout=5))
        if "reply" in message:
            return message


def ids(reply: dict) -> list[int]:
    return [c["card"]["id"] for c in reply["cards"]]


async def test_each_socket_gets_its_own_player_s_hand_and_no_other(place, alice, bob):
    alice_hand = await sync_to_async(documents.hand_ids)(place.id, user_id(place, "alice"))
    bob_hand = await sync_to_async(documents.hand_ids)(place.id, user_id(place, "bob"))
    alice_ws = await open_socket(place.id, alice)
    bob_ws = await open_socket(place.id, bob)
    try:
        reply = await ask(alice_ws, {"action": "get_hand"})
        assert ids(reply) == alice_hand
        assert await bob_ws.receive_nothing(timeout=0.2)  # the reply went to Alice's socket only
        assert ids(await ask(bob_ws, {"action": "get_hand"})) == bob_hand
        assert await alice_ws.receive_nothing(timeout=0.2)
    finally:
        await alice_ws.disconnect()
        await bob_ws.disconnect()


async def test_a_play_over_the_socket_is_answered_before_its_events_and_never_broadcast(
    place, alice, bob
):
    card = await sync_to_async(a_safe_single)(place)
    alice_ws = await open_socket(place.id, alice)
    bob_ws = await open_socket(place.id, bob)
    try:
        await alice_ws.send_to(text_data=json.dumps({"action": "post_cards", "cards": [card]}))
        first = json.loads(await alice_ws.receive_from(timeout=5))
        assert first == {
            "reply": "post_cards",
            "result": "play",
            "reason": None,
            "reset_place": False,
        }
        seen = []
        while not await bob_ws.receive_nothing(timeout=0.3):
            seen.append(json.loads(await bob_ws.receive_from()))
        assert [m["operation"] for m in seen] == ["end_turn", "start_turn"]
        assert not any("reply" in m or "cards" in m for m in seen)
    finally:
        await alice_ws.disconnect()
        await bob_ws.disconnect()


async def test_the_same_player_over_http_and_socket_sees_the_same_hand(place, alice):
    http_hand = json.loads((await sync_to_async(alice.get)("/get_hand.json")).content)
    alice_ws = await open_socket(place.id, alice)
    try:
        assert (await ask(alice_ws, {"action": "get_hand"}))["cards"] == http_hand
    finally:
        await alice_ws.disconnect()


async def test_a_player_of_another_place_can_neither_read_nor_act_here(place, frank):
    before = await sync_to_async(snapshot)(place.id)
    ws = await open_socket(place.id, frank)
    try:
        reply = await ask(ws, {"action": "get_hand"})
        assert reply["error"]["code"] == "NOT_LOGGED_IN"
        assert "cards" not in reply
        reply = await ask(ws, {"action": "post_cards", "cards": []})
        assert reply["error"]["code"] == "NOT_LOGGED_IN"
    finally:
        await ws.disconnect()
    assert await sync_to_async(snapshot)(place.id) == before


async def test_a_socket_without_a_session_is_not_logged_in(place):
    before = await sync_to_async(snapshot)(place.id)
    ws = await open_socket(place.id)
    try:
        assert (await ask(ws, {"action": "get_hand"}))["error"]["code"] == "NOT_LOGGED_IN"
        reply = await ask(ws, {"action": "post_cards", "cards": ["2-3"]})
        assert reply["error"]["code"] == "NOT_LOGGED_IN"
    finally:
        await ws.disconnect()
    assert await sync_to_async(snapshot)(place.id) == before


async def test_a_socket_of_a_session_whose_password_changed_since_is_not_logged_in(place, alice):
    """The session's auth hash is checked when the socket opens, as Django checks it."""

    def change_password() -> None:
        member = get_user_model().objects.get(username="alice")
        member.set_password("a-new-one")
        member.save()

    await sync_to_async(change_password)()
    ws = await open_socket(place.id, alice)
    try:
        assert (await ask(ws, {"action": "get_hand"}))["error"]["code"] == "NOT_LOGGED_IN"
    finally:
        await ws.disconnect()


async def test_a_made_up_session_key_is_not_logged_in(place):
    headers = [(b"host", b"testserver"), (b"cookie", b"sessionid=made-up-key; other=1")]
    ws = WebsocketCommunicator(router, f"/ws/places/{place.id}/", headers=headers)
    connected, _ = await ws.connect()
    assert connected
    try:
        assert (await ask(ws, {"action": "get_hand"}))["error"]["code"] == "NOT_LOGGED_IN"
    finally:
        await ws.disconnect()


async def test_not_your_turn_over_the_socket_changes_nothing(place, bob):
    before = await sync_to_async(snapshot)(place.id)
    ws = await open_socket(place.id, bob)
    try:
        reply = await ask(ws, {"action": "post_cards", "cards": []})
        assert reply == {
            "reply": "post_cards",
            "error": {"code": "NOT_YOUR_TURN", "message": reply["error"]["message"]},
        }
    finally:
        await ws.disconnect()
    assert await sync_to_async(snapshot)(place.id) == before


async def test_a_socket_opened_by_a_page_of_another_site_cannot_act(place, alice):
    card = await sync_to_async(a_safe_single)(place)
    before = await sync_to_async(snapshot)(place.id)
    ws = socket(place.id, alice, origin="http://testserver:8081")
    connected, _ = await ws.connect()
    try:
        if connected:
            reply = await ask(ws, {"action": "post_cards", "cards": [card]})
            assert "error" in reply
    finally:
        await ws.disconnect()
    assert await sync_to_async(snapshot)(place.id) == before


async def test_a_socket_opened_by_a_page_of_another_site_cannot_read_the_hand(place, alice):
    ws = socket(place.id, alice, origin="http://testserver:8081")
    connected, _ = await ws.connect()
    try:
        if connected:
            reply = await ask(ws, {"action": "get_hand"})
            assert "cards" not in reply
    finally:
        await ws.disconnect()
