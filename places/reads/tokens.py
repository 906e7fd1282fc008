"""A user's API tokens as they are listed: never their secret (it is not stored)."""

from __future__ import annotations

from datetime import datetime

from places.models import ApiToken


def of_user(user_id: int) -> list[ApiToken]:
    """The user's tokens, the newest first, revoked ones too (with when)."""
    return list(ApiToken.objects.filter(user_id=user_id).order_by("-id"))


def _iso(when: datetime | None) -> str | None:
    return None if when is None else when.isoformat()


def as_dict(row: ApiToken) -> dict:
    """A token as ``/tokens.json`` lists it (docs/protocol.md, "Personal API tokens")."""
    return {
        "id": row.id,
        "label": row.label,
        "prefix": row.prefix,
        "created_at": _iso(row.created_at),
        "last_used_at": _iso(row.last_used_at),
        "revoked_at": _iso(row.revoked_at),
    }
