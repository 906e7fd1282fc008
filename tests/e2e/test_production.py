"""The production layout, for real: Debian's nginx in front of two server processes
(``deploy/serve_prod.py``, production settings) on PostgreSQL and Redis. A place is
played through nginx by bots over both transports, watched by a spectator on each
process and one through nginx, and a 2011 client (hixie-75) through nginx's stream
proxy; every stream is checked against the database's event log and replayed with
the engine.

Needs Redis and nginx: CI runs it in its PostgreSQL + Redis step (``.ci/run``
installs nginx).
"""

from __future__ import annotations

import asyncio
import json

import pytest

from harness.stack import Stack
from tests.e2e.event_replay import check_stream
from tests.e2e.legacy_client import Legacy
from tests.e2e.marks import NEEDS_REDIS
from tests.e2e.test_place_with_bots import NAMES, create_place, finish_bots, watch_all

pytestmark = [pytest.mark.e2e, NEEDS_REDIS, pytest.mark.needs("nginx", "libnginx-mod-stream")]


@pytest.fixture
def stack(tmp_path):
    from harness.server import Server

    server = Server(tmp_path)  # the database (and Redis prefix); its own daphne stays off
    s = Stack(server, legacy=True)
    yield s
    s.stop()
    server.stop()


async def test_a_place_through_nginx_reaches_a_spectator_on_each_process(stack):
    server = stack.server
    front = stack.front()
    # production settings: no debug pages, static files from nginx, the health check
    assert stack.get("/healthz").json()["database"] == "ok"
    assert stack.get("/static/css/site.css").headers["server"].startswith("nginx")
    missing = stack.get("/no-such-page")
    assert missing.status_code == 404 and "Traceback" not in missing.text

    place_id = create_place(server, games=3, seed="nginx")
    urls = {
        "process 1": stack.process_ws_url(0),
        "process 2": stack.process_ws_url(1),
        "nginx": stack.ws_url,
    }
    streams, watchers = await watch_all(urls, place_id)
    old = await Legacy.connect(stack.legacy_port)  # through nginx's stream proxy
    assert old.head.startswith(b"HTTP/1.1 101 Web Socket Protocol Handshake\r\n")
    old_stream = asyncio.ensure_future(old.place(place_id))
    transports = ["ws", "http", "ws", "http", "ws"]
    bots = [
        front.bot(place_id, n, f"{n}-pw", "greedy", t)
        for n, t in zip(NAMES, transports, strict=True)
    ]
    server.manage("start_place", str(place_id))
    for task, done in watchers:
        await asyncio.wait_for(done.wait(), timeout=180)
        await task
    await asyncio.to_thread(finish_bots, bots)
    streams["2011, nginx"] = [json.loads(t) for t in await asyncio.wait_for(old_stream, 60)]
    old.close()

    log = front.events(place_id)
    for label, events in streams.items():
        assert events == log, label
    summary = check_stream(log, NAMES, game_count=3, seed="nginx")
    assert sum(summary.points) == 3 * 10


def test_nginx_s_access_log_writes_no_password_or_token_of_a_query_string(stack):
    """Issue 44, item 9: the 2011 routes take ``?name=…&password=…`` through nginx too; its
    access log (``deploy/nginx/daihinmin.conf``, ``log_format daihinmin``) redacts it."""
    import httpx

    place_id = create_place(stack.server, games=1, seed="log")
    with httpx.Client(base_url=stack.url, timeout=30) as client:
        query = f"name={NAMES[0]}&password={NAMES[0]}-pw&place_id={place_id}"
        assert client.post(f"/sessions.json?{query}").status_code == 200
        assert client.get("/get_hand.json").status_code == 200  # logged in by it
        page = {"Referer": f"{stack.url}/login?password=from-a-page"}
        assert client.get("/healthz?token=dh_0123456789ab_x", headers=page).status_code == 200
    log = (stack.run_dir / "access.log").read_text(errors="replace")
    assert '"POST /sessions.json?[redacted] HTTP/1.1" 200' in log
    assert '"GET /get_hand.json HTTP/1.1" 200' in log  # the rest as nginx's combined format
    assert '"GET /healthz?[redacted] HTTP/1.1" 200' in log and "/login?[redacted]" in log
    assert f"{NAMES[0]}-pw" not in log and "dh_0123" not in log and "from-a-page" not in log
