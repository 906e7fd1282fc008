"""An event loop that steps aside for its process's database work (``manage.py uecda_match``).

A drop-in match's loop serves that match alone, and its clients wait while a finished
game is stored. Handed to a database thread (:mod:`places.realtime.db_thread`), the
write costs two wake-ups and runs on a CPU whose caches hold none of it: on a 2-core
machine it took 3.2–4.0 ms a game against 2.3–2.9 ms in the loop's own thread, a fifth
of a game's time (docs/benchmarks.md). :func:`run_stepping` runs a coroutine on a loop
that, for each job :func:`call` hands it, stops, runs the job in its own thread with
no loop running (as Django requires of its ORM: its check stays on), and goes on with
the job's result. Only for a loop that serves nothing else: everything on it waits
while a job runs.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

Job = tuple[Callable[[], Any], asyncio.Future]

#: The stepping loop of this process, while :func:`run_stepping` runs one.
_loop: asyncio.AbstractEventLoop | None = None
#: Jobs handed over and not yet run, in order.
_jobs: deque[Job] = deque()


def active() -> bool:
    """Whether the calling coroutine runs on the stepping loop."""
    return _loop is not None and asyncio.get_running_loop() is _loop


async def call(job: Callable[[], T]) -> T:
    """Run ``job`` with the loop stopped, in its thread; its result or its exception."""
    assert _loop is not None
    future: asyncio.Future[T] = _loop.create_future()
    _jobs.append((job, future))
    _loop.stop()  # run_forever returns once this round is over
    return await future


def _run_jobs() -> None:
    while _jobs:
        job, future = _jobs.popleft()
        if future.cancelled():
            continue
        try:
            result = job()
        except Exception as e:
            future.set_exception(e)
        else:
            future.set_result(result)


def run_stepping(
    main: Coroutine[Any, Any, T], loop_factory: Callable[[], asyncio.AbstractEventLoop] | None
) -> T:
    """``asyncio.run(main)`` on a loop from ``loop_factory``, stepping aside for the jobs
    handed to :func:`call`."""
    global _loop
    with asyncio.Runner(loop_factory=loop_factory) as runner:
        loop = runner.get_loop()
        task = loop.create_task(main)
        # only while stepping: a main cancelled below must not stop the loop that then
        # cancels the other tasks (``uecda_match --watch``'s pages) as it closes
        task.add_done_callback(lambda _: loop.stop() if _loop is loop else None)
        _loop = loop
        try:
            while not task.done():
                loop.run_forever()
                _run_jobs()
        finally:
            _loop = None
            _jobs.clear()
            if not task.done():  # interrupted: its cleanup runs before the loop closes
                task.cancel()
                loop.run_until_complete(asyncio.gather(task, return_exceptions=True))
        return task.result()
