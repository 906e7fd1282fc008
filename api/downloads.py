"""Downloads of records (``records.jsonl``) under way at once, per client address, counted
across the server processes.

A download holds a connection, and its part of the server, for as long as its client
takes to read it: a few hundred of them left unread once held a server. So an
address may have ``RECORDS_DOWNLOADS_PER_ADDRESS`` under way at once; one more is
answered ``429 TOO_MANY_DOWNLOADS`` with ``Retry-After``, before anything is read.
The address is the one logins count (``api.throttle.address_of``: the peer's, or
``X-Forwarded-For``'s behind a proxy daphne trusts).

The counts live in Django's cache (``api/counts.py``), as the logins' do. A download
counts in the slot of :data:`SLOT_SECONDS` in which it began, and a slot is read for
two slot lengths only, as the logins' pending attempts (``api/throttle.py``): a
process killed mid-download holds its address back for that long at most, and a
download longer than that stops counting.
"""

from __future__ import annotations

import hashlib
import math
import time
from dataclasses import dataclass

from django.conf import settings

from api import counts
from places import errors

_PREFIX = "downloads:"
_LIMIT = "downloads"  # its name in /metrics

#: The length of a slot of downloads under way (far longer than a download takes).
SLOT_SECONDS = 300.0


@dataclass(frozen=True, slots=True)
class Claim:
    """One download counted: what :func:`release` takes back."""

    key: str


def claim(address: str) -> Claim | None:
    """Count one download of ``address`` under way; raise ``TOO_MANY_DOWNLOADS`` past the
    limit (nothing counted). None: no limit."""
    limit = settings.RECORDS_DOWNLOADS_PER_ADDRESS
    if limit <= 0:
        return None
    digest = hashlib.sha256(address.encode("utf-8", "replace")).hexdigest()[:32]
    slot = math.floor(time.time() / SLOT_SECONDS)
    mine, before = (f"{_PREFIX}{digest}:{s}" for s in (slot, slot - 1))
    (counted,) = counts.hit(_LIMIT, [mine], 2 * SLOT_SECONDS)
    under_way = counted + int(counts.get_many(_LIMIT, [before]).get(before) or 0)
    if under_way > limit:
        counts.unhit(_LIMIT, [mine])
        raise errors.Refused(
            errors.TOO_MANY_DOWNLOADS,
            f"this address has {limit} downloads under way: try again once one has ended",
            headers={"Retry-After": "1"},
        )
    return Claim(mine)


def release(claim: Claim | None) -> None:
    """A download :func:`claim` counted has ended (sent whole, or its client gone)."""
    if claim is not None:
        counts.unhit(_LIMIT, [claim.key])
