"""A unit of work that meets "database is locked" is tried again (``places/locked.py``,
issue 44, item 11): the dealer's step, a house move, a UECda game's write, a post."""

from __future__ import annotations

import threading

import pytest
from django.db import OperationalError, connection, connections, transaction

from places import locked, services
from places.models import Place

LOCKED = OperationalError("database is locked")


@pytest.fixture(autouse=True)
def quick(monkeypatch):
    monkeypatch.setattr(locked, "FIRST_PAUSE", 0.001)


def failing(times: int, error: Exception = LOCKED):
    calls = []

    def fn(value):
        calls.append(value)
        if len(calls) <= times:
            raise error
        return value * 2

    return fn, calls


def test_a_unit_that_meets_a_locked_database_is_tried_again():
    fn, calls = failing(2)
    assert locked.retried(fn, 21) == 42
    assert calls == [21, 21, 21]


def test_another_database_error_goes_up_at_once():
    fn, calls = failing(1, OperationalError("no such table: x"))
    with pytest.raises(OperationalError, match="no such table"):
        locked.retried(fn, 1)
    assert calls == [1]


def test_a_database_locked_for_good_goes_up_after_the_last_try():
    fn, calls = failing(100)
    with pytest.raises(OperationalError, match="is locked"):
        locked.retried(fn, 1)
    assert len(calls) == locked.ATTEMPTS


@pytest.mark.django_db
def test_inside_an_outer_transaction_the_error_goes_up_for_the_outer_unit():
    fn, calls = failing(1)
    with transaction.atomic(), pytest.raises(OperationalError):
        locked.retried(fn, 1)
    assert calls == [1]


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's one writer")
def test_the_dealer_s_step_waits_out_another_writer_past_the_busy_timeout(make_place, monkeypatch):
    monkeypatch.setattr(locked, "FIRST_PAUSE", 0.1)  # 1.5 s of pauses in all
    place = make_place(pace=1.0)
    services.start_place(place.id)
    place.refresh_from_db()
    held, release = threading.Event(), threading.Event()

    def other_writer():  # a writer holding the database longer than the busy timeout
        try:
            with transaction.atomic():
                Place.objects.filter(pk=place.id).exists()
                held.set()
                release.wait(5)
        finally:
            connections.close_all()

    writer = threading.Thread(target=other_writer)
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA busy_timeout = 20")  # 20 ms instead of 20 s: locked at once
    writer.start()
    assert held.wait(5)
    timer = threading.Timer(0.3, release.set)
    timer.start()
    try:
        assert services.run_due(place.id, now=place.next_step_at)
    finally:
        release.set()
        writer.join(5)
        connection.close()  # the busy timeout of the settings again
    place.refresh_from_db()
    assert place.event_seq > 1  # the step was taken, once the other writer was done
