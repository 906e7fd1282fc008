"""Slowing password guessing down without locking real users out, for every login.

Every login of the site goes through Django's ``authenticate()``: the player API's,
the admin's, any form's. The project's backend (``daihinmin.auth.ModelBackend``)
refuses an attempt this module says must wait, and the signals Django sends after
each attempt count failures and successes here. The player API asks first, to
answer ``429 TOO_MANY_ATTEMPTS`` with ``Retry-After``.

Failures are counted, each for ``LOGIN_FAILURE_WINDOW`` seconds from the first:

- per address and name: after ``LOGIN_FAILURE_LIMIT`` of them, that address may
  not log in as that name (one guesser, one account);
- per address: after ``LOGIN_ADDRESS_FAILURE_LIMIT``, that address may not log in
  at all (one guesser trying many names once each);
- per name: after ``LOGIN_NAME_FAILURE_LIMIT`` from anywhere, addresses that have
  failed for that name may not try it again (many guessers, one account).

A real user is never held back by failures made elsewhere: an address that never
failed for a name still logs in as it, however many failures the name has. Only
someone sharing the guesser's address waits, at most one window. A successful
login clears only its own address-and-name count: logging in to one's own account
does not wipe out the failures made for others.

The counts live in Django's cache: shared by the server processes when the cache
is (Redis), per process with the default local-memory cache.
"""

from __future__ import annotations

import hashlib
import math
import time

from django.conf import settings
from django.contrib.auth.signals import user_logged_in, user_login_failed
from django.core.cache import cache
from django.dispatch import receiver
from django.http import HttpRequest

from places import errors

_PREFIX = "login-failures:"


def _window() -> float:
    return float(settings.LOGIN_FAILURE_WINDOW)


def _key(kind: str, *parts: str) -> str:
    digest = hashlib.sha256("\x00".join(parts).encode("utf-8", "replace")).hexdigest()
    return f"{_PREFIX}{kind}:{digest}"


def _keys(address: str, name: str) -> dict[str, str]:
    return {
        "pair": _key("pair", address, name),
        "address": _key("address", address),
        "name": _key("name", name),
    }


def address_of(request: HttpRequest | None) -> str:
    return (request.META.get("REMOTE_ADDR") or "") if request is not None else ""


def retry_after(address: str, name: str) -> int | None:
    """Seconds this address must wait before logging in as this name; None: it may try now."""
    keys = _keys(address, name)
    counts = cache.get_many([k + ":n" for k in keys.values()])
    pair = counts.get(keys["pair"] + ":n", 0)
    blocking = []
    if pair >= settings.LOGIN_FAILURE_LIMIT:
        blocking.append(keys["pair"])
    if counts.get(keys["address"] + ":n", 0) >= settings.LOGIN_ADDRESS_FAILURE_LIMIT:
        blocking.append(keys["address"])
    if pair and counts.get(keys["name"] + ":n", 0) >= settings.LOGIN_NAME_FAILURE_LIMIT:
        blocking.append(keys["name"])
    if not blocking:
        return None
    now = time.time()
    ends = cache.get_many([k + ":until" for k in blocking])
    return max(1, math.ceil(max(ends.values(), default=now + _window()) - now))


def check(address: str, name: str) -> None:
    """Raise ``TOO_MANY_ATTEMPTS`` (with ``Retry-After``) if this login must wait."""
    wait = retry_after(address, name)
    if wait is not None:
        raise errors.Refused(
            errors.TOO_MANY_ATTEMPTS,
            f"too many failed logins: try again in {wait} s",
            headers={"Retry-After": str(wait)},
        )


def failed(address: str, name: str) -> None:
    """Count one failed login for the pair, the address and the name."""
    span = _window()
    for key in _keys(address, name).values():
        if cache.add(key + ":n", 1, timeout=span):
            cache.set(key + ":until", time.time() + span, timeout=span)
            continue
        try:
            cache.incr(key + ":n")
        except ValueError:  # expired between add and incr: a new window
            cache.set(key + ":n", 1, timeout=span)
            cache.set(key + ":until", time.time() + span, timeout=span)


def succeeded(address: str, name: str) -> None:
    """A successful login clears its own address-and-name count, and nothing else."""
    pair = _keys(address, name)["pair"]
    cache.delete_many([pair + ":n", pair + ":until"])


@receiver(user_login_failed)
def _count_failure(sender, credentials: dict, request: HttpRequest | None = None, **kwargs):
    failed(address_of(request), str(credentials.get("username") or ""))


@receiver(user_logged_in)
def _clear_on_success(sender, request: HttpRequest | None = None, user=None, **kwargs):
    if user is not None:
        succeeded(address_of(request), user.get_username())
