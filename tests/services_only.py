"""CI's second step runs again only what PostgreSQL or Redis could change.

``.ci/run`` runs the whole suite on SQLite and the in-memory layer, then again on
PostgreSQL and Redis. A test that reaches neither a database nor Redis (the engine's, the
bots' strategies, the wire codecs) gives the same verdict in both steps, so with
``DAIHINMIN_ONLY_SERVICES=1`` the second step deselects it. The judgement errs towards
keeping: a test is kept when pytest-django lets it at a database, when it is an
end-to-end test, or when its module's text names anything that reaches a service from
outside pytest-django's markers (a server in a subprocess, a command, the channel layer,
the cache, the test client).
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

import pytest

#: Set by ``.ci/run``'s second step.
ONLY_SERVICES = "DAIHINMIN_ONLY_SERVICES"
#: pytest-django's fixtures that open the database.
DATABASE_FIXTURES = frozenset(
    {
        "db",
        "transactional_db",
        "live_server",
        "django_db_reset_sequences",
        "django_db_serialized_rollback",
        "_django_db_helper",
    }
)
#: Words of a test module that mean it may reach a database or Redis without a marker.
REACHES_A_SERVICE = (
    "subprocess",
    "harness",
    "manage.py",
    "call_command",
    "channel_layer",
    "Communicator",
    "django.core.cache",
    "django.test",
    "client",
    "REDIS",
    "DATABASE",
    "daphne",
    "live_server",
)


@functools.cache
def _module_text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def reaches_a_service(item: pytest.Item) -> bool:
    """Whether ``item`` may give another verdict on PostgreSQL and Redis than on SQLite."""
    if item.get_closest_marker("django_db") or item.get_closest_marker("e2e"):
        return True
    if DATABASE_FIXTURES & set(getattr(item, "fixturenames", ())):
        return True
    needs = item.get_closest_marker("needs")
    if needs and {"postgresql", "redis"} & set(needs.args):
        return True
    text = _module_text(Path(item.path))
    return any(word in text for word in REACHES_A_SERVICE)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under ``DAIHINMIN_ONLY_SERVICES=1``, deselect the tests that reach no service."""
    if os.environ.get(ONLY_SERVICES) != "1":
        return
    kept = [item for item in items if reaches_a_service(item)]
    dropped = [item for item in items if not reaches_a_service(item)]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept
