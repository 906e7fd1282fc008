"""Sending a place's events to its WebSocket listeners, after commit, in order.

Each event goes to two groups: the place's own stream and the stream of every
place (``ws://HOST/``, as in 2011). The JSON text is encoded once, where the
event is built; consumers forward it unchanged.

In the server, events are handed to one sender task on the server's event
loop (``attach``), through a queue: the committing thread does not wait for
the fan-out, the order of commits is the order of sending, and the loop is
woken properly (sending on a loop's channel layer from another thread's loop
would leave the listeners asleep until something else woke it). Elsewhere
(tests, scripts) events are sent directly.

Sockets of this process get each event straight from the sender (a registry
of local listeners per group): the channel layer would copy the message per
channel and wake each consumer through a queue. The layer is used only when
it reaches other processes (Redis); their listeners take those messages, and
ours skip them by the sender's process tag.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections import defaultdict

from asgiref.sync import async_to_sync
from channels.layers import InMemoryChannelLayer, get_channel_layer

logger = logging.getLogger(__name__)

ALL_PLACES_GROUP = "places"
#: Tags this process's messages on a shared channel layer.
PROCESS = uuid.uuid4().hex

_listeners: defaultdict[str, set] = defaultdict(set)

_loop: asyncio.AbstractEventLoop | None = None
_outbox: asyncio.Queue | None = None


def place_group(place_id: int) -> str:
    return f"place.{place_id}"


def listen(group: str, listener) -> None:
    """Deliver this group's events to ``listener.deliver(message)`` (a local socket)."""
    _listeners[group].add(listener)


def unlisten(group: str, listener) -> None:
    _listeners[group].discard(listener)


def attach(loop: asyncio.AbstractEventLoop) -> None:
    """Send from now on through a sender task on ``loop`` (the server's loop; call it there)."""
    global _loop, _outbox
    if _loop is loop:
        return
    _loop, _outbox = loop, asyncio.Queue()
    loop.create_task(_drain(_outbox))


def send_events(place_id: int, batch: list[tuple[int, str]]) -> None:
    """Send ``(seq, text)`` events of one place, in order (from any thread)."""
    if not batch:
        return
    loop, outbox = _loop, _outbox
    if loop is not None and outbox is not None and not loop.is_closed():
        loop.call_soon_threadsafe(outbox.put_nowait, (place_id, batch))
        return
    async_to_sync(_send)(get_channel_layer(), place_id, batch)


async def _drain(outbox: asyncio.Queue) -> None:
    layer = get_channel_layer()
    while True:
        place_id, batch = await outbox.get()
        await _send(layer, place_id, batch)


async def _send(layer, place_id: int, batch: list[tuple[int, str]]) -> None:
    groups = (place_group(place_id), ALL_PLACES_GROUP)
    remote = layer is not None and not isinstance(layer, InMemoryChannelLayer)
    for seq, text in batch:
        message = {
            "type": "place.event",
            "place": place_id,
            "seq": seq,
            "text": text,
            "origin": PROCESS,
        }
        for group in groups:
            for listener in tuple(_listeners.get(group, ())):
                try:
                    await listener.deliver(message)
                except Exception:  # one broken socket must not stop the others
                    logger.exception("delivering event %s of place %s failed", seq, place_id)
            if remote:
                try:
                    await layer.group_send(group, message)
                except Exception:  # a broken layer must not stop the sender
                    logger.exception("sending event %s of place %s failed", seq, place_id)
