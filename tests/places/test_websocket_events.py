"""Events reach WebSocket listeners after commit, exactly as logged, in order."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model
from django.test import Client

from daihinmin.asgi import router
from places import services
from places.models import PlaceEvent
from places.reads import seats
from tests.places.conftest import NAMES

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("close_thread_connections"),
]


@sync_to_async
def _setup(pace=0):
    model = get_user_model()
    for name in NAMES:
        model.objects.create_user(name, password=f"{name}-pw")
    seats.forget()
    return services.create_place("WS place", NAMES, game_count=1, pace=pace, seed="ws").id


@sync_to_async
def _logged(place_id: int) -> list[str]:
    return list(
        PlaceEvent.objects.filter(place_id=place_id)
        .order_by("seq")
        .values_list("message", flat=True)
    )


@sync_to_async
def _turn_user(place_id: int) -> tuple[int, str]:
    from tests.places.drive import engine_state

    state = engine_state(place_id)
    seat = seats.seats_of(place_id)[state.game.turn]
    return seat.user_id, seat.name


@sync_to_async
def _session_cookie(name: str, place_id: int) -> str:
    client = Client()
    response = client.post(
        "/login.json", {"name": name, "password": f"{name}-pw", "place_id": place_id}
    )
    assert response.status_code == 200, response.content
    return client.cookies["sessionid"].value


def socket(path: str, cookie: str | None = None) -> WebsocketCommunicator:
    """A socket as a bot opens it: a Host header (every HTTP/1.1 client sends one), no Origin."""
    headers = [(b"host", b"testserver")]
    if cookie:
        headers.append((b"cookie", f"sessionid={cookie}".encode()))
    return WebsocketCommunicator(router, path, headers=headers)


async def _receive_all(comm: WebsocketCommunicator, n: int) -> list[str]:
    return [await comm.receive_from(timeout=5) for _ in range(n)]


async def test_the_root_stream_and_the_place_stream_see_every_event_in_order():
    place_id = await _setup()
    everything = socket("/")
    one_place = socket(f"/ws/places/{place_id}/")
    legacy_path = socket("/any/other/path")
    for comm in (everything, one_place, legacy_path):
        connected, _ = await comm.connect()
        assert connected  # no Origin header, as bots send none
    await sync_to_async(services.start_place)(place_id)
    user_id, _ = await _turn_user(place_id)
    await sync_to_async(services.post_cards)(place_id, user_id, [])  # a pass on lead: a miss
    logged = await _logged(place_id)
    assert [json.loads(t)["operation"] for t in logged[:3]] == [
        "start_place",
        "start_game",
        "start_turn",
    ]
    for comm in (everything, one_place, legacy_path):
        assert await _receive_all(comm, len(logged)) == logged
        assert await comm.receive_nothing(timeout=0.1)
        await comm.disconnect()


async def test_a_place_stream_carries_only_its_own_place():
    place_id = await _setup()
    other = socket(f"/ws/places/{place_id + 1}/")
    assert (await other.connect())[0]
    await sync_to_async(services.start_place)(place_id)
    assert await other.receive_nothing(timeout=0.2)
    await other.disconnect()


async def test_a_player_acts_over_the_socket_and_the_reply_comes_before_the_events():
    place_id = await _setup()
    await sync_to_async(services.start_place)(place_id)
    user_id, name = await _turn_user(place_id)
    cookie = await _session_cookie(name, place_id)
    comm = socket(f"/ws/places/{place_id}/", cookie)
    assert (await comm.connect())[0]
    await comm.send_to(text_data=json.dumps({"action": "get_hand"}))
    hand = json.loads(await comm.receive_from(timeout=5))
    assert hand["reply"] == "get_hand" and len(hand["cards"]) in (10, 11, 12, 13)
    first = hand["cards"][0]["card"]
    written = "joker" if first["joker"] else f"{first['mark']}-{first['number']}"
    await comm.send_to(text_data=json.dumps({"action": "post_cards", "cards": [written]}))
    reply = json.loads(await comm.receive_from(timeout=5))
    assert reply["reply"] == "post_cards" and reply["result"] in ("play", "miss")
    event = json.loads(await comm.receive_from(timeout=5))
    assert event["operation"] in ("end_player", "end_turn") and event["player"] == name
    await comm.disconnect()


async def test_acting_over_the_socket_needs_a_player_of_the_place():
    place_id = await _setup()
    await sync_to_async(services.start_place)(place_id)
    anonymous = socket(f"/ws/places/{place_id}/")
    assert (await anonymous.connect())[0]
    await anonymous.send_to(text_data=json.dumps({"action": "post_cards", "cards": []}))
    reply = json.loads(await anonymous.receive_from(timeout=5))
    assert reply["error"]["code"] == "NOT_LOGGED_IN"
    await anonymous.send_to(text_data="not json")
    reply = json.loads(await anonymous.receive_from(timeout=5))
    assert reply["error"]["code"] == "BAD_REQUEST"
    await anonymous.disconnect()


async def test_pages_get_every_event_numbered_on_the_live_stream():
    place_id = await _setup()
    live = socket(f"/ws/places/{place_id}/live/")
    assert (await live.connect())[0]
    await sync_to_async(services.start_place)(place_id)
    logged = await _logged(place_id)
    frames = [json.loads(t) for t in await _receive_all(live, len(logged))]
    assert [f["seq"] for f in frames] == list(range(1, len(logged) + 1))
    assert [json.dumps(f["event"], separators=(",", ":")) for f in frames] == logged
    await live.disconnect()
