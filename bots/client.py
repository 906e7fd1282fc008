"""A client of the wire protocol: log in, read the hand, post cards, follow events.

Only HTTP and WebSocket, as any bot in any language would do it::

    import asyncio
    from bots.client import Bot
    from bots.strategies import greedy_player

    bot = Bot("http://127.0.0.1:8000", place_id=1, name="alice", password="pw",
              strategy=greedy_player(), transport="ws")
    asyncio.run(bot.run())   # returns after end_place

With a personal API token (``token=``, made on the site's ``/account`` page) instead
of a password, the bot never logs in: it sends ``Authorization: Bearer TOKEN`` with every
request and the socket's handshake, and names its place with ``place_id``.

With ``transport="http"`` the bot reads its hand and posts with HTTP (the 2011
way); with ``"ws"`` it acts over the place's WebSocket. Either way it follows
the events of ``ws://HOST/ws/places/ID/`` and reconnects when the connection
drops, asking the server whose turn it is when it comes back.

A server error (5xx), a ``429`` (after its ``Retry-After``) or a lost connection is
retried with backoff: reads as they are, a post with the ``idempotency_key`` it was
first sent with, so that the server plays it at most once (docs/protocol.md,
"Retrying a post").
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import random
import uuid
from collections import deque
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import TypeVar
from urllib.parse import urlsplit

import aiohttp

from bots.strategies import Strategy
from bots.table import TableView, card_ids
from daifugo.cards import format_card, mask_of, sorted_ids
from daifugo.place import points_for
from daifugo.plays import read_play
from daifugo.view import answer_2011

logger = logging.getLogger("bots")

T = TypeVar("T")

#: Answers worth asking again: the server (or a proxy in front of it) failed, or asks
#: to wait. A 429 is answered before anything is read, so even a post may be resent.
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
#: The same, as a socket's reply says it (it has no status).
RETRY_CODES = frozenset({"SERVER_ERROR", "RATE_LIMITED", "TOO_MANY_ATTEMPTS"})
#: A retried post refused so: its first attempt never reached the server, and the
#: turn moved on without it (or is being settled). That turn is over for the bot.
TURN_GONE = frozenset({"NOT_YOUR_TURN", "NO_TURN_OPEN"})
#: Lost connections and timeouts: the request may or may not have been served.
LOST = (aiohttp.ClientError, OSError, TimeoutError)


class ProtocolError(Exception):
    """The server answered with an error body (``{"error": {"code", "message"}}``),
    or with an error status and no such body (``HTTP_502`` from a proxy)."""

    def __init__(self, code: str, message: str, status: int = 0, retry_after: float | None = None):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.status = status
        #: Seconds the server asked to wait (``Retry-After``), if it said.
        self.retry_after = retry_after

    @property
    def retryable(self) -> bool:
        return self.status in RETRY_STATUSES or self.code in RETRY_CODES


class Bot:
    def __init__(
        self,
        server: str,
        place_id: int,
        name: str,
        password: str | None,
        strategy: Strategy,
        transport: str = "http",
        ws_server: str | None = None,
        reconnect_delay: float = 0.5,
        retries: int = 8,
        backoff: float = 0.25,
        max_backoff: float = 4.0,
        token: str | None = None,
    ):
        if transport not in ("http", "ws"):
            raise ValueError("transport is 'http' or 'ws'")
        if (password is None) == (token is None):
            raise ValueError("give a password or a token, not both")
        self.server = server.rstrip("/")
        self.place_id = int(place_id)
        self.name = name
        self.password = password
        #: A personal API token: sent as ``Authorization: Bearer`` instead of logging in.
        self.token = token
        self.strategy = strategy
        self.transport = transport
        parts = urlsplit(ws_server or self.server)
        scheme = "wss" if parts.scheme in ("https", "wss") else "ws"
        self.ws_url = f"{scheme}://{parts.netloc}/ws/places/{self.place_id}/"
        self.reconnect_delay = reconnect_delay
        #: A failed request is sent again up to ``retries`` times, after ``backoff``
        #: seconds doubling up to ``max_backoff`` (with jitter), or the Retry-After.
        self.retries = retries
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.retried = 0  # requests sent again, over the whole run
        self.view = TableView(place_id=self.place_id, me=name)
        self.http: aiohttp.ClientSession | None = None
        self._socket = None
        #: The socket's actions waiting for their replies, in the order they were sent (the
        #: server answers a socket's frames in order). Replies carry no request id: a
        #: dropped socket's actions fail rather than take the next socket's replies.
        self._waiting: deque[tuple[str, asyncio.Future]] = deque()
        self._acts: set[asyncio.Task] = set()  # acts started and not yet done
        #: One act at a time: a post is never made while an older one still retries.
        self._act_lock = asyncio.Lock()
        self._done = asyncio.Event()
        self.turns_played = 0
        #: Our cards, kept from the events once read (the founding document's
        #: advice: one get_hand a game, then follow the WebSocket); None: unknown.
        self.hand: int | None = None
        self.results: dict[str, int] = {}
        #: Our rank in each game we heard end (``end_player``), and the place's size.
        self.ranks: list[int] = []
        self.player_count = 5

    @property
    def connected(self) -> bool:
        """Logged in, with a socket open: the bot hears its place's events."""
        return self._socket is not None and not self._socket.closed

    # -- HTTP ---------------------------------------------------------------

    def _headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"} if self.token else {}

    async def _request(self, method: str, path: str, data: dict | None = None):
        assert self.http is not None
        params = None
        if self.token:  # a token names no place: each request does
            if method == "GET":
                params = {"place_id": str(self.place_id)}
            else:
                data = {**(data or {}), "place_id": str(self.place_id)}
        async with self.http.request(
            method, self.server + path, data=data, params=params, headers=self._headers()
        ) as response:
            return _json_or_raise(
                response.status, await response.read(), response.headers.get("Retry-After")
            )

    def _delay(self, attempt: int) -> float:
        """Exponential backoff with jitter: a crowd of bots does not come back at once."""
        return min(self.max_backoff, self.backoff * 2**attempt) * random.uniform(0.5, 1.0)

    async def _retrying(
        self,
        what: str,
        attempt: Callable[[], Awaitable[T]],
        keep_going: Callable[[], bool] = lambda: True,
    ) -> T:
        """``attempt()``, sent again after a 5xx, a 429 (once its Retry-After has passed)
        or a lost connection, up to ``retries`` times and while ``keep_going()``."""
        for n in itertools.count():
            try:
                return await attempt()
            except ProtocolError as e:
                if not e.retryable or n >= self.retries:
                    raise
                delay = e.retry_after if e.retry_after is not None else self._delay(n)
                failure: Exception = e
            except LOST as e:
                if n >= self.retries:
                    raise
                delay, failure = self._delay(n), e
            logger.warning(
                "%s: %s failed (%s); retrying in %.2f s", self.name, what, failure, delay
            )
            await asyncio.sleep(delay)
            if not keep_going():
                raise failure
            self.retried += 1
        raise AssertionError("unreachable")

    async def login(self) -> dict:
        if self.token:  # nothing to log in to: the token goes with every request
            return {"player": self.name, "place": self.place_id}
        data = {"name": self.name, "password": self.password, "place_id": str(self.place_id)}
        return await self._retrying("login", lambda: self._request("POST", "/login.json", data))

    async def get_hand(self) -> list[int]:
        return await self._retrying("get_hand", self._get_hand_once)

    async def _get_hand_once(self) -> list[int]:
        if self.transport == "ws" and self.connected:
            reply = await self._ask({"action": "get_hand"})
            return card_ids(reply["cards"])
        return card_ids(await self._request("GET", "/operations/get_hand.json"))

    async def get_place_info(self) -> dict:
        return await self._retrying(
            "get_place_info", lambda: self._request("GET", "/operations/get_place_info.json")
        )

    async def post_cards(
        self,
        cards: list[str],
        key: str | None = None,
        keep_going: Callable[[], bool] = lambda: True,
    ) -> dict:
        """Post, retried with one idempotency key: the server plays it at most once.

        Over the socket while it is open, else over HTTP: a post whose socket dropped is
        retried over HTTP, without waiting for the reconnection.
        """
        key = key or uuid.uuid4().hex
        return await self._retrying("post_cards", lambda: self._post_once(cards, key), keep_going)

    async def _post_once(self, cards: list[str], key: str) -> dict:
        if self.transport == "ws" and self.connected:
            return await self._ask({"action": "post_cards", "cards": cards, "idempotency_key": key})
        data = {f"card_{i}": c for i, c in enumerate(cards)}
        data["idempotency_key"] = key
        return await self._request("POST", "/operations/post_cards.json", data)

    async def _ask(self, request: dict) -> dict:
        socket = self._socket
        if socket is None or socket.closed:
            raise ConnectionError("no socket to ask on")
        future = asyncio.get_running_loop().create_future()
        entry = (request["action"], future)
        self._waiting.append(entry)
        try:
            await socket.send_str(json.dumps(request))
        except BaseException:  # never sent: no reply will come, and nobody will await it
            if entry in self._waiting:
                self._waiting.remove(entry)
            future.cancel()
            raise
        try:
            reply = await asyncio.wait_for(asyncio.shield(future), timeout=30)
        except TimeoutError:
            await socket.close()  # out of step with the server: start again on a new socket
            raise
        if "error" in reply:
            raise ProtocolError(reply["error"]["code"], reply["error"]["message"])
        return reply

    def _on_reply(self, reply: dict) -> None:
        """The reply to the oldest action waiting (a reply nobody waits for is dropped)."""
        if not self._waiting:
            return
        action, future = self._waiting[0]
        if reply.get("reply") not in (action, "unknown"):
            logger.warning("%s: a %s reply while %s waits", self.name, reply.get("reply"), action)
            return
        self._waiting.popleft()
        if not future.done():
            future.set_result(reply)

    def _socket_lost(self) -> None:
        """The socket is gone: its actions wait for replies that will never come."""
        self._socket = None
        while self._waiting:
            _action, future = self._waiting.popleft()
            if not future.done():
                future.set_exception(ConnectionError("the socket closed before the reply"))

    # -- playing -------------------------------------------------------------

    async def act(self) -> None:
        """Our turn: choose from the hand we know (read once a game), post.

        One act at a time. An act that had to wait for the one before asks whose turn
        it is first: the one before may have played the turn this act was called for.
        """
        waited = self._act_lock.locked()
        async with self._act_lock:
            try:
                if waited and (await self.get_place_info()).get("turn_player") != self.name:
                    return
                await self._play_turn()
            except ProtocolError as e:
                # NOT_YOUR_TURN / NO_TURN_OPEN: the turn moved on without us (a timeout)
                logger.warning("%s: %s", self.name, e)
            except LOST as e:
                logger.warning("%s: acting failed (%s); will retry on reconnect", self.name, e)

    async def _play_turn(self) -> None:
        game = self.view.game_no
        if self.hand is None:
            self.hand = mask_of(await self.get_hand())
        hand = self.hand
        choice = answer_2011(self.strategy, hand, self.view.table, self.view.revolution)
        cards = [] if choice is None else [format_card(c) for c in sorted_ids(choice)]
        retried = self.retried
        try:
            # Retried in this game only. A post that was played is answered from the server's
            # memory of its key, even after our next turn opened; one that never arrived
            # had its turn time out (a miss: no other turn of ours in this game), and must
            # not be played in the next game.
            result = await self.post_cards(cards, keep_going=lambda: self.view.game_no == game)
        except ProtocolError as e:
            if e.code not in TURN_GONE or self.retried == retried:
                raise
            logger.warning("%s: the turn moved on before the post was retried (%s)", self.name, e)
            return
        self.turns_played += 1
        outcome = result.get("result", "?")
        self.results[outcome] = self.results.get(outcome, 0) + 1
        if outcome == "miss":
            self.hand = None
            logger.info("%s missed: %s", self.name, result.get("reason"))

    def on_event(self, event: dict) -> None:
        if event.get("place") != self.place_id:
            return
        self.view.on_event(event)
        op = event["operation"]
        if op == "start_game":
            self.hand = None  # dealt and exchanged anew: read it at our first turn
        elif op == "end_turn" and event["player"] == self.name and self.hand is not None:
            self.hand &= ~mask_of(card_ids(event["turn_cards"]))
        elif op == "end_player" and event["player"] == self.name:
            self.ranks.append(event["rank"]["rank"]["rank"])
        if op == "start_turn" and event["player"] == self.name:
            self._start_act()
        elif op == "end_place":
            self._done.set()

    async def _catch_up(self) -> None:
        """After (re)connecting: if the turn is ours, we may have missed start_turn.

        Events may have been missed too, so the hand is read again.
        """
        self.hand = None
        info = await self.get_place_info()
        if info.get("state") == "finished":
            self._done.set()
            return
        self.view.game_no = info.get("game_no") or self.view.game_no
        self.player_count = info.get("player_count") or self.player_count
        if info.get("turn_player") == self.name:
            # an act still running (retrying a post) goes first; this one then asks again
            self.view.revolution = info.get("place_info") == "Revolution"
            table = card_ids(info.get("place_cards", []))
            self.view.table = read_play(mask_of(table), self.view.revolution)[0] if table else None
            self._start_act()

    def _start_act(self) -> None:
        task = asyncio.ensure_future(self.act())
        self._acts.add(task)
        task.add_done_callback(self._acts.discard)

    async def run(self) -> None:
        """Play until ``end_place``."""
        # unsafe: keep the cookies of a server named by its IP address (127.0.0.1)
        jar = aiohttp.CookieJar(unsafe=True)
        timeout = aiohttp.ClientTimeout(total=30)
        async with aiohttp.ClientSession(cookie_jar=jar, timeout=timeout) as http:
            self.http = http
            await self.login()
            for attempt in itertools.count():
                try:
                    # the session cookie goes with the handshake (from the jar); no Origin
                    async with http.ws_connect(
                        self.ws_url,
                        max_msg_size=2**22,
                        timeout=aiohttp.ClientWSTimeout(ws_close=5),
                        headers=self._headers(),
                    ) as socket:
                        self._socket = socket
                        await self._catch_up()
                        async for frame in socket:
                            if frame.type != aiohttp.WSMsgType.TEXT:
                                continue
                            try:
                                message = json.loads(frame.data)
                            except ValueError:
                                continue  # 2011 servers sent empty frames now and then
                            if "reply" in message:
                                self._on_reply(message)
                            else:
                                self.on_event(message)
                            if self._done.is_set():
                                break
                    self._socket_lost()
                    if self._done.is_set():
                        break
                    logger.info("%s: the server closed the socket; reconnecting", self.name)
                except (*LOST, ProtocolError) as e:
                    if isinstance(e, ProtocolError) and not (
                        e.retryable or e.code == "NOT_LOGGED_IN"
                    ):
                        raise  # catch-up refused for good (no such place, …): nothing to retry
                    self._socket_lost()
                    if self._done.is_set():
                        break
                    logger.info("%s: connection lost (%s); reconnecting", self.name, e)
                await asyncio.sleep(min(5.0, self.reconnect_delay * (attempt + 1)))
                with contextlib.suppress(OSError, aiohttp.ClientError, TimeoutError, ProtocolError):
                    await self.login()
            if self._acts:
                await asyncio.gather(*self._acts, return_exceptions=True)

    def summary(self) -> str:
        """The last line of ``python -m bots``: turns by outcome, games by rank, points."""
        outcomes = ", ".join(f"{o} {self.results.get(o, 0)}" for o in ("play", "pass", "miss"))
        names = ["1st", "2nd", "3rd"] + [f"{n}th" for n in range(4, self.player_count + 1)]
        by_rank = ", ".join(
            f"{names[r - 1]} {self.ranks.count(r)}" for r in range(1, len(names) + 1)
        )
        points = sum(points_for(r, self.player_count) for r in self.ranks)
        games = len(self.ranks)
        per_game = f" ({points / games:.2f} a game)" if games else ""
        return (
            f"{self.name}: {self.turns_played} turns ({outcomes}); {games} games ({by_rank}); "
            f"{points} points{per_game}"
        )


def _json_or_raise(status: int, content: bytes, retry_after: str | None = None):
    try:
        body = json.loads(content)
    except ValueError:
        body = None
    if status >= 400 or (isinstance(body, dict) and "error" in body):
        error = (body or {}).get("error", {}) if isinstance(body, dict) else {}
        raise ProtocolError(
            error.get("code", f"HTTP_{status}"),
            error.get("message", content[:200].decode(errors="replace")),
            status,
            seconds_to_wait(retry_after),
        )
    return body


def seconds_to_wait(retry_after: str | None) -> float | None:
    """A ``Retry-After`` header's wait: seconds, or an HTTP date; None if absent or unreadable."""
    if not retry_after:
        return None
    try:
        return max(0.0, float(retry_after))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(retry_after)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        return None
    return max(0.0, (when - datetime.now(UTC)).total_seconds())
