"""Shared pytest fixtures (pytest-django provides client, db, settings, ...)."""

import os

import pytest
import redis
from channels.db import database_sync_to_async
from django.conf import settings
from django.core.cache import caches
from django.core.cache.backends.redis import RedisCache
from django.db import connections

# the hooks of tests/needs.py: @pytest.mark.needs, and the run's line about what was missing
from tests.needs import (  # noqa: F401
    pytest_configure,
    pytest_runtest_setup,
    pytest_terminal_summary,
)

# CI's second step: only the tests that PostgreSQL or Redis could change (tests/services_only.py)
from tests.services_only import pytest_collection_modifyitems  # noqa: F401


def _a_prefix_of_each_worker() -> None:
    """Under pytest-xdist (``make test`` runs two workers) each worker's channel layer
    and cache get a Redis prefix of their own: the workers' test databases hand out the
    same place ids, and one worker must not hear the other's ``place-1`` events nor count
    its failed logins. Settings are loaded before this file, so they are changed here,
    before the first use of either builds it."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if not worker or not settings.REDIS_URL:
        return
    prefix = f"{settings.REDIS_PREFIX}-{worker}"
    settings.REDIS_PREFIX = prefix
    settings.CHANNEL_LAYERS["default"]["CONFIG"]["prefix"] = prefix
    settings.CACHES["default"]["KEY_PREFIX"] = prefix


_a_prefix_of_each_worker()


#: The mark of a test that plays whole places, change after change: on PostgreSQL in real
#: transactions, as inside the test's one transaction each change is a savepoint and
#: thousands of them overflow its subtransaction cache (the profile test's places of 80 and
#: 10 games: 113 s against 15.5 s); on SQLite inside it, where real commits cost more (28 s
#: against 4.6 s).
PLAYS_WHOLE_PLACES = pytest.mark.django_db(
    transaction=settings.DATABASES["default"]["ENGINE"].endswith("postgresql")
)


def clear_cache() -> None:
    """Empty the cache of this test run alone. ``cache.clear()`` on Redis is FLUSHDB: it
    would wipe the other worker's counts, and a test server's, in the middle of a test."""
    cache = caches["default"]
    if not isinstance(cache, RedisCache):
        cache.clear()
        return
    client = redis.Redis.from_url(settings.CACHES["default"]["LOCATION"])
    try:
        keys = list(client.scan_iter(match=cache.make_key("*"), count=1000))
        if keys:
            client.delete(*keys)
    finally:
        client.close()


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    """Hashing with PBKDF2 costs ~0.25 s a user; tests create many users."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _db_work_in_the_calling_thread(settings):
    """Tests wrapped in a transaction must see their own rows: no separate DB thread."""
    settings.DB_THREAD = False


@pytest.fixture(autouse=True)
def _record_files_of_its_own(settings, tmp_path):
    """A test's record files (places/reads/record_files.py) in a folder of its own: a flushed
    database gives its place ids again, and a file of the old place could match the new."""
    settings.RECORDS_CACHE_DIR = tmp_path / "records"


@pytest.fixture(autouse=True)
def _fresh_seat_cache():
    """A test's places start with no seats kept: a flushed database gives its place ids
    again, and the process's cache of started places' seats would answer for the old ones."""
    from places.reads import seats

    seats.forget()
    yield
    seats.forget()


#: The sender's state of ``places/realtime/broadcast.py``, which ``attach`` sets for a loop.
_SENDER_STATE = ("_loop", "_outbox", "_relay", "_sequencer")


@pytest.fixture(autouse=True)
def _a_sender_of_each_test():
    """What a test attached the event sender to (its own loop, with Redis a relay and a
    sequencer: a UECda match's watch attaches it) ends with the test, as a server's ends
    with its process: a later test in the same worker starts unattached."""
    from places.realtime import broadcast

    before = {name: getattr(broadcast, name) for name in _SENDER_STATE}
    peers = dict(broadcast._peers)
    yield
    for name, value in before.items():
        setattr(broadcast, name, value)
    broadcast._peers.clear()
    broadcast._peers.update(peers)


@pytest.fixture
async def close_thread_connections():
    """Close what async tests' database thread holds afterwards (on PostgreSQL an open
    connection keeps the test database from being dropped)."""
    yield
    await database_sync_to_async(connections.close_all)()
