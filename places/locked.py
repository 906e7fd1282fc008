"""What a process does when SQLite answers "database is locked": the whole unit again.

SQLite has one writer. A write transaction waits for it up to the busy timeout
(``settings._SQLITE_OPTIONS``, 20 s) and then fails with ``OperationalError:
database is locked``; no writer holds it that long in this project (a place's
change holds it for one turn's work, ``places/services/change.py``), but a loaded
machine, a backup or another program on the file may. A unit of work that fails
so changed nothing (its transaction rolled back), so it is tried again, a few
times, rather than crashing a match or aborting a place: the dealer's step, a
house move, a UECda game's write, a player's post.

Only a whole unit is tried again: inside an outer ``atomic`` block the error goes
up, for the outermost unit to decide.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from django.db import OperationalError, connection

log = logging.getLogger(__name__)

P = ParamSpec("P")
T = TypeVar("T")

#: Tries of a unit that meets a locked database, the first included.
ATTEMPTS = 5
#: Seconds before the second try; each next waits twice as long (0.1, 0.2, 0.4, 0.8).
FIRST_PAUSE = 0.1


def is_locked(error: BaseException) -> bool:
    """Whether ``error`` is SQLite's "database is locked" (or "database table is locked")."""
    text = str(error)
    return isinstance(error, OperationalError) and (
        "database is locked" in text or "database table is locked" in text
    )


def retried(fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """``fn(*args, **kwargs)``, called again while the database is locked, up to
    :data:`ATTEMPTS` times in all; ``fn`` must be a whole unit (its own transactions)."""
    for attempt in range(1, ATTEMPTS):
        try:
            return fn(*args, **kwargs)
        except OperationalError as error:
            if not is_locked(error) or connection.in_atomic_block:
                raise
            pause = FIRST_PAUSE * 2 ** (attempt - 1)
            log.warning(
                "%s: %s (try %d of %d): again in %g s",
                getattr(fn, "__qualname__", fn), error, attempt, ATTEMPTS, pause,
            )  # fmt: skip
            time.sleep(pause)
    return fn(*args, **kwargs)  # the last try: its error goes up
