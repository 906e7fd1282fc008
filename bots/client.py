"""A client of the wire protocol: log in, read the hand, post cards, follow events.

Only HTTP and WebSocket, as any bot in any language would do it::

    import asyncio
    from bots.client import Bot
    from bots.strategies import greedy_player

    bot = Bot("http://127.0.0.1:8000", place_id=1, name="alice", password="pw",
              strategy=greedy_player(), transport="ws")
    asyncio.run(bot.run())   # returns after end_place

With ``transport="http"`` the bot reads its hand and posts with HTTP (the 2011
way); with ``"ws"`` it acts over the place's WebSocket. Either way it follows
the events of ``ws://HOST/ws/places/ID/`` and reconnects when the connection
drops, asking the server whose turn it is when it comes back.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
from collections import deque
from urllib.parse import urlsplit

import aiohttp

from bots.strategies import Strategy
from bots.table import TableView, card_ids
from places.engine.cards import format_card, mask_of, sorted_ids
from places.engine.plays import read_play

logger = logging.getLogger("bots")


class ProtocolError(Exception):
    """The server answered with an error body (``{"error": {"code", "message"}}``)."""

    def __init__(self, code: str, message: str, status: int = 0):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.status = status


class Bot:
    def __init__(
        self,
        server: str,
        place_id: int,
        name: str,
        password: str,
        strategy: Strategy,
        transport: str = "http",
        ws_server: str | None = None,
        reconnect_delay: float = 0.5,
    ):
        if transport not in ("http", "ws"):
            raise ValueError("transport is 'http' or 'ws'")
        self.server = server.rstrip("/")
        self.place_id = int(place_id)
        self.name = name
        self.password = password
        self.strategy = strategy
        self.transport = transport
        parts = urlsplit(ws_server or self.server)
        scheme = "wss" if parts.scheme in ("https", "wss") else "ws"
        self.ws_url = f"{scheme}://{parts.netloc}/ws/places/{self.place_id}/"
        self.reconnect_delay = reconnect_delay
        self.view = TableView(place_id=self.place_id, me=name)
        self.http: aiohttp.ClientSession | None = None
        self._socket = None
        #: The socket's actions waiting for their replies, in the order they were sent (the
        #: server answers a socket's frames in order). Replies carry no request id: a
        #: dropped socket's actions fail rather than take the next socket's replies.
        self._waiting: deque[tuple[str, asyncio.Future]] = deque()
        self._acting: asyncio.Task | None = None
        self._done = asyncio.Event()
        self.turns_played = 0
        #: Our cards, kept from the events once read (the founding document's
        #: advice: one get_hand a game, then follow the WebSocket); None: unknown.
        self.hand: int | None = None
        self.results: dict[str, int] = {}

    @property
    def connected(self) -> bool:
        """Logged in, with a socket open: the bot hears its place's events."""
        return self._socket is not None and not self._socket.closed

    # -- HTTP ---------------------------------------------------------------

    async def _request(self, method: str, path: str, data: dict | None = None):
        assert self.http is not None
        async with self.http.request(method, self.server + path, data=data) as response:
            return _json_or_raise(response.status, await response.read())

    async def login(self) -> dict:
        data = {"name": self.name, "password": self.password, "place_id": str(self.place_id)}
        return await self._request("POST", "/login.json", data)

    async def get_hand(self) -> list[int]:
        if self.transport == "ws":
            reply = await self._ask({"action": "get_hand"})
            return card_ids(reply["cards"])
        return card_ids(await self._request("GET", "/operations/get_hand.json"))

    async def get_place_info(self) -> dict:
        return await self._request("GET", "/operations/get_place_info.json")

    async def post_cards(self, cards: list[str]) -> dict:
        if self.transport == "ws":
            return await self._ask({"action": "post_cards", "cards": cards})
        data = {f"card_{i}": c for i, c in enumerate(cards)}
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
        """Our turn: choose from the hand we know (read once a game), post."""
        try:
            if self.hand is None:
                self.hand = mask_of(await self.get_hand())
            hand = self.hand
            choice = self.strategy(hand, self.view.table, self.view.revolution)
            cards = [] if choice is None else [format_card(c) for c in sorted_ids(choice)]
            result = await self.post_cards(cards)
            self.turns_played += 1
            key = result.get("result", "?")
            self.results[key] = self.results.get(key, 0) + 1
            if key == "miss":
                self.hand = None
                logger.info("%s missed: %s", self.name, result.get("reason"))
        except ProtocolError as e:
            # NOT_YOUR_TURN / NO_TURN_OPEN: the turn moved on without us (a timeout)
            logger.warning("%s: %s", self.name, e)
        except (TimeoutError, aiohttp.ClientError, ConnectionError) as e:
            logger.warning("%s: acting failed (%s); will retry on reconnect", self.name, e)

    def on_event(self, event: dict) -> None:
        if event.get("place") != self.place_id:
            return
        self.view.on_event(event)
        op = event["operation"]
        if op == "start_game":
            self.hand = None  # dealt and exchanged anew: read it at our first turn
        elif op == "end_turn" and event["player"] == self.name and self.hand is not None:
            self.hand &= ~mask_of(card_ids(event["turn_cards"]))
        if op == "start_turn" and event["player"] == self.name:
            self._acting = asyncio.ensure_future(self.act())
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
        if info.get("turn_player") == self.name and (self._acting is None or self._acting.done()):
            self.view.revolution = info.get("place_info") == "Revolution"
            table = card_ids(info.get("place_cards", []))
            self.view.table = read_play(mask_of(table), self.view.revolution)[0] if table else None
            self._acting = asyncio.ensure_future(self.act())

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
                        self.ws_url, max_msg_size=2**22, timeout=aiohttp.ClientWSTimeout(ws_close=5)
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
                except (OSError, aiohttp.ClientError, TimeoutError) as e:
                    self._socket_lost()
                    if self._done.is_set():
                        break
                    logger.info("%s: connection lost (%s); reconnecting", self.name, e)
                await asyncio.sleep(min(5.0, self.reconnect_delay * (attempt + 1)))
                with contextlib.suppress(OSError, aiohttp.ClientError, TimeoutError, ProtocolError):
                    await self.login()
            if self._acting is not None:
                await asyncio.gather(self._acting, return_exceptions=True)


def _json_or_raise(status: int, content: bytes):
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
        )
    return body
