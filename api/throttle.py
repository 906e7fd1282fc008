"""Slowing password guessing down without locking real users out, for every login.

Every login of the site goes through Django's ``authenticate()``: the player API's,
the admin's, any form's. The project's backend (``daihinmin.auth.ModelBackend``)
counts each attempt here before it checks the password (:func:`attempt`), refuses
one this module says must wait, and takes the attempt back when the password was
right (:func:`succeeded`). The player API then answers a refused attempt ``429
TOO_MANY_ATTEMPTS`` with ``Retry-After`` (:func:`check`).

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

The counts live in Django's cache (``api/counts.py``): shared by the server
processes when the cache is (Redis), per process with the default local-memory
cache, and per process too while Redis does not answer.
"""

from __future__ import annotations

import hashlib
import math
import time

from django.conf import settings
from django.http import HttpRequest

from api import counts
from places import errors

_PREFIX = "login-failures:"
_LIMIT = "login"  # its name in /metrics


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


def attempt(address: str, name: str) -> int | None:
    """Count this login attempt, before its password is checked; or, when this address
    must wait before trying this name, the seconds to wait (and nothing counted).

    Counted first, atomically, so that simultaneous guesses each see the ones before
    them: a check made before the (slow) hash and a count made after it would let
    every guess sent at once through. An attempt counts as a failure until
    :func:`succeeded` takes it back.
    """
    span = _window()
    keys = _keys(address, name)
    names = [keys["pair"], keys["address"], keys["name"]]
    pair, per_address, per_name = counts.hit(_LIMIT, [k + ":n" for k in names], span)
    blocking = []
    if pair > settings.LOGIN_FAILURE_LIMIT:
        blocking.append(keys["pair"])
    if per_address > settings.LOGIN_ADDRESS_FAILURE_LIMIT:
        blocking.append(keys["address"])
    if pair > 1 and per_name > settings.LOGIN_NAME_FAILURE_LIMIT:  # this address failed it
        blocking.append(keys["name"])
    now = time.time()
    for key, count in zip(names, (pair, per_address, per_name), strict=True):
        if count == 1:  # the first of its window: when the window ends
            counts.add(_LIMIT, key + ":until", now + span, span)
    if not blocking:
        return None
    counts.unhit(_LIMIT, [k + ":n" for k in names])  # not made: not counted
    ends = counts.get_many(_LIMIT, [k + ":until" for k in blocking])
    return max(1, math.ceil(max(ends.values(), default=now + span) - now))


def succeeded(address: str, name: str) -> None:
    """The right password: the attempt is taken back, and its own address-and-name count
    cleared; the other counts keep the failures made for other names and from elsewhere."""
    keys = _keys(address, name)
    counts.unhit(_LIMIT, [keys["address"] + ":n", keys["name"] + ":n"])
    counts.delete_many(_LIMIT, [keys["pair"] + ":n", keys["pair"] + ":until"])


def hold_back(request: HttpRequest | None, wait: int) -> None:
    """Note on the request that its login was held back (the backend can only refuse)."""
    if request is not None:
        request.login_retry_after = wait


def check(request: HttpRequest) -> None:
    """After a refused login: ``TOO_MANY_ATTEMPTS`` (with ``Retry-After``) if it was held
    back rather than wrong."""
    wait = getattr(request, "login_retry_after", None)
    if wait is not None:
        raise errors.Refused(
            errors.TOO_MANY_ATTEMPTS,
            f"too many failed logins: try again in {wait} s",
            headers={"Retry-After": str(wait)},
        )
