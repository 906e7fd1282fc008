"""CI's second step runs again only what PostgreSQL or Redis could change.

``.ci/run`` runs the whole suite on SQLite and the in-memory layer, then again on
PostgreSQL and Redis. A test that reaches neither a database nor Redis (the engine's, the
bots' strategies, the wire codecs) gives the same verdict in both steps, so with
``DAIHINMIN_ONLY_SERVICES=1`` the second step deselects it. The judgement errs towards
keeping: a test is kept when pytest-django lets it at a database, when it is an
end-to-end test, or when its module's text names anything that reaches a service from
outside pytest-django's markers (a server in a subprocess, a command, the channel layer,
the cache, the test client).

A test that drives Chromium runs once, in the first step, unless it needs PostgreSQL or
Redis: it checks what a page does in a browser, and the reads behind the page run again
on PostgreSQL in the page tests that use Django's client (tests/pages, tests/places).
The browser tests were a fifth of the second step's time (417 of 2,178 s).

An end-to-end test (a real server in a subprocess, bot processes) runs once too, in the
second step: the production configuration, PostgreSQL and Redis, two server processes
where a test has a second one. ``.ci/run``'s first step sets ``DAIHINMIN_E2E_ELSEWHERE=1``
and leaves out those the second step runs, unless the test is marked
``embedded_default``: its subject is the embedded default itself (``make run``'s demo, a
stop that reaches the server without Redis). They were 548 of the first step's 1,478
test-seconds, and as long again in the second.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

import pytest

#: Set by ``.ci/run``'s second step.
ONLY_SERVICES = "DAIHINMIN_ONLY_SERVICES"
#: Set by ``.ci/run``'s first step: the end-to-end tests the second step runs are left to it.
E2E_ELSEWHERE = "DAIHINMIN_E2E_ELSEWHERE"
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


#: Words of a test module that drives Chromium (tests/pages/browser.py).
DRIVES_A_BROWSER = ("require_chromium", "tests.pages.browser")


def needs_postgresql_or_redis(item: pytest.Item) -> bool:
    """Whether ``item`` runs only where PostgreSQL or Redis is (``@pytest.mark.needs``)."""
    needs = item.get_closest_marker("needs")
    return bool(needs and {"postgresql", "redis"} & set(needs.args))


def drives_a_browser(item: pytest.Item) -> bool:
    """Whether ``item``'s module drives Chromium."""
    text = _module_text(Path(item.path))
    return any(word in text for word in DRIVES_A_BROWSER)


def runs_again(item: pytest.Item) -> bool:
    """Whether the second step runs ``item`` again (the module's docstring says why)."""
    if needs_postgresql_or_redis(item):
        return True
    return reaches_a_service(item) and not drives_a_browser(item)


def left_to_the_second_step(item: pytest.Item) -> bool:
    """Whether the first step leaves ``item`` to the second (the module's docstring says why)."""
    return (
        item.get_closest_marker("e2e") is not None
        and item.get_closest_marker("embedded_default") is None
        and runs_again(item)
    )


def reaches_a_service(item: pytest.Item) -> bool:
    """Whether ``item`` may give another verdict on PostgreSQL and Redis than on SQLite."""
    if item.get_closest_marker("django_db") or item.get_closest_marker("e2e"):
        return True
    if DATABASE_FIXTURES & set(getattr(item, "fixturenames", ())):
        return True
    if needs_postgresql_or_redis(item):
        return True
    text = _module_text(Path(item.path))
    return any(word in text for word in REACHES_A_SERVICE)


def long_first(item: pytest.Item) -> int:
    """0 for a test of a module that takes long (an end-to-end or a browser test), else 1:
    pytest-xdist hands whole modules out in the order collected (``--dist loadfile``), so
    those go first and the short ones fill in around them, instead of one long module
    left running at the end while the other workers wait."""
    return 0 if item.get_closest_marker("e2e") or drives_a_browser(item) else 1


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under ``DAIHINMIN_ONLY_SERVICES=1``, deselect the tests whose verdict the first step
    gave once and for all; under ``DAIHINMIN_E2E_ELSEWHERE=1``, those the second runs. The
    long modules first (:func:`long_first`), in every run."""
    items.sort(key=long_first)  # stable: each module's tests keep their order
    if os.environ.get(ONLY_SERVICES) == "1":
        keeps = runs_again
    elif os.environ.get(E2E_ELSEWHERE) == "1":
        keeps = lambda item: not left_to_the_second_step(item)  # noqa: E731
    else:
        return
    kept: list[pytest.Item] = []
    dropped: list[pytest.Item] = []
    for item in items:
        (kept if keeps(item) else dropped).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept
