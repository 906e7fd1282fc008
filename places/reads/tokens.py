"""A user's API tokens as they are listed: never their secret (it is not stored)."""

from __future__ import annotations

from datetime import datetime

from places.models import ApiToken

#: Revoked tokens listed, the latest revoked: what a revoked token did is seen a while,
#: and a list of every one ever made would grow without end (issue 44, item 8).
REVOKED_LISTED = 5


def of_user(user_id: int) -> list[ApiToken]:
    """The user's tokens not revoked and the :data:`REVOKED_LISTED` latest revoked (with
    when), the newest made first."""
    mine = ApiToken.objects.filter(user_id=user_id)
    live = list(mine.filter(revoked_at__isnull=True))
    revoked = list(
        mine.filter(revoked_at__isnull=False).order_by("-revoked_at", "-id")[:REVOKED_LISTED]
    )
    return sorted(live + revoked, key=lambda row: row.id, reverse=True)


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
