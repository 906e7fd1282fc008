"""Slowing down password guessing: failed logins are counted per client and per name.

After ``LOGIN_FAILURE_LIMIT`` failures within ``LOGIN_FAILURE_WINDOW`` seconds,
from one address (``REMOTE_ADDR``) or for one user name, every login from that
address or for that name is answered ``429 TOO_MANY_ATTEMPTS`` with
``Retry-After`` until the window (counted from the first failure) ends, even
with the right password. A successful login clears both counts.

The counts live in Django's cache (per process with the default local-memory
cache; configure a shared cache to share them between server processes).
"""

from __future__ import annotations

import hashlib
import math
import time

from django.conf import settings
from django.core.cache import cache

from places import errors

_PREFIX = "api:login-failures:"


def limit() -> int:
    return int(getattr(settings, "LOGIN_FAILURE_LIMIT", 5))


def window() -> float:
    return float(getattr(settings, "LOGIN_FAILURE_WINDOW", 300))


def _keys(address: str, name: str) -> list[str]:
    keys = [_PREFIX + "addr:" + hashlib.sha256(address.encode("utf-8", "replace")).hexdigest()]
    if name:
        digest = hashlib.sha256(name.encode("utf-8", "replace")).hexdigest()
        keys.append(_PREFIX + "name:" + digest)
    return keys


def check(address: str, name: str) -> None:
    """Raise ``TOO_MANY_ATTEMPTS`` if the address or the name used up its failures."""
    now = time.time()
    for key in _keys(address, name):
        count = cache.get(key + ":n", 0)
        if count >= limit():
            until = cache.get(key + ":until", now + window())
            retry = max(1, math.ceil(until - now))
            what = "this address" if ":addr:" in key else "this name"
            raise errors.Refused(
                errors.TOO_MANY_ATTEMPTS,
                f"too many failed logins from {what}: try again in {retry} s",
                headers={"Retry-After": str(retry)},
            )


def failed(address: str, name: str) -> None:
    """Count one failed login for the address and the name."""
    span = window()
    for key in _keys(address, name):
        if cache.add(key + ":n", 1, timeout=span):
            cache.set(key + ":until", time.time() + span, timeout=span)
            continue
        try:
            cache.incr(key + ":n")
        except ValueError:  # expired between add and incr: a new window
            cache.set(key + ":n", 1, timeout=span)
            cache.set(key + ":until", time.time() + span, timeout=span)


def succeeded(address: str, name: str) -> None:
    """A successful login clears the counts of its address and name."""
    keys = _keys(address, name)
    cache.delete_many([k + suffix for k in keys for suffix in (":n", ":until")])
