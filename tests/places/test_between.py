"""The loop that steps aside for its database work (``places/realtime/between.py``):
each job runs in the loop's thread with no loop running, in the order handed over,
the coroutines meanwhile suspended; the ORM works there, with Django's check on."""

from __future__ import annotations

import asyncio
import threading

import pytest
from django.contrib.auth import get_user_model

from places.realtime import between, db_thread


def test_jobs_run_in_the_loops_thread_with_no_loop_running_in_order():
    seen: list[tuple[str, int, bool]] = []
    ticks: list[int] = []

    def job(no: int) -> int:
        running = asyncio._get_running_loop() is not None
        seen.append((threading.current_thread().name, no, running))
        return no * 10

    async def ticker() -> None:
        while True:
            ticks.append(len(seen))
            await asyncio.sleep(0)

    async def main() -> list[int]:
        assert between.active()
        tick = asyncio.create_task(ticker())
        results = [await db_thread.run(job, no, place=no % 2) for no in range(3)]
        results += await asyncio.gather(*(db_thread.run(job, no) for no in range(3, 6)))
        tick.cancel()
        return results

    assert between.run_stepping(main(), None) == [0, 10, 20, 30, 40, 50]
    me = threading.current_thread().name
    assert seen == [(me, no, False) for no in range(6)]
    assert not between.active()  # the loop is gone
    assert len(set(ticks)) > 1  # the loop went on between the jobs, not only before them


def test_a_jobs_exception_reaches_its_caller_and_the_loop_goes_on():
    def fails() -> None:
        raise ValueError("no")

    async def main() -> str:
        with pytest.raises(ValueError, match="no"):
            await db_thread.run(fails)
        return await db_thread.run(lambda: "after")

    assert between.run_stepping(main(), None) == "after"


@pytest.mark.django_db(transaction=True)
def test_the_orm_runs_in_a_job_and_not_on_the_loop():
    from django.core.exceptions import SynchronousOnlyOperation

    User = get_user_model()

    async def main() -> int:
        with pytest.raises(SynchronousOnlyOperation):
            User.objects.count()  # on the running loop: Django's check still holds
        await db_thread.run(User.objects.create_user, "stepper", password="x")
        return await db_thread.run(User.objects.filter(username="stepper").count)

    assert between.run_stepping(main(), None) == 1


def test_outside_a_stepping_loop_the_database_threads_do_the_work(settings, monkeypatch):
    settings.DB_THREAD = True
    settings.DB_THREADS = 1
    monkeypatch.setattr(db_thread, "_executors", [])

    async def main() -> tuple[bool, str]:
        return between.active(), await db_thread.run(lambda: threading.current_thread().name)

    try:
        active, name = asyncio.run(main())
    finally:
        for executor in db_thread._executors:
            executor.shutdown()
    assert not active and name.startswith("db-thread-")


def test_an_interrupted_main_is_cancelled_and_its_cleanup_runs():
    cleaned: list[str] = []

    def interrupt() -> None:
        raise KeyboardInterrupt

    async def main() -> None:
        try:
            await db_thread.run(interrupt)
        finally:
            cleaned.append("closed")

    with pytest.raises(KeyboardInterrupt):
        between.run_stepping(main(), None)
    assert cleaned == ["closed"]


def test_an_interrupted_main_beside_other_tasks_ends_with_the_interrupt():
    """Other tasks on the loop (``uecda_match --watch``'s pages) are cancelled when the loop
    closes: the main's end must not stop the loop under that cancellation."""
    cancelled: list[str] = []

    def interrupt() -> None:
        raise KeyboardInterrupt

    async def serving() -> None:
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            cancelled.append("serving")
            raise

    async def main() -> None:
        asyncio.get_running_loop().create_task(serving())
        await asyncio.sleep(0)
        await db_thread.run(interrupt)

    with pytest.raises(KeyboardInterrupt):
        between.run_stepping(main(), None)
    assert cancelled == ["serving"]
