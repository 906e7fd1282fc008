"""One thread that does the database work of WebSocket actions, on a connection it keeps.

Django opens and closes a database connection around every
``database_sync_to_async`` call; opening costs more than a whole turn, and on
SQLite closing the last connection to a WAL database checkpoints it. This
thread keeps its connection for the life of the process (closing it only when
it has become unusable), and one thread in turn keeps the order of a socket's
actions. Tests that wrap each test in a transaction switch it off
(``settings.DB_WORKER = False``): the work then runs where it is called.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from channels.db import database_sync_to_async
from django.conf import settings
from django.db import connection
from django.db.utils import InterfaceError, OperationalError

T = TypeVar("T")

_executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="db-worker")


def _enabled() -> bool:
    return getattr(settings, "DB_WORKER", True)


def _run(fn: Callable[..., T], args: tuple, kwargs: dict) -> T:
    try:
        return fn(*args, **kwargs)
    except (InterfaceError, OperationalError):
        if connection.connection is not None and not connection.is_usable():
            connection.close()  # the next call connects afresh
        raise


async def run(fn: Callable[..., T], *args, **kwargs) -> T:
    """Run ``fn`` on the worker thread and wait for it without blocking the loop."""
    if not _enabled():
        return await database_sync_to_async(fn)(*args, **kwargs)
    return await asyncio.wrap_future(_executor.submit(_run, fn, args, kwargs))
