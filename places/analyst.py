"""The analyst: a thread in each server process, beside the dealer, that makes the game
analyses users ask for (``places/services/analysis.py``, ``docs/analysis.md``).

A job is claimed as the dealer claims a place: by compare-and-swap on its row
(``filter(pk=…, state=old, worker=old, lease_until=old).update(…)``), queued or
held by a worker whose lease ran out (a process that died: the job is taken again
from its start). The worker renews its lease after each decision evaluated; one
that finds its lease taken stops and writes nothing. The decisions are evaluated in
``ANALYSIS_WORKERS`` processes of the analyst's own, so that the server's threads
keep the interpreter.
"""

from __future__ import annotations

import logging
from concurrent.futures import Executor, ProcessPoolExecutor
from datetime import timedelta

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from daifugo.analysis import analyse
from places import background
from places.leases import DRIVER_ID
from places.models import GameAnalysis
from places.reads.records import game_record

logger = logging.getLogger(__name__)

State = GameAnalysis.State

_pool: ProcessPoolExecutor | None = None


class LostLease(Exception):
    """Another worker took the job: this one's work is void."""


def lease_length() -> timedelta:
    return timedelta(seconds=settings.ANALYSIS_LEASE_SECONDS)


def claim(worker: str = DRIVER_ID) -> GameAnalysis | None:
    """Take the first queued job (staff's first, then those of a game their askers played,
    ``GameAnalysis.priority``; the oldest first in each), or one whose worker's lease ran
    out; None if none."""
    now = timezone.now()
    free = (
        GameAnalysis.objects.filter(
            Q(state=State.QUEUED) | Q(state=State.RUNNING, lease_until__lt=now)
        )
        .order_by("priority", "requested_at")
        .values_list("id", "state", "worker", "lease_until")
    )
    for pk, state, old_worker, old_lease in free[:20]:
        won = GameAnalysis.objects.filter(
            pk=pk, state=state, worker=old_worker, lease_until=old_lease
        ).update(
            state=State.RUNNING, worker=worker, lease_until=now + lease_length(), done_decisions=0
        )
        if won:
            if old_worker:
                logger.info("analyst: took analysis %s over from %s", pk, old_worker)
            return GameAnalysis.objects.select_related("game").get(pk=pk)
    return None


def run(job: GameAnalysis, worker: str = DRIVER_ID, pool: Executor | None = None) -> bool:
    """Make a claimed job's analysis and keep it; False if the lease was lost on the way."""
    mine = GameAnalysis.objects.filter(pk=job.pk, state=State.RUNNING, worker=worker)

    def progress(done: int, total: int) -> None:
        renewed = mine.update(
            lease_until=timezone.now() + lease_length(), done_decisions=done, decisions=total
        )
        if not renewed:
            raise LostLease(job.pk)

    try:
        record = game_record(job.game.place_id, job.game.no, staff=True)
        if record is None:
            raise ValueError(f"game {job.game.no} of place {job.game.place_id} has no record")
        document = analyse(record, job.playouts, pool=pool, progress=progress)
    except LostLease:
        logger.warning("analyst: analysis %s was taken by another worker", job.pk)
        return False
    except Exception as e:
        logger.exception("analyst: analysis %s failed", job.pk)
        mine.update(state=State.FAILED, error=str(e)[:1000], finished_at=timezone.now())
        return True
    return bool(
        mine.update(state=State.DONE, result=document, lease_until=None, finished_at=timezone.now())
    )


def work_once(worker: str = DRIVER_ID, pool: Executor | None = None) -> bool:
    """Claim one job and make it; False when there was none."""
    job = claim(worker)
    if job is None:
        return False
    run(job, worker, pool)
    return True


def _process_pool() -> ProcessPoolExecutor | None:
    global _pool
    if settings.ANALYSIS_WORKERS < 1:
        return None
    if _pool is None:
        _pool = ProcessPoolExecutor(settings.ANALYSIS_WORKERS)
    return _pool


def one_round() -> float:
    """One round of the analyst's thread: a job made now, or a wait for the next poll."""

    def round_body() -> float:
        return 0.0 if work_once(DRIVER_ID, _process_pool()) else settings.ANALYST_POLL_SECONDS

    return background.sound_round("analyst", round_body, logger)


_worker = background.Worker("analyst", one_round)
start = _worker.start
stop = _worker.stop
