"""End to end: the 2011 event stream on its own port (``LEGACY_WS_PORT``) of a real server.

- clients of drafts -75 and -76 (the draft's own keys, answered with the draft's digest)
  get every event of the firehose (``ws://HOST/``), the same texts in the same order, over
  a whole place, non-ASCII included;
- a client that never reads is dropped, and the others get everything;
- a flood of connections from one address is refused past its limit (the site's sockets
  and these counted together), and a client that floods frames is closed.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import socket

import httpx
import pytest
import websockets

from harness.server import Server
from tests.e2e.legacy_client import DRAFT_76_REQUEST, SAMPLE_REQUEST, Legacy

pytestmark = pytest.mark.e2e

HOUSE = ["greedy", "shedder", "random", "greedy", "shedder"]
TITLE = "大富豪 ♠ 2011"


def started(tmp_path, **env: str) -> Server:
    server = Server(tmp_path, legacy=True, METRICS_TOKEN="legacy-test", **env)
    server.start()
    return server


@pytest.fixture
def server(tmp_path):
    s = started(tmp_path)
    yield s
    s.stop()


def house_users(server: Server) -> None:
    for i, strategy in enumerate(HOUSE):
        server.manage("create_user", f"house{i}", "--house", strategy)


def house_place(server: Server, games: int, title: str = TITLE) -> int:
    """A place of five house bots at pace 0: started, it runs to its end at once."""
    players = [arg for i in range(len(HOUSE)) for arg in ("--player", f"house{i}")]
    out = server.manage(
        "create_place", title, *players, "--games", str(games), "--pace", "0", "--seed", "legacy"
    )
    return int(out.stdout.strip())


def legacy_sockets(server: Server) -> int:
    text = httpx.get(
        f"{server.url}/metrics", headers={"Authorization": "Bearer legacy-test"}, timeout=10
    ).text
    return int(float(re.search(r"^daihinmin_legacy_sockets (\S+)$", text, re.M)[1]))


async def firehose(url: str, place_id: int, ready: asyncio.Event) -> list[str]:
    texts = []
    async with websockets.connect(url + "/", max_size=None) as ws:
        ready.set()
        async for text in ws:
            if json.loads(text)["place"] == place_id:
                texts.append(text)
                if json.loads(text)["operation"] == "end_place":
                    return texts
    return texts


async def test_drafts_75_and_76_get_the_firehoses_events_in_order_over_a_whole_place(server):
    house_users(server)
    place_id = house_place(server, games=2)
    ready = asyncio.Event()
    rfc = asyncio.ensure_future(firehose(server.ws_url, place_id, ready))
    await asyncio.wait_for(ready.wait(), timeout=30)
    old = await Legacy.connect(server.legacy_port)
    assert old.head.startswith(b"HTTP/1.1 101 Web Socket Protocol Handshake\r\n")
    new = await Legacy.connect(server.legacy_port, DRAFT_76_REQUEST)
    assert new.head.startswith(b"HTTP/1.1 101 WebSocket Protocol Handshake\r\n")
    assert new.head.endswith(b"\r\n\r\n8jKS'y:G*Co,Wxa-")  # the draft's digest for its keys
    # the whole place is one change: its events leave in one burst
    server.manage("start_place", str(place_id))
    streams = await asyncio.wait_for(
        asyncio.gather(rfc, old.place(place_id), new.place(place_id)), timeout=120
    )
    log = [
        json.dumps(e, ensure_ascii=False, separators=(",", ":")) for e in server.events(place_id)
    ]
    assert len(log) > 100
    assert streams[0] == log  # the firehose is the log ...
    assert streams[1] == log and streams[2] == log  # ... and so are both 2011 streams
    assert json.loads(streams[1][0])["place_info"]["title"] == TITLE
    old.close()
    new.close()


async def test_a_client_that_never_reads_is_dropped_and_the_others_get_everything(tmp_path):
    server = started(tmp_path, WS_MAX_BUFFERED_BYTES="20000")
    try:
        house_users(server)
        stuck = socket.socket()
        stuck.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # a small window
        stuck.connect(("127.0.0.1", server.legacy_port))
        stuck.sendall(SAMPLE_REQUEST)  # and never a read after this
        reader = await Legacy.connect(server.legacy_port)
        while legacy_sockets(server) < 2:
            await asyncio.sleep(0.1)
        # places until the server drops it: first the kernel takes what it can (on
        # loopback its send buffer grows to megabytes), then 20,000 bytes wait, no more;
        # long places, as each costs two commands
        sent = 0
        for _ in range(8):
            place_id = house_place(server, games=40)
            server.manage("start_place", str(place_id))
            texts = await asyncio.wait_for(reader.place(place_id), timeout=240)
            assert len(texts) == len(server.events(place_id)) > 1000  # the reader's: whole
            sent += sum(len(t.encode()) + 2 for t in texts)
            if legacy_sockets(server) == 1:  # the reader's alone
                break
        else:
            pytest.fail(f"a client that never read is still served after {sent} bytes")
        stuck.settimeout(10)
        received = 0
        with contextlib.suppress(ConnectionResetError):
            while data := stuck.recv(65536):
                received += len(data)
        assert received < sent  # the backlog was dropped
        stuck.close()
        reader.close()
    finally:
        server.stop()
    assert b"dropping a 2011 socket of 127.0.0.1" in (tmp_path / "daphne.log").read_bytes()


async def test_a_flood_of_connections_is_refused_past_the_addresses_limit(tmp_path):
    server = started(tmp_path, WS_MAX_SOCKETS_PER_ADDRESS="6", WS_MAX_FRAMES_PER_SECOND="50")
    try:
        site = [await websockets.connect(server.ws_url + "/") for _ in range(2)]
        old = [await Legacy.connect(server.legacy_port) for _ in range(4)]
        assert all(c.head.startswith(b"HTTP/1.1 101 ") for c in old)
        refused = await asyncio.gather(
            *(Legacy.connect(server.legacy_port) for _ in range(50))
        )  # a flood, at once
        assert all(c.head.startswith(b"HTTP/1.1 403 Forbidden\r\n") for c in refused)
        for c in refused:
            c.close()
        await site[0].close()  # a site's socket closed: its place is free for a 2011 one
        await asyncio.sleep(0.5)
        again = await Legacy.connect(server.legacy_port)
        assert again.head.startswith(b"HTTP/1.1 101 ")
        # a client that floods frames is closed; the others stay
        again.writer.write(b"\x00hello\xff" * 200)
        with pytest.raises(ConnectionError):
            await asyncio.wait_for(again.frame(), timeout=30)
        assert legacy_sockets(server) == 4
        for c in old:
            c.close()
        await site[1].close()
        assert httpx.get(f"{server.url}/healthz", timeout=10).status_code == 200
    finally:
        server.stop()
