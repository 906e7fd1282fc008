"""Shared pytest fixtures (pytest-django provides client, db, settings, ...)."""

import pytest
from channels.db import database_sync_to_async
from django.db import connections


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    """Hashing with PBKDF2 costs ~0.25 s a user; tests create many users."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _db_work_in_the_calling_thread(settings):
    """Tests wrapped in a transaction must see their own rows: no separate DB thread."""
    settings.DB_THREAD = False


@pytest.fixture
async def close_thread_connections():
    """Close what async tests' database thread holds afterwards (on PostgreSQL an open
    connection keeps the test database from being dropped)."""
    yield
    await database_sync_to_async(connections.close_all)()
