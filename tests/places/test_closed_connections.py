"""Database connections the server closed (``pg_terminate_backend``, a restart) are found
before they are used and replaced (``daihinmin/postgresql/base.py``): by the pool before
it lends one, by the database threads before a job, by the dealer and the analyst before a round; at
no round trip. Only the test database's own connections are terminated here."""

from __future__ import annotations

import asyncio
import logging

import psycopg
import pytest
from django.db import connection
from django.test import Client

from daihinmin.postgresql.base import closed_by_server, drop_closed
from places import analyst, background, dealer, services
from places.realtime import db_thread
from tests.api.helpers import login
from tests.needs import need
from tests.places.test_round_trips import post_a_move, prepared_here
from tests.round_trips import counting

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def only_on_postgresql():
    need("postgresql")  # the server closing a connection: PostgreSQL's


def terminate(pids: list[int]) -> None:
    """End these backends of the test database, and wait until each has gone."""
    params = connection.settings_dict
    with psycopg.connect(
        dbname=params["NAME"],
        user=params["USER"],
        password=params["PASSWORD"] or None,
        host=params["HOST"] or "127.0.0.1",
        port=params["PORT"] or 5432,
        autocommit=True,
    ) as other:
        for pid in pids:
            assert other.execute("SELECT pg_terminate_backend(%s, 10000)", [pid]).fetchone()[0]


def backend_pid() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return cursor.fetchone()[0]


def test_the_pool_lends_no_connection_the_server_closed(make_place):
    """Every idle connection of the pool terminated: no request after fails (before, each
    dead connection failed the next request that drew it)."""
    place = make_place()
    client = Client(raise_request_exception=False)
    login(client, "alice", place.id)
    connection.close()  # back to the pool
    pool = connection.pool
    drivers = [pool.getconn() for _ in range(6)]
    pids = [d.info.backend_pid for d in drivers]
    for driver in drivers:
        pool.putconn(driver)
    terminate(pids)
    statuses = []
    for _ in range(20):
        connection.close()  # as each request's end does in the server: the next one borrows
        statuses.append(client.get("/get_hand.json").status_code)
    assert statuses == [200] * 20
    assert backend_pid() not in pids


async def test_a_database_thread_replaces_a_connection_the_server_closed(settings, monkeypatch):
    settings.DB_THREAD = True
    settings.DB_THREADS = 1
    monkeypatch.setattr(db_thread, "_executors", [])
    try:
        first = await db_thread.run(backend_pid)
        await asyncio.to_thread(terminate, [first])
        second = await db_thread.run(backend_pid)  # before: OperationalError
        assert second != first
    finally:
        await db_thread.run(lambda: connection.close())
        for executor in db_thread._executors:
            executor.shutdown()


def test_the_dealer_goes_on_with_the_round_after_its_connection_was_closed(make_place, caplog):
    place = make_place(pace=0.01)
    services.start_place(place.id)
    assert dealer.one_round() is not None  # its connection now kept
    terminate([backend_pid()])
    with caplog.at_level(logging.ERROR, logger="places.dealer"):
        assert dealer.one_round() != background.FAILED_ROUND_DELAY
    assert "round failed" not in caplog.text


def test_the_analyst_goes_on_polling_after_its_connection_was_closed(caplog, settings):
    """Its idle polls kept a connection too: a dead one failed the next poll (in CI's
    ``test_every_database_connection_killed_mid_place_nothing_fails_after``)."""
    settings.ANALYSIS_WORKERS = 0
    assert analyst.one_round() == settings.ANALYST_POLL_SECONDS  # no job; connection kept
    terminate([backend_pid()])
    with caplog.at_level(logging.ERROR, logger="places.analyst"):
        assert analyst.one_round() == settings.ANALYST_POLL_SECONDS
    assert "round failed" not in caplog.text


def test_finding_a_closed_connection_costs_no_round_trip():
    with counting(connection) as proxy:
        before = list(proxy.by_connection)
        backend_pid()
        # ours: the connection that just spoke (the pool may be opening another meanwhile)
        ours = max(
            range(len(proxy.by_connection)),
            key=lambda i: proxy.by_connection[i] - (before[i] if i < len(before) else 0),
        )
        spoken = proxy.by_connection[ours]
        for _ in range(10):
            drop_closed()
        assert proxy.by_connection[ours] == spoken
        assert connection.connection is not None  # kept: the server did not close it
    # (straight to the server: through the proxy, the close would arrive a moment later)
    pid = backend_pid()
    terminate([pid])
    assert closed_by_server(connection.connection)
    drop_closed()
    assert connection.connection is None
    assert backend_pid() != pid


def test_a_replaced_connection_prepares_the_turns_statements_again(make_place):
    """The prepared statements are the database session's (``places/rows.py``): the new
    session that replaces a closed one prepares its own, and the move goes through."""
    place = make_place(pace=0)
    services.start_place(place.id)
    post_a_move(place.id)  # this session prepares the turn's statements
    first = backend_pid()
    terminate([first])
    drop_closed()
    post_a_move(place.id, seed=1)
    assert backend_pid() != first
    assert prepared_here()  # prepared on the new session
