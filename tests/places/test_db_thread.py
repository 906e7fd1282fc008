"""The database threads: a place's work on one thread, in the order it came; other
work spread over them."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from places.realtime import db_thread


@pytest.fixture
def threads(settings, monkeypatch):
    """Two fresh database threads (the tests' settings switch them off)."""
    settings.DB_THREAD = True
    settings.DB_THREADS = 2
    monkeypatch.setattr(db_thread, "_executors", [])
    yield
    for executor in db_thread._executors:
        executor.shutdown()


async def test_a_places_work_runs_on_one_thread_in_the_order_it_came(threads):
    done: list[tuple[int, int, str]] = []

    def job(place: int, no: int) -> None:
        time.sleep(0.001)  # long enough for the other thread to run meanwhile
        done.append((place, no, threading.current_thread().name))

    await asyncio.gather(
        *(db_thread.run(job, place, no, place=place) for no in range(20) for place in (7, 8))
    )
    for place in (7, 8):
        mine = [(no, name) for p, no, name in done if p == place]
        assert [no for no, _ in mine] == list(range(20))
        assert len({name for _, name in mine}) == 1
    names = {name for _, _, name in done}
    assert len(names) == 2  # the two places' work ran on the two threads


async def test_work_of_no_place_takes_the_threads_in_turn(threads):
    names = [await db_thread.run(lambda: threading.current_thread().name) for _ in range(4)]
    assert names[0] != names[1]
    assert names[0] == names[2] and names[1] == names[3]


async def test_one_thread_when_set_so(settings, monkeypatch):
    settings.DB_THREAD = True
    settings.DB_THREADS = 1
    monkeypatch.setattr(db_thread, "_executors", [])
    try:
        names = {
            await db_thread.run(lambda: threading.current_thread().name, place=p) for p in range(5)
        }
        assert len(names) == 1
    finally:
        for executor in db_thread._executors:
            executor.shutdown()
