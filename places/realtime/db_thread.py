"""A few threads that do the database work of the sockets and of the bots' hot requests,
each on a connection it keeps.

Django opens and closes a database connection around every
``database_sync_to_async`` call and every request; opening costs more than a
whole turn, and on SQLite closing the last connection to a WAL database
checkpoints it. These threads keep their connections for the life of the process,
closing one only when it broke or, found before the next job, the server closed it
(``daihinmin.postgresql``). A place's work always goes to the same thread, so
that thread keeps the order of the actions of its sockets; ``api/fast.py`` runs the
bots' hot requests on them, through Django's own request cycle. There are
``DB_THREADS`` of them: on PostgreSQL two by default, so that one thread's Python
runs while another's turn waits for the database (one thread left the process
waiting on its round trips); on SQLite one, its single writer.

Tests that wrap each test in a transaction switch them off
(``settings.DB_THREAD = False``): the work then runs where it is called.
"""

from __future__ import annotations

import asyncio
import functools
import itertools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from django.conf import settings
from django.db import connections

from daihinmin.postgresql.base import drop_closed
from places.realtime import between

T = TypeVar("T")

_executors: list[ThreadPoolExecutor] = []
#: The thread of long reads (:func:`run_long`), made at its first.
_long: list[ThreadPoolExecutor] = []
#: Whose turn it is among the threads, for work of no particular place.
_next = itertools.count()


def _enabled() -> bool:
    return getattr(settings, "DB_THREAD", True)


def _executor(place: int | None) -> ThreadPoolExecutor:
    """The thread of a place's work (any, in turn, for work of none)."""
    if not _executors:
        _executors.extend(
            ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"db-thread-{i}")
            for i in range(max(1, settings.DB_THREADS))
        )
    index = next(_next) if place is None else place
    return _executors[index % len(_executors)]


def _run(fn: Callable[..., T], args: tuple, kwargs: dict) -> T:
    drop_closed()  # a connection the server closed since the last job fails no job
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


async def run(fn: Callable[..., T], *args, place: int | None = None, **kwargs) -> T:
    """Run ``fn`` on a database thread (``place``'s, if given) and wait for it without
    blocking the loop; on a loop that steps aside for its database work
    (:mod:`places.realtime.between`: ``uecda_match``), in the loop's thread, the loop
    stopped meanwhile."""
    if between.active():
        return await between.call(functools.partial(_run, fn, args, kwargs))
    if not _enabled():
        return await database_sync_to_async(fn)(*args, **kwargs)
    return await asyncio.wrap_future(_executor(place).submit(_run, fn, args, kwargs))


async def run_long(fn: Callable[..., T], *args, **kwargs) -> T:
    """Run ``fn`` on the thread of long reads and wait for it without blocking the loop:
    a download's records, read a chunk at a time while its client takes them.

    Never on a place's thread (its bots' turns would wait), nor on the request's own:
    twenty downloads read at once on twenty threads held twenty chunks in memory at
    once (a hundred MiB, kept by the threads' allocators after they ended); here one
    chunk is read at a time, the downloads' turns alternating. Switched off (tests), on
    the thread of the request's other work, in its transaction.
    """
    if between.active():
        return await between.call(functools.partial(_run, fn, args, kwargs))
    if not _enabled():
        return await sync_to_async(fn)(*args, **kwargs)
    if not _long:
        _long.append(ThreadPoolExecutor(max_workers=1, thread_name_prefix="db-thread-long"))
    return await asyncio.wrap_future(_long[0].submit(_run, fn, args, kwargs))
