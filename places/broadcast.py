"""Sending a place's events to its WebSocket listeners, after commit.

Each event goes to two groups: the place's own stream and the stream of every
place (``ws://HOST/``, as in 2011). The JSON text is encoded once, where the
event is built; consumers forward it unchanged.
"""

from __future__ import annotations

import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

logger = logging.getLogger(__name__)

ALL_PLACES_GROUP = "places"


def place_group(place_id: int) -> str:
    return f"place.{place_id}"


def send_events(place_id: int, batch: list[tuple[int, str]]) -> None:
    """Send ``(seq, text)`` events of one place, in order."""
    if not batch:
        return
    layer = get_channel_layer()
    if layer is None:
        return
    async_to_sync(_send)(layer, place_id, batch)


async def _send(layer, place_id: int, batch: list[tuple[int, str]]) -> None:
    group = place_group(place_id)
    for seq, text in batch:
        message = {"type": "place.event", "place": place_id, "seq": seq, "text": text}
        try:
            await layer.group_send(group, message)
            await layer.group_send(ALL_PLACES_GROUP, message)
        except Exception:  # a broken layer must not undo a committed turn
            logger.exception("sending event %s of place %s failed", seq, place_id)
