"""Slowing password guessing down without locking real users out, for every login.

Every login of the site goes through Django's ``authenticate()``: the player API's,
the admin's, any form's. The project's backend (``daihinmin.auth.ModelBackend``)
asks here before it checks a password (:func:`begin`), refuses one this module
says must wait, and reports what the check found (:func:`end`). The player API
then answers a refused attempt ``429 TOO_MANY_ATTEMPTS`` with ``Retry-After``
(:func:`check`).

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

Attempts sent at once. A check made before the (slow) hash and a failure counted
after it would let every guess sent at once through; counting every attempt as a
failure until its password proved right (as before) refused right passwords for
their neighbours' sake (100 bots logging in at once from one machine: 50 refused).
So the attempts whose passwords are being checked are counted apart, as *pending*:
an attempt is checked only while, for each count that applies to it, the failures
recorded plus the attempts pending, itself included, stay within the limit. One
that would go past it waits (polling, :data:`WAIT_SECONDS` at most) for those
ahead of it to end: a right password ends pending and is let through after them,
a wrong one becomes a recorded failure, and once the recorded failures alone reach
the limit the waiting attempts are refused. No more wrong passwords are therefore
checked in a window than the limit, however many are sent at once; a right one is
refused only past the limit of recorded failures, or after waiting
:data:`WAIT_SECONDS` behind the others (then ``Retry-After: 1``).

A failure is recorded before its attempt stops pending, and an attempt counts
itself pending before it reads the failures: whatever the interleaving, no reading
misses an attempt that is neither (the order each step keeps below). Each attempt
is pending in the slot of :data:`PENDING_SLOT_SECONDS` in which it began, and a slot
is read for two slot lengths only: an attempt that never ended (its process killed
mid-hash) holds no one back for longer than that.

The counts live in Django's cache (``api/counts.py``): shared by the server
processes when the cache is (Redis), per process with the default local-memory
cache, and per process too while Redis does not answer.
"""

from __future__ import annotations

import hashlib
import math
import random
import time
from dataclasses import dataclass

from django.conf import settings
from django.http import HttpRequest

from api import counts
from places import errors

_PREFIX = "login-failures:"
_LIMIT = "login"  # its name in /metrics

#: Seconds an attempt waits at most for the checks ahead of it (from its address, or
#: of its name) before it is refused with ``Retry-After: 1``: 100 logins at once with
#: Django's PBKDF2 take ~35 s of hashing on two cores, half of them behind the others.
WAIT_SECONDS = 30.0

#: The length of a slot of pending attempts: an attempt that never ended is forgotten
#: between one and two of these after it began (far longer than a password's check).
PENDING_SLOT_SECONDS = 30.0

#: The first pause between two looks of a waiting attempt; it doubles up to the last.
_FIRST_PAUSE, _LAST_PAUSE = 0.01, 0.25

_KINDS = ("pair", "address", "name")


@dataclass(frozen=True)
class Held:
    """An attempt that must wait: the seconds, and why."""

    seconds: int
    message: str


@dataclass(frozen=True)
class Attempt:
    """An attempt whose password is being checked (pending in ``slot``)."""

    keys: dict[str, str]
    slot: int


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


def _limits() -> dict[str, int]:
    return {
        "pair": settings.LOGIN_FAILURE_LIMIT,
        "address": settings.LOGIN_ADDRESS_FAILURE_LIMIT,
        "name": settings.LOGIN_NAME_FAILURE_LIMIT,
    }


def address_of(request: HttpRequest | None) -> str:
    return (request.META.get("REMOTE_ADDR") or "") if request is not None else ""


def _pending(key: str, slot: int) -> str:
    return f"{key}:p{slot}"


def _too_many(keys: dict[str, str], failures: dict[str, int]) -> Held:
    """Refused for the failures recorded: until the first of their windows to end."""
    ends = counts.get_many(_LIMIT, [keys[kind] + ":until" for kind in failures])
    now = time.time()
    seconds = max(1, math.ceil(max(ends.values(), default=now + _window()) - now))
    return Held(seconds, f"too many failed logins: try again in {seconds} s")


