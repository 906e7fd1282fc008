"""Whom a session plays for: one rule for the player API and the sockets.

A bot logs in as a player of one place (``POST /login`` with ``place_id``); the
session then names the user and that place, and nothing a request or a frame
carries can name another player or place. The user comes from Django's own
authentication (the session, its auth hash, the backend), read afresh for each
HTTP request and each socket action, so that logging out, logging in again
elsewhere or changing the password is seen at once.
"""

from __future__ import annotations

from types import SimpleNamespace

from django.contrib.auth import get_user
from django.contrib.sessions.backends.base import SessionBase

from places import errors
from places.reads.seats import seat_of

#: The session key holding the place the user logged in to.
PLACE_KEY = "place_id"


def player_of(session: SessionBase, user) -> tuple[int, int]:
    """``(place_id, user_id)`` of the session's player, or ``NOT_LOGGED_IN``."""
    place_id = session.get(PLACE_KEY)
    if user is None or not user.is_authenticated or not isinstance(place_id, int):
        raise errors.Refused(errors.NOT_LOGGED_IN)
    seat_of(place_id, user.pk)  # NOT_LOGGED_IN unless a player of that place
    return place_id, user.pk


def player_of_stored(session: SessionBase) -> tuple[int, int]:
    """:func:`player_of` for a session read afresh from its store (a socket's, at each action)."""
    return player_of(session, get_user(SimpleNamespace(session=session)))
