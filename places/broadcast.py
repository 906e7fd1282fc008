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
"""

from __future__ import annotations

import asyncio
import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

logger = logging.getLogger(__name__)

ALL_PLACES_GROUP = "places"

_loop: asyncio.AbstractEventLoop | None = None
_outbox: asyncio.Queue | None = None


def place_group(place_id: int) -> str:
    return f"place.{place_id}"


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
    layer = get_channel_layer()
    if layer is not None:
        async_to_sync(_send)(layer, place_id, batch)


async def _drain(outbox: asyncio.Queue) -> None:
    layer = get_channel_layer()
    while True:
        place_id, batch = await outbox.get()
        await _send(layer, place_id, batch)


async def _send(layer, place_id: int, batch: list[tuple[int, str]]) -> None:
    group = place_group(place_id)
    for seq, text in batch:
        message = {"type": "place.event", "place": place_id, "seq": seq, "text": text}
        try:
            await layer.group_send(group, message)
            await layer.group_send(ALL_PLACES_GROUP, message)
        except Exception:  # a broken layer must not stop the sender
            logger.exception("sending event %s of place %s failed", seq, place_id)
