"""Errors of the player API: a stable code, a message and an HTTP status.

The game's own codes (PROTOCOL.md §3) come from ``places.services``; the ones
below belong to HTTP itself (requests that never reach the game).
"""

from __future__ import annotations

from places.services import (
    INVALID_CARD,
    LOGIN_FAILED,
    NO_TURN_OPEN,
    NOT_LOGGED_IN,
    NOT_YOUR_TURN,
)

#: An unsafe request sent by a page of another site (Origin or Referer names another host).
CROSS_SITE = "CROSS_SITE"
#: Too many failed logins from one address or for one name.
TOO_MANY_ATTEMPTS = "TOO_MANY_ATTEMPTS"
#: A request Django cannot read: too many fields, a broken multipart body, undecodable bytes.
BAD_REQUEST = "BAD_REQUEST"
#: A body bigger than ``DATA_UPLOAD_MAX_MEMORY_SIZE``.
REQUEST_TOO_LARGE = "REQUEST_TOO_LARGE"
#: A body that is not a form (JSON, plain text, …): parameters come as a form or a query string.
UNSUPPORTED_MEDIA_TYPE = "UNSUPPORTED_MEDIA_TYPE"
#: A method the path does not serve (``GET /post_cards``).
METHOD_NOT_ALLOWED = "METHOD_NOT_ALLOWED"

#: Every code the player API answers with, and its status.
STATUS = {
    NOT_LOGGED_IN: 401,
    LOGIN_FAILED: 401,
    INVALID_CARD: 400,
    NO_TURN_OPEN: 409,
    NOT_YOUR_TURN: 409,
    CROSS_SITE: 403,
    TOO_MANY_ATTEMPTS: 429,
    BAD_REQUEST: 400,
    REQUEST_TOO_LARGE: 413,
    UNSUPPORTED_MEDIA_TYPE: 415,
    METHOD_NOT_ALLOWED: 405,
}


class ApiError(Exception):
    """A request the API refuses; rendered as the protocol's error body."""

    def __init__(self, code: str, message: str, status: int | None = None, headers=None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status if status is not None else STATUS[code]
        self.headers = dict(headers or {})
