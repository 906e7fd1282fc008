"""Which process holds a running place, and for how long (``Place.driver``, ``lease_until``).

A 2011 place is held by the dealer of the process that drives it; a UECda match by the
process whose sockets play it. Either renews its lease while it lives; a place whose
lease ran out belongs to a process that is gone (``places/dealer.py`` takes it over).
Kept apart from the dealer, which imports the services that need these.
"""

from __future__ import annotations

import os
import socket
import uuid
from datetime import timedelta

from django.conf import settings

#: This process's name as a place's holder.
DRIVER_ID = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def lease_seconds() -> float:
    return float(getattr(settings, "DEALER_LEASE_SECONDS", 5.0))


def lease_length() -> timedelta:
    """How long a lease runs from its last renewal."""
    return timedelta(seconds=lease_seconds())
