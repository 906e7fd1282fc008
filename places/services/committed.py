"""What follows a committed change outside the database: its events sent, in order, to
every process's sockets, and the dealer woken when the change scheduled a step.

Both are the realtime layer's (``places.realtime.broadcast.send_events``,
``places.realtime.wake.dealer``), which sits above the services: the services import
nothing of it. ``places/apps.py`` installs them when Django starts (:func:`install`), in
every process, commands included: their events reach the server's sockets too.
"""

from __future__ import annotations

from collections.abc import Callable

#: ``(seq, text)`` events of one place, in order.
Batch = list[tuple[int | None, str]]

_send: Callable[[int, Batch], None] | None = None
_wake: Callable[[], None] | None = None


def install(send: Callable[[int, Batch], None], wake: Callable[[], None]) -> None:
    """Send committed events with ``send`` (place id, batch); wake the dealer with ``wake``."""
    global _send, _wake
    _send, _wake = send, wake


def send_events(place_id: int, batch: Batch) -> None:
    """Send a committed change's events of ``place_id`` (after commit, from any thread)."""
    if _send is None:
        raise RuntimeError("no event sender: places/apps.py installs it when Django starts")
    _send(place_id, batch)


def wake_dealer() -> None:
    """A committed change scheduled a step: the dealer looks again now."""
    if _wake is None:
        raise RuntimeError("no dealer wake-up: places/apps.py installs it when Django starts")
    _wake()
