"""A bot that meets a server's 500s and a 429 plays on (issue 28 item 9).

A real place on a real daphne; one of its five bots (``python -m bots``, over HTTP)
goes through a proxy that answers it, once each: a 500 to its first catch-up
(``get_place_info``), a 429 with ``Retry-After`` to a ``get_hand``, a 500 to a
post that never reached the server, and a 500 to a post the server *did* play (the
answer lost on the way back). The bot rides them all out: it exits cleanly, never
times out, and the retried posts are played once each (its turns are the log's).
"""

from __future__ import annotations

import asyncio
from collections import Counter

import aiohttp
import pytest
from aiohttp import web

from tests.e2e.event_replay import check_stream
from tests.e2e.test_place_with_bots import NAMES, create_place, finish_bots, watch

pytestmark = pytest.mark.e2e

#: Hop-by-hop and length headers the proxy does not pass on: aiohttp sets its own.
SKIPPED = {"content-length", "transfer-encoding", "content-encoding", "connection", "host"}


class FaultyProxy:
    """HTTP in front of the server, answering what ``faults`` says once each, in turn."""

    def __init__(self, target: str):
        self.target = target
        self.injected: Counter[str] = Counter()
        self.posts = 0

    async def start(self) -> str:
        self.http = aiohttp.ClientSession(auto_decompress=False)
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", self.handle)
        self.runner = web.AppRunner(app)
        await self.runner.setup()
        site = web.TCPSite(self.runner, "127.0.0.1", 0)
        await site.start()
        return f"http://127.0.0.1:{site._server.sockets[0].getsockname()[1]}"

    async def close(self) -> None:
        await self.http.close()
        await self.runner.cleanup()

    def _once(self, fault: str) -> bool:
        if self.injected[fault]:
            return False
        self.injected[fault] += 1
        return True

    async def handle(self, request: web.Request) -> web.StreamResponse:
        path = request.path
        if path == "/operations/get_place_info.json" and self._once("500 on catch-up"):
            return web.Response(status=500, text="<h1>Server Error (500)</h1>")
        if path == "/operations/get_hand.json" and self._once("429 on get_hand"):
            return web.json_response(
                {"error": {"code": "RATE_LIMITED", "message": "try again in 1 s"}},
                status=429,
                headers={"Retry-After": "1"},
            )
        if path == "/operations/post_cards.json":
            self.posts += 1
            if self.posts == 3 and self._once("500 before the post"):
                return web.Response(status=502, text="bad gateway")
            forwarded = await self.forward(request)
            if self.posts >= 6 and self._once("500 after the post was played"):
                return web.Response(status=500, text="<h1>Server Error (500)</h1>")
            return forwarded
        return await self.forward(request)

    async def forward(self, request: web.Request) -> web.Response:
        headers = {k: v for k, v in request.headers.items() if k.lower() not in SKIPPED}
        async with self.http.request(
            request.method,
            self.target + request.path_qs,
            headers=headers,
            data=await request.read(),
            allow_redirects=False,
        ) as upstream:
            body = await upstream.read()
            answer = web.Response(status=upstream.status, body=body)
            for name, value in upstream.headers.items():
                if name.lower() not in SKIPPED:
                    answer.headers.add(name, value)
            return answer


async def test_a_bot_that_gets_500s_and_a_429_plays_on_and_each_post_counts_once(server):
    place_id = create_place(server, games=3, pace="0", timeout="10", seed="faults")
    proxy = FaultyProxy(server.url)
    url = await proxy.start()
    events: list[dict] = []
    done, ready = asyncio.Event(), asyncio.Event()
    watcher = asyncio.ensure_future(watch(server.ws_url, place_id, events, done, ready))
    await asyncio.wait_for(ready.wait(), timeout=30)
    try:
        faulty = NAMES[0]
        bots = [server.bot(place_id, faulty, f"{faulty}-pw", "greedy", "http", through=url)]
        bots += [server.bot(place_id, n, f"{n}-pw", "greedy", "http") for n in NAMES[1:]]
        server.manage("start_place", str(place_id))
        await asyncio.wait_for(done.wait(), timeout=180)
        await watcher
        outputs = await asyncio.to_thread(finish_bots, bots, 180)
    finally:
        await proxy.close()
    assert set(proxy.injected) == {
        "500 on catch-up",
        "429 on get_hand",
        "500 before the post",
        "500 after the post was played",
    }, proxy.injected
    out = outputs[0]
    assert "Traceback" not in out and "retrying" in out, out
    summary = check_stream(events, NAMES, game_count=3, seed="faults")
    assert sum(summary.points) == 30
    # no turn of the faulty bot timed out or was played twice (a greedy bot never misses:
    # a retry played again would be cards it no longer holds, or NOT_YOUR_TURN)
    settled = [e for e in events if e["operation"] == "end_turn" and e["player"] == faulty]
    turns_played = int(out.split(" turns")[0].rsplit(": ", 1)[1])
    assert turns_played == len(settled), out
    outcomes = server.manage(
        "shell",
        "--no-imports",
        "-c",
        "from places.models import Turn; print(sorted(set(Turn.objects.filter("
        f"game__place_id={place_id}, player__user__username='{faulty}')"
        ".values_list('outcome', flat=True))))",
    ).stdout.strip()
    assert outcomes in ("['pass', 'play']", "['play']"), outcomes
