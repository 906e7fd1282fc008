"""Requests per session and per user on the player API, counted across the server processes.

A player's every request (``api/views.py``, ``ApiView.initial``: both the normal
path and the fast path run it) counts in a fixed window of ``API_RATE_WINDOW``
seconds twice: for its session, and for its user, all of the user's sessions
together. Past ``API_RATE_LIMIT`` requests of the session, or
``API_USER_RATE_LIMIT`` of the user, the rest of the window is answered ``429
RATE_LIMITED`` with ``Retry-After``, before the view reads or changes anything
of the game. The user's count is what keeps logging in again from buying a fresh
budget: a login is not limited when it succeeds, and the old sessions stay valid.

The counts are shared by the processes through Redis (``api/counts.py``: when Redis
does not answer, each process counts on its own until it does).

The defaults are far above what a bot needs: a bot at pace 0 makes one or two
requests a turn of its own, a few dozen a second at most (``bench/place.py``), a
2011 bot polling ``get_place_info`` every 10 ms a hundred; a user may play in
several places at once. Only the session (or the user) is held back, only until
its window ends: nobody can make another user wait.
"""

from __future__ import annotations

import hashlib
import math
import time

from django.conf import settings

from api import counts
from places import errors

_PREFIX = "api-rate:"
_LIMIT = "api-rate"  # its name in /metrics


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def check(session_key: str, user_id: int | None) -> None:
    """Count one request of this session and user; raise ``RATE_LIMITED`` past a limit."""
    window = settings.API_RATE_WINDOW
    counted = [
        ("this session", f"session:{_digest(session_key)}", settings.API_RATE_LIMIT),
        ("this player's sessions", f"user:{user_id}", settings.API_USER_RATE_LIMIT),
    ]
    if not session_key:
        counted.pop(0)
    if user_id is None:
        counted.pop()
    counted = [c for c in counted if c[2] > 0]
    if not counted:
        return
    now = time.time()
    start = math.floor(now / window) * window
    keys = [f"{_PREFIX}{start:.0f}:{key}" for _, key, _ in counted]
    found = counts.hit(_LIMIT, keys, timeout=math.ceil(window) + 1)
    for (who, _, limit), count in zip(counted, found, strict=True):
        if count > limit:
            wait = max(1, math.ceil(start + window - now))
            raise errors.Refused(
                errors.RATE_LIMITED,
                f"{who} made more than {limit} requests in {window:g} s: try again in {wait} s",
                headers={"Retry-After": str(wait)},
            )
