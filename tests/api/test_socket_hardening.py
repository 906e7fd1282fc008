"""Sockets hold up against careless and hostile clients (``places/realtime``).

A flood of frames closes the socket (4008) instead of queueing without bound; a
handshake to a host not allowed is refused; a frame that crashes an answer gets
the stable error and the socket stays usable; a closed socket always stops
listening; a socket follows its session as HTTP does; one address holds a
bounded number of sockets.
"""

from __future__ import annotations

import json
from importlib import import_module

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings as django_settings
from django.test import Client

from daihinmin.asgi import router
from places.reads import documents
from places.realtime import broadcast
from tests.api.helpers import SESSION_ENDINGS, login, session_cookie, snapshot
from tests.api.test_post_cards import a_safe_single

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("close_thread_connections"),
]


def socket(path: str, cookie: str | None = None, host: bytes = b"testserver", **extra):
    headers = [(b"host", host)]
    if cookie:
        headers.append((b"cookie", f"sessionid={cookie}".encode()))
    headers += [(k.encode(), v.encode()) for k, v in extra.items()]
    comm = WebsocketCommunicator(router, path, headers=headers)
    comm.scope["client"] = ("10.1.2.3", 40000)
    return comm


async def ask(comm: WebsocketCommunicator, request: dict | str) -> dict:
    await comm.send_to(text_data=request if isinstance(request, str) else json.dumps(request))
    while True:
        message = json.loads(await comm.receive_from(timeout=5))
        if "reply" in message:
            return message


def listeners(group: str) -> int:
    return len(broadcast._listeners.get(group, ()))


@sync_to_async
def cookie_of(name: str, place_id: int) -> str:
    client = Client(HTTP_HOST="127.0.0.1")
    login(client, name, place_id)
    return session_cookie(client)


# -- 1: a flood of frames -------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/", "/ws/places/1/", "/ws/places/1/live/"])
async def test_a_socket_sending_frames_too_fast_is_closed_and_forgotten(settings, path):
    settings.WS_MAX_FRAMES_PER_SECOND = 20
    settings.WS_MAX_PENDING_FRAMES = 1000
    comm = socket(path)
    assert (await comm.connect())[0]
    for _ in range(200):
        await comm.send_input({"type": "websocket.receive", "text": '{"action":"get_hand"}'})
    closed = await comm.receive_output(timeout=5)
    while closed["type"] != "websocket.close":  # replies to the frames before the limit
        closed = await comm.receive_output(timeout=5)
    assert (closed["code"], closed["reason"]) == (4008, "too many frames per second")
    assert listeners(broadcast.ALL_PLACES_GROUP) == 0 and listeners("place.1") == 0
    await comm.send_input({"type": "websocket.disconnect", "code": 1006})
    await comm.wait(timeout=5)


async def test_a_player_socket_with_too_many_frames_waiting_is_closed(settings, place):
    settings.WS_MAX_PENDING_FRAMES = 2
    comm = socket(f"/ws/places/{place.id}/")
    assert (await comm.connect())[0]
    for _ in range(10):  # sent before any answer could come
        await comm.send_input({"type": "websocket.receive", "text": '{"action":"get_hand"}'})
    outputs = []
    while not outputs or outputs[-1]["type"] != "websocket.close":
        outputs.append(await comm.receive_output(timeout=5))
    assert (outputs[-1]["code"], outputs[-1]["reason"]) == (
        4008,
        "too many frames waiting for an answer",
    )
    assert len(outputs) <= 3  # at most the answers of the frames let in
    assert listeners(f"place.{place.id}") == 0
    await comm.send_input({"type": "websocket.disconnect", "code": 1006})
    await comm.wait(timeout=5)


# -- 3: the handshake's host ----------------------------------------------------------------


@pytest.mark.parametrize("path", ["/", "/ws/places/1/", "/ws/places/1/live/"])
async def test_a_handshake_to_a_host_not_allowed_is_refused(settings, path):
    settings.DEBUG = False
    settings.ALLOWED_HOSTS = ["127.0.0.1"]
    comm = socket(path, host=b"evil.example")
    connected, _ = await comm.connect()
    assert not connected
    assert listeners(broadcast.ALL_PLACES_GROUP) == 0 and listeners("place.1") == 0


async def test_a_page_of_a_host_not_allowed_cannot_read_a_hand_with_its_origin(settings, place):
    settings.DEBUG = False
    settings.ALLOWED_HOSTS = ["127.0.0.1"]
    cookie = await cookie_of("alice", place.id)
    comm = socket(
        f"/ws/places/{place.id}/", cookie, host=b"evil.example", origin="http://evil.example"
    )
    connected, _ = await comm.connect()
    assert not connected


