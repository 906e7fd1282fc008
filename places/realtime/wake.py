"""The dealer's wake-up: a change that scheduled a step says so, the dealer's thread waits on it.

Apart from both, so that the services (which wake it, through ``places.services.committed``:
they sit below this layer) and the dealer (which calls the services) do not import each other.
"""

from __future__ import annotations

import threading

_event = threading.Event()


def dealer() -> None:
    """Something was scheduled: the dealer looks again now rather than at its next poll."""
    _event.set()


def wait(seconds: float) -> None:
    """The dealer's sleep until the next poll, cut short by :func:`dealer`."""
    _event.wait(seconds)
    _event.clear()
