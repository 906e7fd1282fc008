"""What one client address asks for is bounded whatever its accounts (practices, analyses):
the count of it must see every request of the address, even two at once."""

from __future__ import annotations

import hashlib

from django.db import connection


def lock_address(kind: str, address: str) -> None:
    """Hold ``address`` for ``kind`` of request until the transaction ends, so that two
    requests of that kind from it at once count each other (as the user's row does for one
    user). PostgreSQL: an advisory lock on a hash of both; SQLite's transactions already
    write one at a time (``BEGIN IMMEDIATE``, daihinmin/settings.py)."""
    if connection.vendor != "postgresql":
        return
    digest = hashlib.sha256(f"daihinmin-{kind}-address:{address}".encode()).digest()
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_advisory_xact_lock(%s)", [int.from_bytes(digest[:8], "big", signed=True)]
        )
