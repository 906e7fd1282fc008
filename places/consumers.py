"""WebSocket consumers: thin; they join groups and forward frames.

Acting over the socket goes through the same service functions as HTTP, with
the same checks: a socket opened by a page of another site (its handshake's
Origin names another host) receives events but cannot act or read a hand.
"""

from __future__ import annotations

import json
import logging

from channels.consumer import get_handler_name
from channels.generic.websocket import AsyncWebsocketConsumer

from daihinmin.origins import foreign_header, netloc
from places import broadcast, db_worker, services
from places.engine.cards import ALL_IDS

logger = logging.getLogger(__name__)


class EventForwarder(AsyncWebsocketConsumer):
    """Forwards place events to the socket; subclasses set ``self.listen_to`` before accepting.

    Events come from ``places.broadcast`` (:meth:`deliver`): straight from this
    process's sender, and through the process's relay from other processes.
    The groups are ``broadcast``'s, not Channels': a socket costs the channel
    layer nothing. Forwarding touches no database, so it skips Channels'
    per-message connection housekeeping (a thread hop each time).
    """

    listen_to: list[str] = []

    async def accept(self, subprotocol=None, headers=None) -> None:
        """Listen before the client knows it is connected, so it misses nothing after."""
        for group in self.listen_to:
            await broadcast.listen(group, self)
        await super().accept(subprotocol, headers)

    async def websocket_disconnect(self, message: dict) -> None:
        for group in self.listen_to:
            broadcast.unlisten(group, self)
        await super().websocket_disconnect(message)

    async def dispatch(self, message: dict) -> None:
        """Channels' dispatch without its per-message ``aclose_old_connections()``.

        That housekeeping is a thread hop before every frame a client sends;
        the database work of these sockets runs on ``places.db_worker``, which
        keeps its own connection, so there is nothing here to close.
        """
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"no handler for message type {message['type']}")
        await handler(message)

    async def deliver(self, message: dict) -> None:
        await self.send(text_data=message["text"])


class AllPlacesConsumer(EventForwarder):
    """``ws://HOST/`` and any unrouted path: the events of every place."""

    listen_to = [broadcast.ALL_PLACES_GROUP]

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        """The 2011 stream is one-way: what clients send is ignored."""


class PlaceConsumer(EventForwarder):
    """``ws://HOST/ws/places/ID/``: one place's events, and acting for its players."""

    async def connect(self) -> None:
        self.place_id = int(self.scope["url_route"]["kwargs"]["place_id"])
        self.listen_to = [broadcast.place_group(self.place_id)]
        self._held: list[str] | None = None
        headers = {
            k.decode("latin-1").lower(): v.decode("latin-1") for k, v in self.scope["headers"]
        }
        self.foreign = foreign_header(
            headers.get("origin"), None, netloc("http", headers.get("host", ""))
        )
        await self.accept()

    async def deliver(self, message: dict) -> None:
        if self._held is not None:  # an action is being answered: its reply goes first
            self._held.append(message["text"])
        else:
            await self.send(text_data=message["text"])

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        self._held = []
        try:
            await self._answer(text_data)
        finally:
            while self._held:
                await self.send(text_data=self._held.pop(0))
            self._held = None

    async def _answer(self, text_data: str | None) -> None:
        try:
            request = json.loads(text_data or "")
            action = request.get("action") if isinstance(request, dict) else None
        except ValueError:
            request, action = {}, None
        if action in ("post_cards", "get_hand") and self.foreign:
            reply = _error(
                action, "CROSS_SITE", "refused: this socket was opened by a page of another site"
            )
        elif action == "post_cards":
            reply = await db_worker.run(self._post_cards, request.get("cards"))
        elif action == "get_hand":
            reply = await db_worker.run(self._get_hand)
        else:
            reply = _error(
                "unknown", "BAD_REQUEST", 'send {"action": "post_cards" | "get_hand", …}'
            )
        await self.send(text_data=json.dumps(reply, separators=(",", ":"), ensure_ascii=False))

    def _user_id(self) -> int | None:
        user = self.scope.get("user")
        return user.id if user is not None and user.is_authenticated else None

    def _post_cards(self, cards: object) -> dict:
        user_id = self._user_id()
        if user_id is None:
            return _error("post_cards", services.NOT_LOGGED_IN, "log in first")
        if cards is None:
            cards = []
        if (
            not isinstance(cards, list)
            or not all(isinstance(c, str) for c in cards)
            or len(cards) > len(ALL_IDS)
        ):
            return _error("post_cards", services.INVALID_CARD, "cards must be a list of strings")
        try:
            result = services.post_cards(self.place_id, user_id, cards)
        except services.ServiceError as e:
            return _error("post_cards", e.code, e.message)
        return {"reply": "post_cards", **result.as_dict()}

    def _get_hand(self) -> dict:
        user_id = self._user_id()
        if user_id is None:
            return _error("get_hand", services.NOT_LOGGED_IN, "log in first")
        try:
            cards = services.hand_of(self.place_id, user_id)
        except services.ServiceError as e:
            return _error("get_hand", e.code, e.message)
        from places.wire import api_card

        return {"reply": "get_hand", "cards": [api_card(c) for c in cards]}


def _error(reply: str, code: str, message: str) -> dict:
    return {"reply": reply, "error": {"code": code, "message": message}}


class LiveConsumer(EventForwarder):
    """``ws://HOST/ws/places/ID/live/``: one place's events for pages, numbered.

    Each frame is ``{"seq":N,"event":{…}}``: a page that sees a number skip
    (the channel layer drops messages when a listener falls far behind) or
    reconnects re-reads the state and the event log from there.
    """

    async def connect(self) -> None:
        self.place_id = int(self.scope["url_route"]["kwargs"]["place_id"])
        self.listen_to = [broadcast.place_group(self.place_id)]
        await self.accept()

    async def deliver(self, message: dict) -> None:
        await self.send(text_data=f'{{"seq":{message["seq"]},"event":{message["text"]}}}')

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        """Pages only listen."""
