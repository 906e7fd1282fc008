"""One thread that does the database work of the sockets and of the bots' hot requests,
on a connection it keeps.

Django opens and closes a database connection around every
``database_sync_to_async`` call and every request; opening costs more than a
whole turn, and on SQLite closing the last connection to a WAL database
checkpoints it. This thread keeps its connection for the life of the process
(closing it only when it broke), and one thread in turn keeps the order of a
socket's actions. ``api/fast.py`` runs the bots' hot requests here, through
Django's own request cycle.

Tests that wrap each test in a transaction switch it off
(``settings.DB_THREAD = False``): the work then runs where it is called.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from channels.db import database_sync_to_async
from django.conf import settings
from django.db import connections

T = TypeVar("T")

_executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="db-thread")


def _enabled() -> bool:
    return getattr(settings, "DB_THREAD", True)


def _run(fn: Callable[..., T], args: tuple, kwargs: dict) -> T:
    try:
        return fn(*args, **kwargs)
    finally:
        _drop_broken_connections()


def _drop_broken_connections() -> None:
    """Django's ``close_if_unusable_or_obsolete`` but for the age: kept unless it broke.

    A request answered with a 500 has swallowed its database error, so every job
    ends here, not only those that raise.
    """
    for connection in connections.all(initialized_only=True):
        if connection.connection is None:
            continue
        if connection.get_autocommit() != connection.settings_dict["AUTOCOMMIT"]:
            connection.close()  # a transaction left open: never carry it into the next job
        elif connection.errors_occurred:
            if connection.is_usable():
                connection.errors_occurred = False
            else:
                connection.close()  # the next job connects afresh


async def run(fn: Callable[..., T], *args, **kwargs) -> T:
    """Run ``fn`` on the database thread and wait for it without blocking the loop."""
    if not _enabled():
        return await database_sync_to_async(fn)(*args, **kwargs)
    return await asyncio.wrap_future(_executor.submit(_run, fn, args, kwargs))
