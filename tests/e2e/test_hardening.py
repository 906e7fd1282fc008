"""The limits hold on the real server (daphne, as ``python -m daihinmin.serve`` runs it), and
touch no well-behaved bot.

- a socket that floods is closed with 4008 and its reason (daphne's autobahn refuses
  other closing codes from an application), and the server's memory stays put;
- a multipart body Twisted would have refused with a bare 400 gets the API's answer;
- bodies beyond the limit are answered 413 in the API's format, and not held;
- a 30-game place at pace 0, five bots over each transport, meets none of the limits.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from pathlib import Path

import httpx
import pytest
import websockets

from tests.e2e.test_place_with_bots import NAMES, create_place, finish_bots, watch

pytestmark = pytest.mark.e2e


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise LookupError("no VmRSS")


#: How long a place may go without an event before its test gives up on it.
STALL_SECONDS = 60


async def until_the_end(done: asyncio.Event, events: list[dict]) -> None:
    """Wait for the place's end while it moves. Its length is no limit under test, and on a
    busy machine a 50-game place took over the 120 s a fixed bound gave it; a place that
    stops (no event for ``STALL_SECONDS``) still fails."""
    seen = -1
    while not done.is_set():
        if len(events) == seen:
            raise TimeoutError(f"no event for {STALL_SECONDS} s after {seen} events")
        seen = len(events)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(done.wait(), timeout=STALL_SECONDS)


def log_in(server, name: str, place_id: int) -> httpx.Client:
    client = httpx.Client(base_url=server.url, timeout=30)
    response = client.post(
        "/login.json", data={"name": name, "password": f"{name}-pw", "place_id": place_id}
    )
    assert response.status_code == 200, response.text
    return client


async def test_a_socket_that_floods_is_closed_with_4008_and_memory_stays_put(server):
    # a burst beyond a second's frames, then the client listens: the close comes cleanly
    async with websockets.connect(server.ws_url + "/") as socket:
        for _ in range(1500):
            await socket.send('{"action":"get_hand"}')
        with pytest.raises(websockets.ConnectionClosed) as closed:
            while True:
                await socket.recv()
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4008
    # a flooder that never stops, and comes back: each socket is closed, nothing piles up
    before = rss_mb(server.process.pid)
    for _ in range(5):
        async with websockets.connect(server.ws_url + "/", max_queue=None) as socket:
            with pytest.raises(websockets.ConnectionClosed):
                for _ in range(1000):
                    for _ in range(100):
                        await socket.send('{"action":"get_hand"}')
                    await asyncio.sleep(0)
    await asyncio.sleep(0.5)
    assert rss_mb(server.process.pid) - before < 25  # no queue of frames left behind
    log = (server.workdir / "daphne.log").read_text(errors="replace")
    assert log.count("too many frames per second") >= 6  # daphne sends no reason: it is logged


def test_malformed_multipart_bodies_get_the_api_s_answer(server):
    place_id = create_place(server, games=1, pace="manual")
    server.manage("start_place", str(place_id))
    bob = log_in(server, "bob", place_id)
    no_boundary = bob.post(
        "/post_cards.json",
        content=b"--XX--\r\n",
        headers={"Content-Type": "multipart/form-data"},
    )
    assert no_boundary.status_code == 400
    assert no_boundary.json()["error"]["code"] == "BAD_REQUEST"
    empty = bob.post(
        "/post_cards.xml",
        content=b"--XX--\r\n",
        headers={"Content-Type": "multipart/form-data; boundary=XX"},
    )
    assert empty.status_code == 409  # read (an empty form: a pass), refused: no turn of Bob's
    assert empty.text.startswith('<?xml version="1.0" encoding="UTF-8"?>\n<error>')


def test_bodies_beyond_the_limit_are_413_and_not_held(server):
    place_id = create_place(server, games=1, pace="manual")
    alice = log_in(server, "alice", place_id)
    before = rss_mb(server.process.pid)
    big = b"card_0=" + b"2" * (20 * 1024 * 1024)

    def chunks():
        for i in range(0, len(big), 65536):
            yield big[i : i + 65536]

    stated = alice.post(
        "/post_cards.json",
        content=big,
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert stated.status_code == 413
    assert stated.json()["error"]["code"] == "REQUEST_TOO_LARGE"
    chunked = alice.post(
        "/post_cards.xml",
        content=chunks(),
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert chunked.status_code == 413
    assert "<code>REQUEST_TOO_LARGE</code>" in chunked.text
    assert rss_mb(server.process.pid) - before < 10  # neither 20 MB body was kept


#: Games of the full-speed place (50 until CI's time was cut): the test prints the requests a
#: second each HTTP bot made, the rate no limit may slow, over a place of this length.
GAMES_AT_FULL_SPEED = 30


@pytest.mark.parametrize("transport", ["http", "ws"])
async def test_five_bots_at_full_speed_meet_no_limit(server, transport):
    """None of the limits (api/rate.py's per-session one included, at its default) touches a
    well-behaved bot: five bots as fast as they can through a 30-game place at pace 0."""
    place_id = create_place(
        server, games=GAMES_AT_FULL_SPEED, pace="0", timeout="10", seed="limits"
    )
    events: list[dict] = []
    done, ready = asyncio.Event(), asyncio.Event()
    watcher = asyncio.ensure_future(watch(server.ws_url, place_id, events, done, ready))
    await asyncio.wait_for(ready.wait(), timeout=30)
    bots = [server.bot(place_id, n, f"{n}-pw", "greedy", transport) for n in NAMES]
    started = time.monotonic()
    server.manage("start_place", str(place_id))
    await until_the_end(done, events)
    await watcher
    seconds = time.monotonic() - started
    outputs = await asyncio.to_thread(finish_bots, bots)
    assert not any("RATE_LIMITED" in out or "429" in out for out in outputs)
    log = (server.workdir / "daphne.log").read_text(errors="replace")
    assert "closing a socket" not in log and "WebSocket refused" not in log
    assert '" 429 ' not in log and "Too Many Requests" not in log
    if transport == "http":
        requests = [
            line
            for line in log.splitlines()
            if '"POST /operations/post_cards' in line or '"GET /operations/' in line
        ]
        assert requests
        print(
            f"five HTTP bots, {GAMES_AT_FULL_SPEED} games: {len(requests) / seconds / len(NAMES):.0f} requests/s a bot"
        )
    print(f"five {transport} bots, {GAMES_AT_FULL_SPEED} games at pace 0: {seconds:.1f} s")
    turns = sum(1 for e in events if e["operation"] == "end_turn")
    assert sum(int(o.split(" turns")[0].split(": ")[1]) for o in outputs) == turns
    assert all("miss 0" in o for o in outputs)  # no turn timed out
    assert (
        json.loads(server.manage("place_status", str(place_id), "--json").stdout)["games_played"]
        == GAMES_AT_FULL_SPEED
    )
