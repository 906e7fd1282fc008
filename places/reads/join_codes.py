"""Who may read a join code, and which seat a code opens (``places/services/uecda_seats.py``).

A code is a seat's secret: it is read here only for that seat's user and for staff,
and never by a public read (records, exports, events, results, profiles).
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass

from django.conf import settings

from places.engine.rules import UECDA_NAME
from places.models import JoinCode, Place


def code_digest(code: str) -> str:
    """What a code is looked up by: the lookup's timing says nothing of the code itself."""
    return hashlib.sha256(code.encode("utf-8", "replace")).hexdigest()


@dataclass(frozen=True)
class CodeSeat:
    """The seat a code opens: its place, its number (the client's player number), its
    user's name, and how many seats of the place wait for a client."""

    place_id: int
    seat: int
    name: str
    coded: int


def seat_of_code(code: str) -> CodeSeat | None:
    """The seat of a waiting ``uecda`` place that ``code`` opens, or None.

    Found by the code's digest, then compared in constant time.
    """
    found = (
        JoinCode.objects.filter(
            digest=code_digest(code),
            player__place__rules=UECDA_NAME,
            player__place__state=Place.State.WAITING,
        )
        .select_related("player__user")
        .first()
    )
    if found is None or not hmac.compare_digest(found.code.encode(), code.encode()):
        return None
    player = found.player
    coded = JoinCode.objects.filter(player__place_id=player.place_id).count()
    return CodeSeat(player.place_id, player.seat, player.name, coded)


def place_codes(place_id: int, user_id: int | None = None) -> list[tuple[int, str, str]]:
    """``(seat, name, code)`` of a place's coded seats (of ``user_id``'s seat alone, if
    given), by seat: for staff, or for that user."""
    codes = JoinCode.objects.filter(player__place_id=place_id)
    if user_id is not None:
        codes = codes.filter(player__user_id=user_id)
    return list(
        codes.order_by("player__seat").values_list("player__seat", "player__user__username", "code")
    )


def codes_for(place_id: int, user) -> list[tuple[int, str, str]]:
    """The join codes ``user`` may read in a place: their own seat's; staff, every seat's."""
    if not (user.is_authenticated and user.is_active):
        return []
    return place_codes(place_id, None if user.is_staff else user.pk)


@dataclass(frozen=True)
class Connect:
    """Where a seat's client connects, and the commands that do it."""

    code: str
    host: str
    port: int
    rules: str = UECDA_NAME  # the place's rules label: a variant is told to the project's client

    @property
    def client(self) -> str:
        """The stock C client's command line (UECda's ``client -h -p -n``)."""
        return f"./client -h {self.host} -p {self.port} -n {self.code}"

    @property
    def bot(self) -> str:
        """The project's own client (``bots/uecda.py``)."""
        rules = "" if self.rules == UECDA_NAME else f" --rules {self.rules}"
        return (
            f"python -m bots --transport uecda --server {self.host}:{self.port} "
            f"--join-code {self.code} --strategy greedy{rules}"
        )


def connect(code: str, request_host: str, rules: str = UECDA_NAME) -> Connect:
    """How to connect with ``code``: ``UECDA_PUBLIC_HOST`` (else the host the request came
    to, without its port) and ``UECDA_PUBLIC_PORT`` (else ``UECDA_PORT``); ``rules``: the
    place's rules label."""
    host = settings.UECDA_PUBLIC_HOST or request_host.rsplit(":", 1)[0]
    if request_host.startswith("[") and not settings.UECDA_PUBLIC_HOST:
        host = request_host.split("]", 1)[0] + "]"
    return Connect(code, host, settings.UECDA_PUBLIC_PORT or settings.UECDA_PORT, rules)
