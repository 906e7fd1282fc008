"""WebSocket consumers: they listen to a place's events and answer a player's actions.

Events come from ``places.realtime.broadcast`` (:meth:`Socket.deliver`): straight
from this process's sender, and through the process's relay from other
processes. The groups are ``broadcast``'s, not the channel layer's: a socket
costs the layer nothing.

Acting over the socket goes through the same service functions, reads and session
rule as HTTP (``places.sessions``), read afresh at each action: a socket outlives
neither its session nor its place. A socket opened by a page of another site
receives events but cannot act or read a hand.

A socket reads its client's frames as they come (the server would otherwise queue
them without bound while an action is answered): a socket that answers keeps at
most ``WS_MAX_PENDING_FRAMES`` waiting, and any socket takes at most
``WS_MAX_FRAMES_PER_SECOND``; a client that sends more is closed with 4008 (daphne
sends no reason: the server logs it). Whatever a frame holds, it gets an answer; whatever happens, a closed
socket stops listening.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import time

from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings

from places import errors, logs, services, sessions
from places.reads import documents
from places.reads.seats import seat_player
from places.realtime import auth, broadcast, db_thread, frames
from places.wire.codec import compact

logger = logging.getLogger(__name__)

#: The spectators' streams of this process: (group, kind of socket) -> its stream.
_streams: dict[tuple[str, type], frames.Stream] = {}

#: Closing codes and their reasons. RFC 6455 gives applications 4000-4999 (daphne's
#: autobahn sends no other); 4008 is 1008, "policy violation", for this server's limits.
TOO_MANY_WAITING = (4008, "too many frames waiting for an answer")
TOO_FAST = (4008, "too many frames per second")
#: A socket whose bearer token is refused (revoked, or its user disabled) at an action: the
#: refusal is its last answer. 4001: 401, as an HTTP request with it is answered.
TOKEN_REFUSED = (4001, "the bearer token was refused")
ACTIONS = ("post_cards", "get_hand")


def _daphne_protocol(send):
    """The daphne (autobahn) protocol behind an ASGI ``send``, or None (another server,
    a test's communicator): then events go the ASGI way, one ``send`` each."""
    protocol = send.args[0] if isinstance(send, functools.partial) and send.args else None
    if protocol is None or not all(
        hasattr(protocol, a) for a in ("transport", "state", "STATE_OPEN", "send_queue")
    ):
        return None
    return protocol


class Socket(AsyncWebsocketConsumer):
    """Forwards its groups' events; subclasses set ``listen_to`` in ``connect`` and accept.

    A socket that ``answers`` handles its client's frames one at a time
    (:meth:`receive`); the others drop them as they come (the 2011 streams are one-way).
    """

    listen_to: list[str] = []
    answers = False

    async def __call__(self, scope, receive, send) -> None:
        """Channels' consumer loop, with the client's frames read ahead into a bounded inbox."""
        self.scope = scope
        self.base_send = send
        self._protocol = _daphne_protocol(send)
        self._unflushed: list[bytes] = []
        self._joined: list[tuple[tuple[str, type], frames.Stream]] = []
        self.channel_layer = None  # see the module doc
        inbox: asyncio.Queue[dict] = asyncio.Queue()
        worker: asyncio.Task | None = None
        rate = FrameRate(settings.WS_MAX_FRAMES_PER_SECOND)
        closing = False
        try:
            while True:
                message = await receive()
                kind = message["type"]
                if kind == "websocket.disconnect":
                    return
                if closing:
                    continue  # read on until the server lets go: what is not read piles up
                if kind == "websocket.connect":
                    await self.websocket_connect(message)  # connect(): accept or close
                    if self.answers:
                        worker = asyncio.ensure_future(self._work(inbox))
                elif kind == "websocket.receive":
                    why = None if rate.allows() else TOO_FAST
                    if why is None and self.answers:
                        if inbox.qsize() < settings.WS_MAX_PENDING_FRAMES:
                            inbox.put_nowait(message)
                        else:
                            why = TOO_MANY_WAITING
                    if why is not None:
                        closing = True
                        await self._stop(why, worker)
        finally:
            if worker is not None:
                worker.cancel()
            self._forget()

    async def _stop(self, why: tuple[int, str], worker: asyncio.Task | None) -> None:
        """Close the socket for a reason: no more events, no more answers."""
        code, reason = why
        self._flush()  # what was written before the close goes before it
        logger.warning("closing a socket of %s: %s", _client(self.scope), reason)
        if worker is not None:
            worker.cancel()
        self._forget()
        try:
            await self.close(code=code, reason=reason)
        except Exception:  # the server refused the close: it drops the connection itself
            logger.exception("closing a socket of %s failed", _client(self.scope))

    def _forget(self) -> None:
        for group in self.listen_to:
            broadcast.unlisten(group, self)
        for key, stream in self._joined:
            stream.leave(self)
            if not stream.sockets:  # its last socket: the stream stops listening
                broadcast.unlisten(key[0], stream)
                if _streams.get(key) is stream:
                    del _streams[key]
        self._joined = []

    async def _work(self, inbox: asyncio.Queue[dict]) -> None:
        while True:
            message = await inbox.get()
            await self.receive(message.get("text"), message.get("bytes"))

    async def accept(self, subprotocol=None, headers=None) -> None:
        """Listen before the client knows it is connected, so it misses nothing after."""
        for group in self.listen_to:
            await self._listen(group)
        await super().accept(subprotocol, headers)

    async def _listen(self, group: str) -> None:
        """A spectator under daphne joins its group's stream of its kind; others listen alone."""
        if self.flush_setting is None or self._protocol is None:
            await broadcast.listen(group, self)
            return
        key = (group, type(self))
        stream = _streams.get(key)
        if stream is None:
            setting = self.flush_setting
            stream = _streams[key] = frames.Stream(
                type(self).frame_text, lambda: getattr(settings, setting), Socket._write_now
            )
        await broadcast.listen(group, stream)  # again for each socket: it may have stopped
        stream.join(self)
        self._joined.append((key, stream))

    async def deliver(self, message: dict) -> None:
        await self.send(text_data=message["text"])

    #: How this kind of socket writes an event (``frame_text``); sockets of one kind share
    #: an event's frame.
    frame_kind = "event"

    @staticmethod
    def frame_text(message: dict) -> str:
        return message["text"]

    def write_frame(self, message: dict, built: dict[str, bytes]) -> bool:
        """Write the event's frame to the connection, built once per kind of socket
        (``built``); False when this socket cannot (not under daphne): then ``deliver``.

        A socket whose client takes less than it is sent (its unsent bytes past
        ``WS_MAX_BUFFERED_BYTES``) is dropped, so that it never holds up the place or the
        others: a live page reconnects and reads the snapshot again.
        """
        if not self._straight():
            return False
        protocol = self._protocol
        if protocol.state != protocol.STATE_OPEN:
            return True  # closing: nothing more goes out
        frame = built.get(self.frame_kind)
        if frame is None:
            frame = built[self.frame_kind] = frames.text_frame(self.frame_text(message))
        self._write_soon(frame)
        return True

    def _straight(self) -> bool:
        """Whether frames go straight to daphne's connection; if not, the ASGI way, after
        what went straight."""
        protocol = self._protocol
        if protocol is None or protocol.send_queue:
            self._flush()
            return False
        return True

    def _write_soon(self, frame: bytes) -> None:
        """A frame for this socket alone (a player's): it leaves on the loop's next turn, in
        one write with whatever else the socket is given meanwhile, in order.

        A change's events and the answer to the action that made it come within one
        turn of the loop: one system call for them instead of one each, and one read
        for the client (over nginx, one more hop each).
        """
        if not self._unflushed:
            asyncio.get_running_loop().call_soon(self._flush)
        self._unflushed.append(frame)

    def _flush(self) -> None:
        if self._unflushed:
            data, self._unflushed = b"".join(self._unflushed), []
            self._write_now(data)

    #: The setting of how long a spectator's frames wait at least to leave with others
    #: (its group's ``frames.Stream`` of its kind): one write to a connection costs the
    #: server system calls, and a thousand spectators written to at every event cost more
    #: than the place. None: a player's socket, written on the loop's next turn
    #: (:meth:`_write_soon`).
    flush_setting: str | None = None

    def _write_now(self, data: bytes) -> None:
        protocol = self._protocol
        if protocol.state != protocol.STATE_OPEN:
            return
        transport = protocol.transport
        if frames.unsent(transport) > settings.WS_MAX_BUFFERED_BYTES:
            logger.warning(
                "dropping a socket of %s: %s bytes unsent (a client too slow for its stream)",
                _client(self.scope),
                frames.unsent(transport),
            )
            self._forget()
            transport.abortConnection()
            return
        frames.send(transport, data)


class FrameRate:
    """A token bucket: ``per_second`` frames a second, as many at once."""

    def __init__(self, per_second: int):
        self.rate = float(per_second)
        self.tokens = self.rate
        self.at = time.monotonic()

    def allows(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.rate, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


def _client(scope) -> str:
    return str((scope.get("client") or ("?",))[0])


class AllPlacesConsumer(Socket):
    """``ws://HOST/`` and any unrouted path: the events of every place."""

    listen_to = [broadcast.ALL_PLACES_GROUP]
    #: 0 by default (only the pacing): a 2011 bot reads its turns here, and waits for each
    flush_setting = "WS_FIREHOSE_FLUSH_SECONDS"

    async def connect(self) -> None:
        await self.accept()


class PlaceConsumer(Socket):
    """``ws://HOST/ws/places/ID/``: one place's events, and acting for its players."""

    answers = True

    async def connect(self) -> None:
        self.place_id = int(self.scope["url_route"]["kwargs"]["place_id"])
        self.listen_to = [broadcast.place_group(self.place_id)]
        self._held: list[str] | None = None
        self._session = sessions.SocketSession(self.scope.get("session_key") or "")
        self._token_refused = False
        await self.accept()

    async def deliver(self, message: dict) -> None:
        if self._held is not None:  # an action is being answered: its reply goes first
            self._held.append(message["text"])
        else:
            await self.send(text_data=message["text"])

    def write_frame(self, message: dict, built: dict[str, bytes]) -> bool:
        if self._held is not None:  # an action is being answered: its reply goes first
            self._held.append(message["text"])
            return True
        return super().write_frame(message, built)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        self._held = []
        try:
            reply = await self._answer(text_data)
            await self._send_text(compact(reply))
        finally:
            while self._held:
                await self._send_text(self._held.pop(0))
            self._held = None
        if self._token_refused:  # the refusal was its last answer
            await self._stop(TOKEN_REFUSED, None)

    async def _send_text(self, text: str) -> None:
        """An answer or an event held back for it: under daphne with the socket's other
        frames (:meth:`Socket._write_soon`), elsewhere the ASGI way."""
        if not self._straight():
            await self.send(text_data=text)
        elif self._protocol.state == self._protocol.STATE_OPEN:
            self._write_soon(frames.text_frame(text))

    async def _answer(self, text_data: str | None) -> dict:
        try:
            request = json.loads(text_data or "")
        except (ValueError, RecursionError):  # not JSON, or nested beyond reading
            request = None
        action = request.get("action") if isinstance(request, dict) else None
        if action not in ACTIONS:
            return _refusal(
                "unknown", errors.BAD_REQUEST, 'send {"action": "post_cards" | "get_hand", …}'
            )
        if self.scope.get("cross_site"):
            return _refusal(action, errors.CROSS_SITE)
        if self._token_refused:
            return _refusal(action, errors.INVALID_TOKEN)
        if not self.scope.get("session_key") and not self.scope.get("bearer"):
            return _refusal(action, errors.NOT_LOGGED_IN)  # no work for the database thread
        try:
            return await db_thread.run(self._act, action, request, place=self.place_id)
        except Exception:
            logger.exception("place %s: answering %s failed", self.place_id, action)
            return _refusal(action, errors.SERVER_ERROR)

    def _act(self, action: str, request: dict) -> dict:
        """On the database thread: the session's player, as HTTP finds it, then the action."""
        with logs.about(self.place_id):
            return self._act_on_place(action, request)

    def _act_on_place(self, action: str, request: dict) -> dict:
        cards = request.get("cards")
        if cards is None:
            cards = []
        try:
            key = None
            if action == "post_cards":
                key = services.read_key(request.get(services.IDEMPOTENCY_KEY))
            bearer = self.scope.get("bearer")
            version = None
            if bearer is not None:  # checked at every frame: a revoked token stops here
                token = auth.check_token(bearer, _client(self.scope))
                place_id, user_id = seat_player(self.place_id, token.user_id)
                version = token.label
            else:
                if action == "post_cards" and (found := self._post_as_before(cards, key)):
                    return {"reply": "post_cards", **found.as_dict()}
                place_id, user_id = self._session.player()
            if place_id != self.place_id:
                raise errors.Refused(
                    errors.NOT_LOGGED_IN, f"this session plays in place {place_id}, not here"
                )
            if action == "get_hand":
                return {"reply": "get_hand", "cards": documents.hand(place_id, user_id)}
            result = services.post_cards(place_id, user_id, cards, key=key, version=version)
        except errors.Refused as e:
            if e.code == errors.INVALID_TOKEN:
                self._token_refused = True
            return errors.socket_reply(action, e)
        return {"reply": "post_cards", **result.as_dict()}

    def _post_as_before(self, cards: object, key: str | None) -> services.PostResult | None:
        """The post, when the session played here at its last action: the session's
        check rides with the place's lock (no round trip of its own). None when the
        session must be checked first: never checked, elsewhere, or changed since."""
        unchanged = self._session.unchanged()
        if unchanged is None or unchanged.player[0] != self.place_id:
            return None
        try:
            return services.post_cards(*unchanged.player, cards, unchanged, key)
        except services.Stale:  # nothing was done: Django's check decides, then the post
            self._session.forget()
            return None


def _refusal(action: str, code: errors.Code, message: str | None = None) -> dict:
    return errors.socket_reply(action, errors.Refused(code, message))


class LiveConsumer(Socket):
    """``ws://HOST/ws/places/ID/live/``: one place's events for pages, numbered.

    Each frame is ``{"seq":N,"event":{…}}``: a page that sees a number skip
    (the channel layer drops messages when a listener falls far behind) or
    reconnects re-reads the state and the event log from there. A UECda place's
    table comes as live frames too (``{"uecda":{…}}``, unnumbered, each complete:
    ``places/uecda/watch.py``); a 2011 place never has any.
    """

    async def connect(self) -> None:
        place_id = int(self.scope["url_route"]["kwargs"]["place_id"])
        self.listen_to = [broadcast.place_group(place_id), broadcast.live_group(place_id)]
        await self.accept()

    frame_kind = "live"
    flush_setting = "WS_LIVE_FLUSH_SECONDS"  # pages: a tenth of a second is nothing to an eye

    @staticmethod
    def frame_text(message: dict) -> str:
        if message["seq"] is None:  # a live frame: sent as it is
            return message["text"]
        return f'{{"seq":{message["seq"]},"event":{message["text"]}}}'

    async def deliver(self, message: dict) -> None:
        await self.send(text_data=self.frame_text(message))
