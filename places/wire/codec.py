"""Text of the wire: compact JSON as Rails wrote it, and Rails' times."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any


def compact(data: Any) -> str:
    """``{"a":1,"b":[2]}``: no spaces, keys in the order given, non-ASCII kept as UTF-8."""
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


def timestamp(dt: datetime | None) -> str | None:
    """UTC, ``YYYY-MM-DDTHH:MM:SSZ`` (Rails' JSON format)."""
    if dt is None:
        return None
    return dt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
