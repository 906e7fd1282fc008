"""Marks of the end-to-end tests (the servers they start are ``harness``'s)."""

from __future__ import annotations

import pytest

#: For tests of several processes: they meet only through Redis (``tests/needs.py``).
NEEDS_REDIS = pytest.mark.needs("redis")
