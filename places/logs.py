"""Which place, game and turn a log line is about.

The work on a place opens a scope (:func:`about`: a socket's action, a request of
the player API, a dealer's step, a change); what it learns on the way goes in with
:func:`note`. The :class:`Ids` filter of the server's log handler writes the
scope's ids at the head of every line logged inside it, by any logger, so an
operator can follow one game through the log of several processes.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass


@dataclass
class _Ids:
    place: int | None = None
    game: int | None = None
    turn: int | None = None

    def __str__(self) -> str:
        if self.place is None:
            return ""
        game = "" if self.game is None else f" game {self.game}"
        turn = "" if self.turn is None else f" turn {self.turn}"
        return f"[place {self.place}{game}{turn}] "


_current: ContextVar[_Ids | None] = ContextVar("daihinmin_log_ids", default=None)


@contextmanager
def about(place_id: int | None) -> Iterator[None]:
    """A scope for work on ``place_id`` (None: a place not known yet, see :func:`note`).

    Inside a scope about the same place, the outer one goes on (what is noted stays).
    """
    ids = _current.get()
    if ids is not None and place_id is not None and ids.place == place_id:
        yield
        return
    token = _current.set(_Ids(place_id))
    try:
        yield
    finally:
        _current.reset(token)


def note(place: int | None = None, game: int | None = None, turn: int | None = None) -> None:
    """What the work in the current scope learned: its place, game, turn (nothing outside one)."""
    ids = _current.get()
    if ids is None:
        return
    if place is not None and place != ids.place:
        ids.place, ids.game, ids.turn = place, None, None
    if game is not None:
        ids.game = game
    if turn is not None:
        ids.turn = turn


class Ids(logging.Filter):
    """Puts ``%(about)s`` on every record: ``[place 3 game 12 turn 40] `` or nothing."""

    def filter(self, record: logging.LogRecord) -> bool:
        ids = _current.get()
        record.about = "" if ids is None else str(ids)
        return True


class WithoutTraceback(logging.Filter):
    """Logs an expected refusal as its one line, without the exception's traceback.

    Django logs a request with a ``Host`` not in ``ALLOWED_HOSTS`` with the whole
    traceback of its ``DisallowedHost``: 30 lines of the framework's own frames for each
    probe of the internet's scanners, which says nothing the message does not.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        record.exc_info = None
        record.exc_text = None
        return True
