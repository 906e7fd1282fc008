"""A server process's background threads (the dealer, the analyst): one daemon thread each,
running rounds until stopped.

Each thread keeps its database connection across rounds (a connection per round would
cost more than the round), so each round first drops a connection the server closed
(``pg_terminate_backend``, a restart) and a failed round replaces a broken one: the
next round goes on instead of failing on the dead connection.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from django.db import close_old_connections, connection

from daihinmin.postgresql.base import drop_closed
from places.leases import DRIVER_ID

logger = logging.getLogger(__name__)

#: Seconds a thread waits after a round that failed.
FAILED_ROUND_DELAY = 1.0


def sound_round(name: str, body: Callable[[], float], log: logging.Logger) -> float:
    """Run one round on a sound connection; the seconds until the next round."""
    try:
        drop_closed()
        return body()
    except Exception:
        log.exception("%s: round failed", name)
        close_old_connections()
        if connection.connection is not None and not connection.is_usable():
            connection.close()
        return FAILED_ROUND_DELAY


class Worker:
    """A daemon thread calling ``one_round`` until stopped, waiting between rounds as long
    as the round said (``sleep``, which ``interrupt`` cuts short)."""

    def __init__(
        self,
        name: str,
        one_round: Callable[[], float],
        sleep: Callable[[float], object] | None = None,
        interrupt: Callable[[], None] | None = None,
    ) -> None:
        self.name = name
        self._one_round = one_round
        self._stop = threading.Event()
        self._sleep = sleep or self._stop.wait
        self._interrupt = interrupt
        self._thread: threading.Thread | None = None
        self._start_lock = threading.Lock()

    def _loop(self) -> None:
        logger.info("%s %s started", self.name, DRIVER_ID)
        while not self._stop.is_set():
            self._sleep(self._one_round())

    def start(self) -> None:
        """Start the thread once (idempotent)."""
        with self._start_lock:
            if self._thread is not None and self._thread.is_alive():
                return
            self._stop.clear()
            self._thread = threading.Thread(target=self._loop, name=self.name, daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._interrupt is not None:
            self._interrupt()
        if self._thread is not None:
            self._thread.join(timeout=5)
