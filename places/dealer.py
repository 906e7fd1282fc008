"""The dealer: a thread in each server process that drives running places.

Players' posts settle turns themselves (and, at pace 0, open the next one in
the same transaction, then play the house turns after it, one transaction each).
The dealer does the rest: steps that wait for a pace, turns whose deadline passed,
and the house turns of the places it steps (:data:`HOUSE_SECONDS` a place a round).
Each process claims places with a lease
(compare-and-swap on ``Place.driver``), so that several processes can share
one database with each place driven by one of them at a time; a place whose
driver died is taken over when its lease runs out, and its open turn gets a
fresh deadline. Correctness does not rest on the lease: every step re-reads
the schedule under the place's row lock.
"""

from __future__ import annotations

import logging
from datetime import datetime

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from places import background, logs, metrics, services
from places.leases import DRIVER_ID, lease_length
from places.models import Place
from places.realtime import wake

logger = logging.getLogger(__name__)


def poll_seconds() -> float:
    return float(getattr(settings, "DEALER_POLL_SECONDS", 0.2))


#: Seconds of house turns the dealer plays in one place before it goes on to the next
#: place due (the rest in its next round): a place of house bots at pace 0 holds up the
#: others' steps and deadlines no longer than that.
HOUSE_SECONDS = 0.5


#: By driver, the end of the lease its places got at its last renewal: every place it
#: drives holds at least that (a place taken over since holds a later one).
_leased_until: dict[str, datetime] = {}


def claim(driver: str = DRIVER_ID) -> list[int]:
    """Renew this driver's leases once a quarter is gone and take over places nobody holds.

    Not at every round: a renewal writes every row the driver holds, each waiting for
    a post's lock on it and holding up the next post until it commits.
    Returns the ids of places newly taken over (their open turns need a fresh
    deadline).
    """
    now = timezone.now()
    lease = lease_length()
    until = now + lease
    held = _leased_until.get(driver)
    if held is None or held - now < lease * 0.75:
        Place.objects.filter(state=Place.State.RUNNING, driver=driver).update(lease_until=until)
        _leased_until[driver] = until
    taken = []
    free = (
        Place.objects.filter(state=Place.State.RUNNING)
        .exclude(driver=driver)
        .filter(Q(driver="") | Q(lease_until__isnull=True) | Q(lease_until__lt=now))
    )
    for pk, old_driver, old_lease in free.values_list("id", "driver", "lease_until"):
        won = Place.objects.filter(pk=pk, driver=old_driver, lease_until=old_lease).update(
            driver=driver, lease_until=until
        )
        if won:
            taken.append(pk)
            if old_driver:  # another process drove it: its open turn is stale
                services.resume(pk)
    return taken


def due_places(driver: str = DRIVER_ID) -> list[int]:
    """This driver's places with a step or a deadline due; how late each is goes to
    ``/metrics`` (``daihinmin_dealer_lag_seconds``)."""
    now = timezone.now()
    due = (
        Place.objects.filter(state=Place.State.RUNNING, driver=driver)
        .filter(Q(next_step_at__lte=now) | Q(turn_deadline__lte=now))
        .exclude(pk__in=services.playing())  # another thread plays its house turns on
        .values_list("id", "next_step_at", "turn_deadline")
    )
    ids = []
    for pk, step_at, deadline in due:
        at = min(t for t in (step_at, deadline) if t is not None and t <= now)
        metrics.DEALER_LAG_SECONDS.observe((now - at).total_seconds())
        ids.append(pk)
    return ids


def next_wakeup(driver: str = DRIVER_ID) -> float:
    """Seconds until the earliest scheduled step or deadline (capped by the poll interval)."""
    now = timezone.now()
    times = [
        t
        for row in Place.objects.filter(state=Place.State.RUNNING, driver=driver)
        .exclude(pk__in=services.playing())
        .values_list("next_step_at", "turn_deadline")
        for t in row
        if t is not None
    ]
    if not times:
        return poll_seconds()
    return max(0.0, min(poll_seconds(), (min(times) - now).total_seconds()))


def tick(driver: str = DRIVER_ID) -> int:
    """One round: claim, run what is due, start the tournaments' next places.

    Returns the number of places moved.
    """
    claim(driver)
    moved = 0
    for pk in due_places(driver):
        with logs.about(pk):
            try:
                if services.run_due(pk, seconds=HOUSE_SECONDS):
                    moved += 1
            except Exception:
                logger.exception("dealer: place %s failed to step", pk)
    try:
        services.advance_running()
    except Exception:
        logger.exception("dealer: tournaments failed to advance")
    return moved


def one_round() -> float:
    """One round of the dealer's thread; returns how long to wait for the next."""

    def round_body() -> float:
        tick()
        return next_wakeup()

    return background.sound_round("dealer", round_body, logger)


_worker = background.Worker("dealer", one_round, sleep=wake.wait, interrupt=wake.dealer)
start = _worker.start
stop = _worker.stop