def _read(keys: dict[str, str], slot: int) -> tuple[dict[str, int], dict[str, int]]:
    """The failures recorded under each count, and the attempts pending (this slot's and the
    one before's), in one round trip: the pending first. Redis reads them all at once; the
    local-memory cache one after another, and a failure is recorded before its attempt
    stops pending, so that a reading of the pending, then the failures, misses none."""
    pending = {kind: [_pending(keys[kind], s) for s in (slot, slot - 1)] for kind in _KINDS}
    names = [k for ks in pending.values() for k in ks] + [keys[kind] + ":n" for kind in _KINDS]
    read = counts.get_many(_LIMIT, names)
    failures = {kind: int(read.get(keys[kind] + ":n") or 0) for kind in _KINDS}
    return failures, {kind: sum(int(read.get(k) or 0) for k in pending[kind]) for kind in _KINDS}


def begin(address: str, name: str) -> Attempt | Held:
    """This attempt, pending, once its password may be checked; or why it must wait.

    Refused at once when the recorded failures alone are at a limit; else it waits
    while the attempts pending would take it past one. It counts itself pending
    before it reads the failures (see the module's docstring); a waiting attempt
    looks without counting itself, and counts itself again once there seems to be room.
    """
    keys = _keys(address, name)
    limits = _limits()
    deadline = time.monotonic() + WAIT_SECONDS
    pause = _FIRST_PAUSE
    counting = True  # the first look counts itself at once: there is room, usually
    while True:
        slot = math.floor(time.time() / PENDING_SLOT_SECONDS)
        mine = [_pending(keys[kind], slot) for kind in _KINDS]
        if counting:
            counts.hit(_LIMIT, mine, 2 * PENDING_SLOT_SECONDS)
        failures, pending = _read(keys, slot)
        if not counting:
            pending = {kind: n + 1 for kind, n in pending.items()}  # as if it were
        applying = [k for k in _KINDS if k != "name" or failures["pair"]]  # this address failed it
        full = {k: failures[k] for k in applying if failures[k] >= limits[k]}
        room = not any(failures[k] + pending[k] > limits[k] for k in applying)
        if counting:
            if room:
                return Attempt(keys, slot)
            counts.unhit(_LIMIT, mine)  # not checked: not pending
        if full:
            return _too_many(keys, full)
        counting = room
        if not room:
            if time.monotonic() + pause > deadline:
                return Held(1, "too many logins at once: try again in 1 s")
            time.sleep(pause * random.uniform(0.5, 1.5))
            pause = min(2 * pause, _LAST_PAUSE)


def _fail(keys: dict[str, str]) -> list[int]:
    """Record one failure under each count; the counts, this one included."""
    span = _window()
    names = [keys[kind] for kind in _KINDS]
    found = counts.hit(_LIMIT, [key + ":n" for key in names], span)
    now = time.time()
    for key, count in zip(names, found, strict=True):
        if count == 1:  # the first of its window: when the window ends
            counts.add(_LIMIT, key + ":until", now + span, span)
    return found


def end(attempt: Attempt, right: bool | None) -> None:
    """The check's outcome: a wrong password is recorded before the attempt stops pending;
    a right one clears its own address-and-name count, and the other counts keep the
    failures made for other names and from elsewhere. ``None``: the check gave no answer
    (an error, answered 500): it only stops pending."""
    keys = attempt.keys
    if right:
        counts.delete_many(_LIMIT, [keys["pair"] + ":n", keys["pair"] + ":until"])
    elif right is not None:
        _fail(keys)
    counts.unhit(_LIMIT, [_pending(keys[kind], attempt.slot) for kind in _KINDS])


def count_failure(address: str, name: str) -> Held | None:
    """Count an attempt that always counts as failed (a sign-up, made or refused), at once;
    or, when the recorded failures are at a limit, why it must wait (nothing counted)."""
    keys = _keys(address, name)
    limits = _limits()
    found = dict(zip(_KINDS, _fail(keys), strict=True))
    applying = [k for k in _KINDS if k != "name" or found["pair"] > 1]  # failed it before
    full = {k: found[k] for k in applying if found[k] > limits[k]}
    if not full:
        return None
    counts.unhit(_LIMIT, [keys[kind] + ":n" for kind in _KINDS])  # not made: not counted
    return _too_many(keys, full)


def hold_back(request: HttpRequest | None, held: Held) -> None:
    """Note on the request that its login was held back (the backend can only refuse)."""
    if request is not None:
        request.login_held = held


def check(request: HttpRequest) -> None:
    """After a refused login: ``TOO_MANY_ATTEMPTS`` (with ``Retry-After``) if it was held
    back rather than wrong."""
    held = getattr(request, "login_held", None)
    if held is not None:
        raise errors.Refused(
            errors.TOO_MANY_ATTEMPTS, held.message, headers={"Retry-After": str(held.seconds)}
        )