async def test_a_handshake_to_an_allowed_host_is_accepted(settings, place):
    settings.DEBUG = False
    settings.ALLOWED_HOSTS = ["127.0.0.1"]
    cookie = await cookie_of("alice", place.id)
    comm = socket(f"/ws/places/{place.id}/", cookie, host=b"127.0.0.1")
    assert (await comm.connect())[0]
    assert "cards" in await ask(comm, {"action": "get_hand"})
    await comm.disconnect()


# -- 6: frames that crash an answer ---------------------------------------------------------


async def test_a_frame_nested_too_deep_gets_the_stable_error_and_the_socket_goes_on(place):
    cookie = await cookie_of("alice", place.id)
    comm = socket(f"/ws/places/{place.id}/", cookie)
    assert (await comm.connect())[0]
    reply = await ask(comm, "[" * 100_000)
    assert reply["error"]["code"] == "BAD_REQUEST"
    assert "cards" in await ask(comm, {"action": "get_hand"})  # still answering
    await comm.disconnect()
    assert listeners(f"place.{place.id}") == 0


async def test_an_answer_that_fails_is_a_server_error_reply_not_a_dead_socket(place, monkeypatch):
    cookie = await cookie_of("alice", place.id)

    def broken(place_id, user_id):
        raise RuntimeError("the database went away")

    monkeypatch.setattr(documents, "hand", broken)
    comm = socket(f"/ws/places/{place.id}/", cookie)
    assert (await comm.connect())[0]
    assert (await ask(comm, {"action": "get_hand"}))["error"]["code"] == "SERVER_ERROR"
    monkeypatch.undo()
    assert "cards" in await ask(comm, {"action": "get_hand"})
    await comm.disconnect()


async def test_a_place_id_too_large_for_the_database_is_no_place_socket():
    comm = socket("/ws/places/99999999999999999999999/")
    assert (await comm.connect())[0]  # an unrouted path: every place's events, as in 2011
    await comm.send_to(text_data='{"action":"get_hand"}')
    assert await comm.receive_nothing(timeout=0.2)  # a listening socket ignores frames
    await comm.disconnect()
    assert listeners(broadcast.ALL_PLACES_GROUP) == 0


async def test_a_socket_whose_consumer_crashes_is_forgotten(monkeypatch):
    from places.realtime.consumers import AllPlacesConsumer

    async def accept_then_crash(self):
        await self.accept()
        raise RuntimeError("a bug")

    monkeypatch.setattr(AllPlacesConsumer, "connect", accept_then_crash)
    comm = socket("/")
    await comm.send_input({"type": "websocket.connect"})
    assert (await comm.receive_output(timeout=5))["type"] == "websocket.accept"
    with pytest.raises(RuntimeError):
        await comm.receive_output(timeout=5)
    assert listeners(broadcast.ALL_PLACES_GROUP) == 0


# -- 10: a socket follows its session -----------------------------------------------------


async def test_a_socket_opened_before_logout_no_longer_answers(place):
    cookie = await cookie_of("alice", place.id)
    comm = socket(f"/ws/places/{place.id}/", cookie)
    assert (await comm.connect())[0]
    assert "cards" in await ask(comm, {"action": "get_hand"})

    def logout():
        client = Client()
        client.cookies["sessionid"] = cookie
        assert client.post("/logout.json").status_code == 204

    await sync_to_async(logout)()
    assert (await ask(comm, {"action": "get_hand"}))["error"]["code"] == "NOT_LOGGED_IN"
    before = await sync_to_async(snapshot)(place.id)
    reply = await ask(comm, {"action": "post_cards", "cards": []})
    assert reply["error"]["code"] == "NOT_LOGGED_IN"
    assert await sync_to_async(snapshot)(place.id) == before
    await comm.disconnect()


@pytest.mark.parametrize("end", SESSION_ENDINGS)
async def test_a_session_ended_anywhere_stops_the_socket_at_its_next_action(place, end):
    cookie = await cookie_of("bob", place.id)
    comm = socket(f"/ws/places/{place.id}/", cookie)
    assert (await comm.connect())[0]
    assert "cards" in await ask(comm, {"action": "get_hand"})
    assert "cards" in await ask(comm, {"action": "get_hand"})  # the session, known
    await sync_to_async(end)(cookie)
    reply = await ask(comm, {"action": "get_hand"})
    assert reply["error"]["code"] == "NOT_LOGGED_IN" and "cards" not in reply
    await comm.disconnect()


