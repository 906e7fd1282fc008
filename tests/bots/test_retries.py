"""The client rides out a server's 500s and 429s (``bots/client.py``, issue 28 item 9).

Against a small aiohttp server that answers as told: reads are sent again after a
5xx, a 429 is waited out for its ``Retry-After``, a post is sent again with the
idempotency key of its first attempt, and a retry refused because the turn moved on
ends that turn instead of the bot.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import deque
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import aiohttp
import pytest
from aiohttp import web

from bots.client import Bot, ProtocolError, seconds_to_wait
from bots.strategies import greedy_player
from daifugo.cards import format_card

HAND = [3, 17, 31]  # the 3 of mark 1, the 4 of mark 2, the 5 of mark 3
PLAYED = {"result": "play", "reason": None, "reset_place": False}


def error(status: int, code: str, headers: dict | None = None) -> web.Response:
    body = {"error": {"code": code, "message": code.lower()}}
    return web.json_response(body, status=status, headers=headers)


class FakeServer:
    """Answers each route from a script (a queue of responses, then the normal one),
    and remembers every request: when it came and what it carried."""

    def __init__(self):
        self.script: dict[str, deque] = {}
        self.requests: list[tuple[str, float, dict]] = []

    def then(self, path: str, *responses) -> None:
        self.script.setdefault(path, deque()).extend(responses)

    async def handle(self, request: web.Request) -> web.StreamResponse:
        fields = dict(await request.post()) if request.method == "POST" else {}
        self.requests.append((request.path, time.monotonic(), fields))
        queue = self.script.get(request.path)
        if queue:
            answer = queue.popleft()
            return answer() if callable(answer) else answer
        if request.path == "/operations/get_hand.json":
            return web.json_response([{"card": {"id": i}} for i in HAND])
        if request.path == "/operations/post_cards.json":
            return web.json_response(PLAYED)
        if request.path == "/operations/get_place_info.json":
            return web.json_response({"turn_player": "alice", "state": "running"})
        return web.json_response({"player": "alice", "place": 1})

    def of(self, path: str) -> list[tuple[float, dict]]:
        return [(at, fields) for p, at, fields in self.requests if p == path]


@pytest.fixture
async def fake():
    server = FakeServer()
    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", server.handle)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    server.url = f"http://127.0.0.1:{site._server.sockets[0].getsockname()[1]}"
    yield server
    await runner.cleanup()


@pytest.fixture
async def bot(fake):
    b = Bot(fake.url, 1, "alice", "pw", greedy_player(), backoff=0.01, max_backoff=0.05)
    async with aiohttp.ClientSession() as http:
        b.http = http
        yield b


async def test_a_read_that_got_a_500_is_read_again(fake, bot):
    fake.then("/operations/get_hand.json", error(500, "SERVER_ERROR"))
    fake.then("/operations/get_hand.json", web.Response(status=502, text="<html>bad gateway"))
    assert await bot.get_hand() == HAND
    assert len(fake.of("/operations/get_hand.json")) == 3
    assert bot.retried == 2


async def test_a_429_is_waited_out_for_its_retry_after(fake, bot):
    fake.then("/operations/get_place_info.json", error(429, "RATE_LIMITED", {"Retry-After": "1"}))
    info = await bot.get_place_info()
    assert info["turn_player"] == "alice"
    (refused, _), (answered, _) = fake.of("/operations/get_place_info.json")
    assert answered - refused >= 1.0  # asked again only after the second it was told


async def test_a_post_is_retried_with_the_key_of_its_first_attempt(fake, bot):
    fake.then("/operations/post_cards.json", error(500, "SERVER_ERROR"), error(429, "RATE_LIMITED"))
    assert await bot.post_cards(["3-3"]) == PLAYED
    posts = [fields for _, fields in fake.of("/operations/post_cards.json")]
    assert len(posts) == 3
    keys = {p["idempotency_key"] for p in posts}
    assert len(keys) == 1 and len(keys.pop()) == 32  # one key, a UUID's hex
    assert all(p["card_0"] == "3-3" for p in posts)
    # the next post is another move: a key of its own
    await bot.post_cards([])
    assert fake.of("/operations/post_cards.json")[-1][1]["idempotency_key"] not in {
        p["idempotency_key"] for p in posts
    }


async def test_errors_that_are_no_failure_of_the_server_are_not_retried(fake, bot):
    fake.then("/operations/post_cards.json", error(409, "NOT_YOUR_TURN"))
    with pytest.raises(ProtocolError) as refused:
        await bot.post_cards([])
    assert refused.value.code == "NOT_YOUR_TURN"
    assert len(fake.of("/operations/post_cards.json")) == 1


async def test_retries_end_after_the_last_one(fake, bot):
    bot.retries = 2
    fake.then("/operations/get_hand.json", *[lambda: error(503, "HTTP_503")] * 5)
    with pytest.raises(ProtocolError):
        await bot.get_hand()
    assert len(fake.of("/operations/get_hand.json")) == 3


async def test_a_post_stops_retrying_once_told_to(fake, bot):
    fake.then("/operations/post_cards.json", *[lambda: error(500, "SERVER_ERROR")] * 3)
    asked = []

    def keep_going() -> bool:
        asked.append(True)
        return len(asked) < 2  # a new game started after the first retry

    with pytest.raises(ProtocolError):
        await bot.post_cards(["3-3"], keep_going=keep_going)
    assert len(fake.of("/operations/post_cards.json")) == 2


async def test_a_turn_whose_post_got_a_500_is_played_once_and_the_bot_plays_on(fake, bot):
    """The regression: the bot took a 500 on its post as the end of its turn (never
    retried), and a 500 anywhere else as the end of its run."""
    fake.then("/operations/get_hand.json", error(500, "SERVER_ERROR"))
    fake.then("/operations/post_cards.json", error(500, "SERVER_ERROR"))
    await bot.act()
    assert bot.turns_played == 1 and bot.results == {"play": 1}
    posts = [fields for _, fields in fake.of("/operations/post_cards.json")]
    assert len(posts) == 2 and posts[0] == posts[1]
    assert posts[0]["card_0"] == format_card(HAND[0]) == "1-3"  # greedy: the weakest


async def test_a_retried_post_refused_because_the_turn_moved_on_ends_the_turn_not_the_bot(
    fake, bot
):
    # the first attempt never reached the server; the turn timed out meanwhile
    fake.then(
        "/operations/post_cards.json", error(500, "SERVER_ERROR"), error(409, "NOT_YOUR_TURN")
    )
    await bot.act()  # no exception
    assert bot.turns_played == 0
    assert len(fake.of("/operations/post_cards.json")) == 2


def test_retry_after_in_seconds_or_as_an_http_date():
    assert seconds_to_wait("3") == 3.0
    assert seconds_to_wait("0.5") == 0.5
    assert seconds_to_wait(None) is None
    assert seconds_to_wait("soon") is None
    later = format_datetime(datetime.now(UTC) + timedelta(seconds=30), usegmt=True)
    assert 25 <= seconds_to_wait(later) <= 30
    past = format_datetime(datetime.now(UTC) - timedelta(seconds=30), usegmt=True)
    assert seconds_to_wait(past) == 0.0


def test_an_error_body_is_read_with_its_status(fake):
    e = ProtocolError("RATE_LIMITED", "wait", 429, 2.0)
    assert e.retryable and e.retry_after == 2.0
    assert not ProtocolError("INVALID_CARD", "no", 400).retryable
    assert ProtocolError("SERVER_ERROR", "socket reply: no status").retryable
    assert json.loads(json.dumps(PLAYED)) == PLAYED


async def test_an_act_called_while_another_runs_waits_then_asks_whose_turn_it_is(fake, bot):
    """A catch-up and a start_turn may both ask for the same turn: it is played once, and
    never while the first act's post still retries."""
    fake.then("/operations/post_cards.json", error(500, "SERVER_ERROR"))  # the first retries
    fake.then(
        "/operations/get_place_info.json",
        web.json_response({"turn_player": "bob", "state": "running"}),
    )
    await asyncio.gather(bot.act(), bot.act())
    assert len(fake.of("/operations/post_cards.json")) == 2  # one post, sent twice
    assert len(fake.of("/operations/get_place_info.json")) == 1  # the second asked, and left
    assert bot.turns_played == 1
