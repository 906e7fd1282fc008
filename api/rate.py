"""Requests per session on the player API, counted across the server processes.

A player's every request (``api/views.py``, ``ApiView.initial``: both the normal
path and the fast path run it) counts in a fixed window of ``API_RATE_WINDOW``
seconds, in Django's cache (Redis when ``REDIS_URL`` is set: shared by every
process, so two processes allow no more than one; local memory otherwise). Past
``API_RATE_LIMIT`` requests, the rest of the window is answered ``429
RATE_LIMITED`` with ``Retry-After``, before the view reads or changes anything.

The default is far above what a bot needs: a bot at pace 0 makes one or two
requests a turn of its own, a few dozen a second at most (``bench/place.py``), a
2011 bot polling ``get_place_info`` every 10 ms a hundred. Only the session is
held back, only until its window ends: nobody can make another session wait.
"""

from __future__ import annotations

import hashlib
import math
import time

from django.conf import settings
from django.core.cache import cache

from places import errors

_PREFIX = "api-rate:"


def check(session_key: str) -> None:
    """Count one request of this session; raise ``RATE_LIMITED`` past the limit."""
    limit, window = settings.API_RATE_LIMIT, settings.API_RATE_WINDOW
    if limit <= 0 or not session_key:
        return
    now = time.time()
    start = math.floor(now / window) * window
    digest = hashlib.sha256(session_key.encode()).hexdigest()[:32]
    key = f"{_PREFIX}{start:.0f}:{digest}"
    try:
        count = cache.incr(key)  # one round trip when the window's count exists
    except ValueError:
        count = 1 if cache.add(key, 1, timeout=math.ceil(window) + 1) else cache.incr(key)
    if count > limit:
        wait = max(1, math.ceil(start + window - now))
        raise errors.Refused(
            errors.RATE_LIMITED,
            f"more than {limit} requests in {window:g} s: try again in {wait} s",
            headers={"Retry-After": str(wait)},
        )