@pytest.mark.parametrize("end", SESSION_ENDINGS)
async def test_a_session_ended_anywhere_is_refused_at_its_next_post_before_its_cards(place, end):
    """A post checks a known session with the place's lock: an ended one is refused
    NOT_LOGGED_IN (not INVALID_CARD for its cards), and nothing changes."""
    cookie = await cookie_of("bob", place.id)
    comm = socket(f"/ws/places/{place.id}/", cookie)
    assert (await comm.connect())[0]
    assert "cards" in await ask(comm, {"action": "get_hand"})  # the session, known
    await sync_to_async(end)(cookie)
    before = await sync_to_async(snapshot)(place.id)
    for cards in ([], "not a list", ["no such card"]):
        reply = await ask(comm, {"action": "post_cards", "cards": cards})
        assert reply["error"]["code"] == "NOT_LOGGED_IN", (cards, reply)
    assert await sync_to_async(snapshot)(place.id) == before
    await comm.disconnect()


async def test_a_known_session_s_bad_cards_are_refused_and_change_nothing(place):
    cookie = await cookie_of("alice", place.id)
    comm = socket(f"/ws/places/{place.id}/", cookie)
    assert (await comm.connect())[0]
    assert "cards" in await ask(comm, {"action": "get_hand"})
    before = await sync_to_async(snapshot)(place.id)
    for cards in ("not a list", [1, 2], ["no such card"], ["S3"] * 55):
        reply = await ask(comm, {"action": "post_cards", "cards": cards})
        assert reply["error"]["code"] == "INVALID_CARD", (cards, reply)
    assert await sync_to_async(snapshot)(place.id) == before
    await comm.disconnect()


async def test_a_session_changed_but_still_playing_here_posts_once(place):
    """A change to the session's row fails the check carried by the lock: Django's own
    check then says yes again, and the move is played, once."""
    cookie = await cookie_of("alice", place.id)
    comm = socket(f"/ws/places/{place.id}/", cookie)
    assert (await comm.connect())[0]
    assert "cards" in await ask(comm, {"action": "get_hand"})

    def touch_the_session() -> None:
        store = import_module(django_settings.SESSION_ENGINE).SessionStore(cookie)
        store["seen"] = 1
        store.save()

    await sync_to_async(touch_the_session)()
    card = await sync_to_async(a_safe_single)(place)
    events_before, _ = await sync_to_async(snapshot)(place.id)
    reply = await ask(comm, {"action": "post_cards", "cards": [card]})
    assert reply == {"reply": "post_cards", "result": "play", "reason": None, "reset_place": False}
    events_after, _ = await sync_to_async(snapshot)(place.id)
    assert events_after == events_before + 2  # end_turn, start_turn: played once
    await comm.disconnect()


async def test_a_session_of_one_place_cannot_act_over_another_place_s_socket(make_place):
    first, second = await sync_to_async(make_place)(), await sync_to_async(make_place)()
    cookie = await cookie_of("alice", first.id)  # Alice sits in both places
    comm = socket(f"/ws/places/{second.id}/", cookie)
    assert (await comm.connect())[0]
    before = await sync_to_async(snapshot)(second.id)
    reply = await ask(comm, {"action": "post_cards", "cards": []})  # her turn there too
    assert reply["error"]["code"] == "NOT_LOGGED_IN"
    assert (await ask(comm, {"action": "get_hand"}))["error"]["code"] == "NOT_LOGGED_IN"
    assert await sync_to_async(snapshot)(second.id) == before
    await comm.disconnect()


# -- 12: sockets per address --------------------------------------------------------------


async def test_one_address_holds_a_bounded_number_of_sockets(settings):
    settings.WS_MAX_SOCKETS_PER_ADDRESS = 2
    first, second, third = socket("/"), socket("/ws/places/1/live/"), socket("/")
    assert (await first.connect())[0] and (await second.connect())[0]
    assert not (await third.connect())[0]
    other = WebsocketCommunicator(router, "/", headers=[(b"host", b"testserver")])
    other.scope["client"] = ("10.9.9.9", 1)
    assert (await other.connect())[0]  # another address is not affected
    await first.disconnect()
    again = socket("/")
    assert (await again.connect())[0]  # a closed socket frees its place
    for comm in (second, other, again):
        await comm.disconnect()
