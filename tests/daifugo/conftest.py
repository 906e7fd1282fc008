"""Engine tests need neither Django nor a database (they also run with ``-p no:django``).

``tests/conftest.py`` has an autouse fixture that needs pytest-django's ``settings``;
this one of the same name replaces it for the engine tests.
"""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True, scope="session")
def _fast_password_hashing() -> None:
    """No passwords are hashed here."""


@pytest.fixture(autouse=True, scope="session")
def _db_work_in_the_calling_thread() -> None:
    """No database here."""
