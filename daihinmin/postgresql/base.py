"""PostgreSQL connections the server has closed, found before they are used, at no round trip.

A backend the server ends (``pg_terminate_backend``, a restart, an idle timeout)
sends its reason and closes its socket; the client's connection object learns of
it only when its next query fails. Left alone, each such connection fails the
next request, socket frame or dealer round that draws it, however much later.

What the server sent meanwhile is read here without waiting (a ``select`` with no
timeout and libpq's ``consume_input``, a few microseconds): a closed stream means
the connection is gone. That is checked where a connection is about to be used:

- by this backend, for each connection Django borrows from the pool
  (:meth:`DatabaseWrapper.get_new_connection`): its requests and its
  ``database_sync_to_async`` calls borrow one each time;
- by the threads that keep theirs (the database threads, the dealer) before each
  job (:func:`drop_closed`): the job then borrows a checked one.

psycopg-pool's own ``check_connection`` (Django's ``CONN_HEALTH_CHECKS`` with a pool)
sends an empty query instead: a round trip for every connection lent
(docs/operations.md has the figures). A connection cut
while a query is under way still fails that query (its transaction rolls back, so
nothing is applied twice); no query is retried.
"""

from __future__ import annotations

import logging
import select

import psycopg
from django.db import connections
from django.db.backends.postgresql import base
from psycopg import pq

logger = logging.getLogger(__name__)


def closed_by_server(driver: psycopg.Connection) -> bool:
    """Whether the server has closed this idle connection: what it sent is read, never
    waited for, and a stream that ended (or a connection already broken) is closed."""
    if driver.closed or driver.pgconn.status != pq.ConnStatus.OK:
        return True
    if driver.pgconn.transaction_status == pq.TransactionStatus.ACTIVE:
        return False  # a query under way: its answer is not ours to read
    try:
        while select.select([driver.pgconn.socket], [], [], 0)[0]:
            driver.pgconn.consume_input()  # a notice, or the reason the server gave; then EOF
    except psycopg.OperationalError:
        return True  # the stream ended
    return driver.pgconn.status != pq.ConnStatus.OK


class DatabaseWrapper(base.DatabaseWrapper):
    """Django's, but a connection borrowed from the pool is one the server has not closed."""

    def get_new_connection(self, conn_params):
        driver = super().get_new_connection(conn_params)
        while self.pool is not None and closed_by_server(driver):
            # Others idle in the pool were most likely closed with it (a restart, an
            # operator ending every session): they are checked at once, a round trip
            # each, rather than drawn one by one.
            logger.warning("the server closed a pooled database connection: checking the others")
            self.pool.putconn(driver)  # broken: the pool discards it and opens another
            self.pool.check()
            driver = super().get_new_connection(conn_params)
        return driver


def drop_closed() -> None:
    """Close this thread's kept connections that the server closed, so that the next query
    borrows a sound one instead of failing (outside a transaction only)."""
    for connection in connections.all(initialized_only=True):
        driver = connection.connection
        if (
            driver is not None
            and connection.vendor == "postgresql"
            and not connection.in_atomic_block
            and closed_by_server(driver)
        ):
            logger.warning("this thread's database connection was closed by the server")
            connection.close()
