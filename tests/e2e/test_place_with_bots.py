"""End to end: daphne, the management commands and five bot processes that
speak only the wire protocol play a seeded place; a spectator at ``ws://HOST/``
sees every event, in order, and the engine agrees with each one; a player's socket gets
the answer to its post before the events the post caused."""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
import time
from collections.abc import AsyncIterator

import pytest
import websockets

from tests.e2e.event_replay import check_stream

NAMES = ["alice", "bob", "charlie", "dave", "eve"]

pytestmark = pytest.mark.e2e


def create_place(server, games: int, pace: str = "0", timeout: str = "5", seed: str = "e2e") -> int:
    """The five players and their place, with the management commands (in one process)."""
    users = [["create_user", name, "--password", f"{name}-pw"] for name in NAMES]
    players = [arg for name in NAMES for arg in ("--player", name)]
    *_, out = server.manage_all(
        *users,
        ["create_place", "E2E", *players, "--games", str(games), "--pace", pace,
         "--timeout", timeout, "--seed", seed],
    )  # fmt: skip
    return int(out.strip())


async def watch(
    ws_url: str, place_id: int, events: list[dict], done: asyncio.Event, ready: asyncio.Event
) -> None:
    """Collect one place's events from the every-place stream, reconnecting, until end_place."""
    while not done.is_set():
        try:
            async with websockets.connect(ws_url + "/") as socket:
                ready.set()
                async for text in socket:
                    message = json.loads(text)
                    if message.get("place") != place_id:
                        continue
                    events.append(message)
                    if message["operation"] == "end_place":
                        done.set()
                        return
        except (OSError, websockets.WebSocketException):
            await asyncio.sleep(0.2)


async def watch_all(urls: dict[str, str], place_id: int) -> tuple[dict, list]:
    """A spectator on each of ``urls`` (by label), each listening before this returns:
    their streams by label, and ``(task, done)`` of each."""
    streams: dict[str, list[dict]] = {}
    watchers = []
    for label, url in urls.items():
        events: list[dict] = []
        streams[label] = events
        done, ready = asyncio.Event(), asyncio.Event()
        watchers.append((asyncio.ensure_future(watch(url, place_id, events, done, ready)), done))
        await asyncio.wait_for(ready.wait(), timeout=30)
    return streams, watchers


def finish_bots(bots: list[subprocess.Popen], timeout: float = 120) -> list[str]:
    outputs = []
    deadline = time.monotonic() + timeout
    for bot in bots:
        out, _ = bot.communicate(timeout=max(1, deadline - time.monotonic()))
        assert bot.returncode == 0, out
        outputs.append(out)
    return outputs


@pytest.mark.parametrize("transport", ["http", "ws"])
async def test_five_wire_bots_play_a_seeded_place_and_a_spectator_sees_every_event(
    server, transport
):
    place_id = create_place(server, games=3)
    events: list[dict] = []
    done = asyncio.Event()
    ready = asyncio.Event()
    watcher = asyncio.ensure_future(watch(server.ws_url, place_id, events, done, ready))
    await asyncio.wait_for(ready.wait(), timeout=30)  # connected before anything happens
    bots = [server.bot(place_id, n, f"{n}-pw", "greedy", transport) for n in NAMES]
    server.manage("start_place", str(place_id))
    await asyncio.wait_for(done.wait(), timeout=120)
    await watcher
    outputs = await asyncio.to_thread(finish_bots, bots)

    summary = check_stream(events, NAMES, game_count=3, seed="e2e")
    assert events[0]["operation"] == "start_place" and events[-1]["operation"] == "end_place"
    assert server.events(place_id) == events  # the live stream is the log
    assert sum(summary.points) == 3 * 10
    assert sum(int(o.split(" turns")[0].split(": ")[1]) for o in outputs) == summary.turns


@pytest.mark.parametrize("transport", ["http", "ws"])
async def test_killing_the_server_mid_game_loses_no_turn_and_applies_none_twice(server, transport):
    # a paced place, so that the kill lands in the middle of it
    place_id = create_place(server, games=3, pace="0.05", timeout="5", seed="crash")
    bots = [server.bot(place_id, n, f"{n}-pw", "greedy", transport) for n in NAMES]
    server.manage("start_place", str(place_id))
    # let the place get into its second game; the log is read on from where it was, once
    # a poll (reading it whole each time chased the place to its end on a slow machine)
    deadline, after = time.monotonic() + 60, 0
    while time.monotonic() < deadline:
        after, events = server.events_after(place_id, after)
        if any(e["operation"] == "start_game" and e["game"]["no"] == 2 for e in events):
            break
        await asyncio.sleep(0.1)
    else:
        pytest.fail("the place did not reach game 2")
    server.kill()
    before = server.events_from_database(place_id)
    assert before[-1]["operation"] != "end_place", "the place ended before the kill"
    server.start()  # the same database; a new process with a new dealer
    outputs = await asyncio.to_thread(finish_bots, bots)
    # every bot paired each reply with its own request across the restart: none crashed,
    # none played a card it did not hold or misread the table (a greedy bot never misses)
    for out in outputs:
        assert "Traceback" not in out and "miss 0" in out, out
    events = server.events(place_id)
    assert events[: len(before)] == before  # nothing committed was lost or rewritten
    assert events[-1]["operation"] == "end_place"
    summary = check_stream(events, NAMES, game_count=3, seed="crash")
    assert sum(summary.points) == 30
    status = json.loads(server.manage("place_status", str(place_id), "--json").stdout)
    assert status["state"] == "finished"


async def test_the_acting_socket_gets_its_answer_then_the_events_it_caused(server):
    """Under daphne a player's frames of one turn of the loop leave in one write
    (``Socket._write_soon``); the answer to a post still comes before the events the
    post caused, and the other players get the events alone."""
    import aiohttp

    from bots.table import card_ids
    from daifugo.cards import format_card

    place_id = create_place(server, games=1, pace="0", timeout="30")
    async with contextlib.AsyncExitStack() as stack:
        sockets = {}
        for name in NAMES:
            http = await stack.enter_async_context(
                aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))
            )
            login = {"name": name, "password": f"{name}-pw", "place_id": str(place_id)}
            async with http.post(f"{server.url}/login.json", data=login) as response:
                assert response.status == 200
            sockets[name] = await stack.enter_async_context(
                http.ws_connect(f"{server.ws_url}/ws/places/{place_id}/")
            )

        async def frames(name: str) -> AsyncIterator[dict]:
            while True:
                yield json.loads((await sockets[name].receive(timeout=30)).data)

        server.manage("start_place", str(place_id))
        for name in NAMES:  # each socket up to the first turn's start
            async for event in frames(name):
                if event.get("operation") == "start_turn":
                    acting = event["player"]
                    break
        others = [n for n in NAMES if n != acting]
        await sockets[acting].send_json({"action": "get_hand"})
        hand = card_ids((await anext(frames(acting)))["cards"])
        await sockets[acting].send_json({"action": "post_cards", "cards": [format_card(hand[0])]})
        got = [await anext(frames(acting)) for _ in range(3)]
        assert got[0]["reply"] == "post_cards" and got[0]["result"] == "play"
        assert [e["operation"] for e in got[1:]] == ["end_turn", "start_turn"]
        assert got[1]["player"] == acting and got[2]["player"] != acting
        for name in others:
            async for event in frames(name):
                if event.get("operation") == "end_turn":
                    break
            assert await anext(frames(name)) == got[2]
