"""End to end: a crowd reading the every-place stream holds up no HTTP request.

The third outside probe: 63 sockets (within the per-address limit) reading the 2011
stream of a place of house bots at pace 0 made the worst ``state.json`` take 8.9–10.2 s
(0.22–0.41 s without them): the sender handed a change's backlog to every socket in one
turn of the loop. Here the same crowd, of the 2011 port and of ``ws://HOST/`` (RFC 6455),
reads while ``state.json`` is asked for again and again: the worst answer stays under a
second. The figures go to ``artifacts/stream_readers.txt``.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import statistics
import subprocess
import sys
import time
from multiprocessing.connection import Connection

import httpx
import pytest

from harness.server import ROOT, Server
from tests.timing import guard

pytestmark = pytest.mark.e2e

READERS = 63
#: Seconds ``state.json`` is asked for, without the readers and then with them, while a
#: place of ``GAMES`` games starts each second (``PLACES`` of them).
SECONDS = 6.0
PLACES = 3
GAMES = 60
REPORT = ROOT / "artifacts" / "stream_readers.txt"
SAMPLE_HANDSHAKE = (
    b"GET / HTTP/1.1\r\nUpgrade: WebSocket\r\nConnection: Upgrade\r\n"
    b"Host: 127.0.0.1\r\nOrigin: TODO\r\n\r\n"
)
RFC_6455_HANDSHAKE = (
    b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    s = Server(tmp_path_factory.mktemp("readers"), legacy=True)
    s.start()
    yield s
    s.stop()


def house_places(server: Server, name: str, count: int) -> list[int]:
    """Places of five house bots at pace 0: started, each runs to its end in one change
    (thousands of events: the probe's backlog)."""
    houses = [f"{name}-{i}" for i in range(5)]
    players = [a for h in houses for a in ("--player", h)]
    made = server.manage_all(
        *(["create_user", house, "--house", "random"] for house in houses),
        *(["create_place", f"{name} {n}", *players, "--games", str(GAMES), "--pace", "0",
           "--seed", f"{name}-{n}"] for n in range(count)),
    )  # fmt: skip
    return [int(out.strip()) for out in made[len(houses) :]]


def start_one_a_second(server: Server, place_ids: list[int]) -> subprocess.Popen:
    """A process starting the places one a second once it prints ``go`` (Django is up)."""
    code = (
        "import sys, time; from django.core.management import call_command\n"
        "print('go', flush=True)\n"
        f"for place_id in {place_ids!r}:\n"
        "    call_command('start_place', str(place_id))\n"
        "    time.sleep(1)\n"
    )
    starter = subprocess.Popen(
        [sys.executable, "manage.py", "shell", "--no-imports", "-c", code],
        cwd=ROOT,
        env=server.env,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert starter.stdout.readline().strip() == "go"
    return starter


async def read_raw(port: int, handshake: bytes, got: list[int], stop: asyncio.Event) -> None:
    """A reader that takes the bytes as they come and decodes none of them: a crowd of
    readers decoding frames in Python would take the machine's CPU from the server."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(handshake)
    try:
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 30)
        if b" 101 " not in head.split(b"\r\n", 1)[0]:
            raise ConnectionError(f"refused: {head[:200]!r}")
        while not stop.is_set():
            with contextlib.suppress(TimeoutError):
                data = await asyncio.wait_for(reader.read(65536), 0.5)
                if not data:
                    raise ConnectionError("the server closed a reader's socket")
                got[0] += len(data)
    finally:
        writer.close()


def crowd(kind: str, port: int, pipe: Connection) -> None:
    """In a process of its own (its reads do not hold up the test's requests): the readers
    connect, say ``ready``, read until told ``stop``, then send how much they read."""

    async def main() -> None:
        stop, got = asyncio.Event(), [0]
        handshake = SAMPLE_HANDSHAKE if kind == "2011" else RFC_6455_HANDSHAKE
        readers = [
            asyncio.create_task(read_raw(port, handshake, got, stop)) for _ in range(READERS)
        ]
        await asyncio.sleep(1)  # all connected, reading
        failed = [repr(r.exception()) for r in readers if r.done()]
        pipe.send(("ready", failed))
        await asyncio.to_thread(pipe.recv)
        read_then = got[0]
        await asyncio.to_thread(pipe.recv)
        stop.set()
        results = await asyncio.gather(*readers, return_exceptions=True)
        failed = [repr(r) for r in results if isinstance(r, BaseException)]
        pipe.send((got[0] - read_then, failed))

    asyncio.run(main())


async def worst_state_json(server: Server, place_ids: list[int]) -> tuple[float, float, int]:
    """The worst and the median time ``state.json`` took over ``SECONDS``, and how many,
    while the places start one a second and each runs to its end."""
    starter = await asyncio.to_thread(start_one_a_second, server, place_ids)
    place_id = place_ids[0]
    took = []
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as client:
        end = time.monotonic() + SECONDS
        while time.monotonic() < end:
            started = time.monotonic()
            response = await client.get(f"/places/{place_id}/state.json")
            took.append(time.monotonic() - started)
            assert response.status_code == 200
            await asyncio.sleep(0.05)
    assert await asyncio.to_thread(starter.wait, 60) == 0
    return max(took), statistics.median(took), len(took)


@pytest.mark.parametrize("kind", ["2011", "rfc6455"])
async def test_readers_of_a_pace_0_place_hold_up_no_request(server, kind):
    place_ids = house_places(server, f"readers-{kind}", 2 * PLACES)
    alone = await worst_state_json(server, place_ids[:PLACES])
    port = server.legacy_port if kind == "2011" else server.port
    ours, theirs = multiprocessing.get_context("spawn").Pipe()
    readers = multiprocessing.get_context("spawn").Process(target=crowd, args=(kind, port, theirs))
    readers.start()
    try:
        assert ours.poll(60)
        assert ours.recv() == ("ready", [])
        ours.send("measure")
        crowded = await worst_state_json(server, place_ids[PLACES:])
        ours.send("stop")
        assert ours.poll(60)
        read_during, failed = ours.recv()
    finally:
        readers.join(30)
        if readers.is_alive():
            readers.kill()
    assert not failed  # none was dropped, none failed
    REPORT.parent.mkdir(exist_ok=True)
    with REPORT.open("a") as f:
        f.write(
            f"{READERS} readers of the {kind} stream, a place of {GAMES} games of house bots at pace 0 a second: "
            f"state.json worst {crowded[0]:.3f} s, median {crowded[1]:.3f} s "
            f"({crowded[2]} requests; without the readers worst {alone[0]:.3f} s, median "
            f"{alone[1]:.3f} s); the readers read {read_during / SECONDS / 1e6:.2f} MB/s\n"
        )
    assert read_during > 0  # the readers were fed
    assert crowded[0] < guard(1.0), crowded
