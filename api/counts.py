"""The limits' counts (``api/rate.py``, ``api/throttle.py``), shared by the server processes,
and what they do when the shared store does not answer.

The counts live in Django's cache: Redis when ``REDIS_URL`` is set (every process
counts in one place), each process's memory otherwise. Each count goes up by one
atomically (Redis ``INCR``), so simultaneous requests each see a count of their own;
the counts of one request go in one round trip to Redis.

When Redis does not answer (stopped, restarting, unreachable for a second), a limit
neither fails the request (a 500 would stop every bot's post and every login) nor
waves everything through: the counts go on in this process's own memory, as with
a single process without Redis, so each process still holds a client to its limits
(several processes together allow a multiple of them until Redis is back). That is
logged once per outage and counted in ``/metrics``
(``daihinmin_limits_unshared_total{limit}``); Redis is tried again
:data:`RETRY_SECONDS` later.
"""

from __future__ import annotations

import contextlib
import logging
import math
import threading
import time
from collections.abc import Callable
from typing import TypeVar

from django.core.cache import cache
from django.core.cache.backends.base import BaseCache
from django.core.cache.backends.locmem import LocMemCache
from django.core.cache.backends.redis import RedisCache
from redis.exceptions import RedisError

from places import metrics

logger = logging.getLogger(__name__)

T = TypeVar("T")

#: Seconds the counts stay in this process's memory after the shared cache failed.
RETRY_SECONDS = 5.0

#: This process's own counts, while the shared cache does not answer.
_local = LocMemCache("daihinmin-limits", {"OPTIONS": {"MAX_ENTRIES": 100_000}})
_lock = threading.Lock()
_shared_down_until = 0.0  # time.monotonic(); 0: the shared cache is in use


def _counted(limit: str, op: Callable[[BaseCache], T]) -> T:
    """``op`` on the shared cache, or on this process's own while it does not answer."""
    global _shared_down_until
    if time.monotonic() >= _shared_down_until:
        try:
            result = op(cache)
        except RedisError as error:
            with _lock:
                if _shared_down_until == 0.0:
                    logger.warning(
                        "the limits' shared cache does not answer (%s): counting in this "
                        "process until it does",
                        error,
                    )
                _shared_down_until = time.monotonic() + RETRY_SECONDS
        else:
            if _shared_down_until:
                with _lock:
                    _shared_down_until = 0.0
                logger.warning("the limits' shared cache answers again")
            return result
    metrics.LIMITS_UNSHARED.labels(limit).inc()
    return op(_local)


def _hit(store: BaseCache, key: str, timeout: float) -> int:
    try:
        return store.incr(key)  # the usual case: the window's count exists
    except ValueError:
        pass
    if store.add(key, 1, timeout=timeout):
        return 1
    try:
        return store.incr(key)  # another request added it meanwhile
    except ValueError:  # and it expired meanwhile: a new window
        store.set(key, 1, timeout=timeout)
        return 1


def _hit_on_redis(store: RedisCache, keys: list[str], timeout: float) -> list[int]:
    """:func:`_hit` of every key in one round trip: ``INCR`` and ``EXPIRE … NX`` (Redis 7)
    each, pipelined, where Django's ``incr`` takes two round trips a key (``EXISTS``, then
    ``INCRBY``). The values are Django's (its serializer stores an int as it is)."""
    names = [store.make_and_validate_key(key) for key in keys]
    # Django's own client for the cache (its connection pool and options): not public API
    pipe = store._cache.get_client(names[0], write=True).pipeline(transaction=False)
    for name in names:
        pipe.incr(name)
        pipe.expire(name, math.ceil(timeout), nx=True)
    return pipe.execute()[0::2]


def hit(limit: str, keys: list[str], timeout: float) -> list[int]:
    """Count one more under each key (a new count lasts ``timeout`` seconds); the counts,
    this one included."""

    def counted(store: BaseCache) -> list[int]:
        if isinstance(store, RedisCache):
            return _hit_on_redis(store, keys, timeout)
        return [_hit(store, key, timeout) for key in keys]

    return _counted(limit, counted)


def _unhit(store: BaseCache, keys: list[str]) -> None:
    for key in keys:
        with contextlib.suppress(ValueError):  # expired meanwhile: nothing left to take back
            store.decr(key)


def unhit(limit: str, keys: list[str]) -> None:
    """Take back one of :func:`hit`'s counts under each key."""
    _counted(limit, lambda store: _unhit(store, keys))


def get_many(limit: str, keys: list[str]) -> dict:
    return _counted(limit, lambda store: store.get_many(keys))


def add(limit: str, key: str, value: object, timeout: float) -> None:
    """Set ``key`` unless it is set."""
    _counted(limit, lambda store: store.add(key, value, timeout=timeout))


def delete_many(limit: str, keys: list[str]) -> None:
    _counted(limit, lambda store: store.delete_many(keys))
