"""Whom a session plays for: one rule for the player API and the sockets.

A bot logs in as a player of one place (``POST /login`` with ``place_id``); the
session then names the user and that place, and nothing a request or a frame
carries can name another player or place. The user comes from Django's own
authentication (the session, its auth hash, the backend), for each HTTP request and
each socket action, so that logging out, logging in again elsewhere, a password
changed or a user deactivated is seen at once.

A socket acts many times a second on one session: :class:`SocketSession` keeps what
Django's check last saw when it said yes, reads those inputs again at each action
(one query, which a post sends with the place's lock) and runs Django's check again
whenever any of them changed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib import import_module
from types import SimpleNamespace

from django.conf import settings
from django.contrib.auth import get_user, get_user_model
from django.contrib.sessions.backends.base import SessionBase
from django.contrib.sessions.models import Session
from django.db import connection
from django.http import HttpRequest
from django.utils import timezone

from places import errors, rows
from places.reads.seats import seat_of

#: The session key holding the place the user logged in to.
PLACE_KEY = "place_id"

_BEARER = re.compile(r"Bearer[ \t]+(\S+)[ \t]*", re.ASCII | re.IGNORECASE)


def bearer_token(request: HttpRequest) -> str | None:
    """The token of the request's ``Authorization: Bearer TOKEN`` header (HTTP or a
    socket's handshake); None without one, so that the session decides.

    Another scheme, or a header that is not one token, is an unknown token (refused,
    counted): a bot that means to send a token is told so, not answered as a stranger."""
    header = request.META.get("HTTP_AUTHORIZATION")
    if header is None:
        return None
    match = _BEARER.fullmatch(header)
    return match[1] if match else header[:100]


def player_of(session: SessionBase, user) -> tuple[int, int]:
    """``(place_id, user_id)`` of the session's player, or ``NOT_LOGGED_IN``."""
    place_id = session.get(PLACE_KEY)
    if user is None or not user.is_authenticated or not isinstance(place_id, int):
        raise errors.Refused(errors.NOT_LOGGED_IN)
    seat_of(place_id, user.pk)  # NOT_LOGGED_IN unless a player of that place
    return place_id, user.pk


@dataclass(frozen=True)
class _Verified:
    """The inputs of Django's check when it last said yes, and its answer."""

    session_data: str
    password: str
    player: tuple[int, int]


class SocketSession:
    """A socket's session, checked at every action with the same answer as Django's check.

    Django's answer depends on the session row (its data and its expiry) and on the
    user's row (that it exists, is active and keeps the password the session's auth
    hash was made from). While none of them changed, the answer is the same: one
    query reads them (:class:`Unchanged`), and only a change runs the check again. A
    post carries that query in the place's lock (``services.post_cards``).
    """

    def __init__(self, session_key: str):
        self.session_key = session_key
        self._verified: _Verified | None = None

    def player(self) -> tuple[int, int]:
        """``(place_id, user_id)``, or ``NOT_LOGGED_IN`` (on the database thread)."""
        unchanged = self.unchanged()
        if unchanged is not None and unchanged.holds(unchanged.read()):
            return unchanged.player
        return self._verify()

    def _verify(self) -> tuple[int, int]:
        """Django's own check, whatever was seen before."""
        self._verified = None
        store = import_module(settings.SESSION_ENGINE).SessionStore(self.session_key)
        user = get_user(SimpleNamespace(session=store))
        player = player_of(store, user)
        row = rows.read(Session, self.session_key)
        self._verified = _Verified(row.session_data, user.password, player)
        return player

    def forget(self) -> None:
        """What Django's check last said no longer holds: the next action checks afresh."""
        self._verified = None

    def unchanged(self) -> Unchanged | None:
        """The query that tells whether Django's last yes still holds (None: never said)."""
        known = self._verified
        return None if known is None else Unchanged(self.session_key, known)


class Unchanged:
    """Whether the rows Django's check read are as they were when it said yes (a
    ``services.change.Precondition``): the session's data unexpired, the user active
    with the same password."""

    def __init__(self, session_key: str, known: _Verified):
        self.sql = _unchanged_sql(connection.vendor)
        self.params = [
            session_key,
            connection.ops.adapt_datetimefield_value(timezone.now()),
            known.player[1],
        ]
        self.known = known

    @property
    def player(self) -> tuple[int, int]:
        """``(place_id, user_id)`` of the session's player when Django said yes."""
        return self.known.player

    def read(self) -> tuple | None:
        """The query's row, on its own."""
        with connection.cursor() as cursor:
            cursor.execute(self.sql, self.params)
            return cursor.fetchone()

    def holds(self, row: tuple | None) -> bool:
        return row is not None and tuple(row) == (self.known.session_data, self.known.password)


@cache
def _unchanged_sql(vendor: str) -> str:
    """:class:`Unchanged`'s query in the database's dialect, built once (it goes with every
    post a socket makes)."""
    users = get_user_model()
    q = connection.ops.quote_name
    return (
        f"SELECT s.{q('session_data')}, u.{q('password')} "
        f"FROM {q(Session._meta.db_table)} s, {q(users._meta.db_table)} u "
        f"WHERE s.{q('session_key')} = %s AND s.{q('expire_date')} > %s "
        f"AND u.{q(users._meta.pk.column)} = %s AND u.{q('is_active')}"
    )


def is_staff(request: HttpRequest) -> bool:
    """Whether the reader is active staff: staff see hands, seeds and held-back records."""
    user = request.user
    return bool(user.is_authenticated and user.is_active and user.is_staff)
