"""Marks of the end-to-end tests (the servers they start are ``harness``'s)."""

from __future__ import annotations

import os

import pytest

#: For tests of several processes: they meet only through Redis.
NEEDS_REDIS = pytest.mark.skipif(
    not os.environ.get("REDIS_URL"),
    reason="two processes meet only through Redis: set REDIS_URL (CI's step 2 does)",
)
