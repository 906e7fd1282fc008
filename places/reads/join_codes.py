"""Who may read a join code, and which seat a code opens (``places/services/uecda_seats.py``).

A code is a seat's secret (a :class:`~places.models.JoinCode`), or a ``uecda`` tournament
entrant's (an :class:`~places.models.EntrantCode`, which opens the entrant's tables one
after the other). It is read here only for its user and for staff, and never by a public
read (records, exports, events, results, profiles, the tournament's JSON).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Collection
from dataclasses import dataclass

from django.conf import settings
from django.db.models import QuerySet

from daifugo.rules import UECDA_NAME
from places.models import ENDED, Entrant, EntrantCode, JoinCode, Place, Player, Tournament


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


@dataclass(frozen=True)
class NoSeatNow:
    """A tournament entrant's right code that opens no seat now, and why (for the log):
    the tournament has not started, the entrant's table is being played, or it has no
    table left. Not a wrong guess: its address is not held back for it."""

    why: str


def _found(codes: QuerySet, code: str) -> JoinCode | EntrantCode | None:
    """The code's row among ``codes``, found by the code's digest, then compared in
    constant time; None when it is not there."""
    found = codes.filter(digest=code_digest(code)).first()
    if found is None or not hmac.compare_digest(found.code.encode(), code.encode()):
        return None
    return found


def client_seats(place_id: int) -> int:
    """How many seats of a ``uecda`` place wait for a client: those no house bot plays."""
    return Player.objects.filter(place_id=place_id, user__house_bot__isnull=True).count()


def seat_of_code(code: str) -> CodeSeat | NoSeatNow | None:
    """The seat ``code`` opens now, :class:`NoSeatNow` for an entrant's code that opens
    none now, or None (no such code, or the code of a seat of a place that waits no more).

    A seat's code opens its seat while its place waits. An entrant's code opens the
    entrant's seat at its first table not over, in table order, once the tournament has
    started, if that table waits; one being played is the entrant's already. The code of
    a disabled account opens nothing (:class:`NoSeatNow`), as its sessions and tokens do:
    every way to the port asks here.
    """
    found = _found(
        JoinCode.objects.filter(
            player__place__rules=UECDA_NAME, player__place__state=Place.State.WAITING
        ).select_related("player__user"),
        code,
    )
    if found is not None:
        player = found.player
        if not player.user.is_active:
            return _disabled(player.name)
        return CodeSeat(player.place_id, player.seat, player.name, client_seats(player.place_id))
    entry = _found(EntrantCode.objects.select_related("entrant__tournament", "entrant__user"), code)
    return None if entry is None else _entrant_seat(entry.entrant)


def _disabled(name: str) -> NoSeatNow:
    return NoSeatNow(f"{name}'s account is disabled")


def _entrant_seat(entrant: Entrant) -> CodeSeat | NoSeatNow:
    tournament = entrant.tournament
    name = entrant.user.get_username()
    if not entrant.user.is_active:
        return _disabled(name)
    if tournament.state == Tournament.State.WAITING:
        return NoSeatNow(f"tournament {tournament.id} has not started")
    player = (
        Player.objects.filter(
            place__tournament=tournament,
            user_id=entrant.user_id,
            place__state__in=[Place.State.WAITING, Place.State.RUNNING],
        )
        .select_related("place")
        .order_by("place__table_no")
        .first()
    )
    if player is None:
        return NoSeatNow(f"{name} has no table left in tournament {tournament.id}")
    place = player.place
    if place.state == Place.State.RUNNING:
        return NoSeatNow(
            f"{name}'s table {place.table_no + 1} of tournament {tournament.id} "
            f"(place {place.id}) is being played"
        )
    return CodeSeat(place.id, player.seat, name, client_seats(place.id))


def place_codes(place_id: int, user_id: int | None = None) -> list[tuple[int, str, str]]:
    """``(seat, name, code)`` of a place's coded seats (of ``user_id``'s seat alone, if
    given), by seat: for staff, or for that user. A tournament's tables have none: their
    entrants' codes are the tournament's (:func:`tournament_codes`)."""
    codes = JoinCode.objects.filter(player__place_id=place_id)
    if user_id is not None:
        codes = codes.filter(player__user_id=user_id)
    return list(
        codes.order_by("player__seat").values_list("player__seat", "player__user__username", "code")
    )


def tournament_codes(tournament_id: int, user_id: int | None = None) -> list[tuple[int, str, str]]:
    """``(entrant number, name, code)`` of a ``uecda`` tournament's entrants that play by
    a client (of ``user_id`` alone, if given), by number: for staff, or for that user."""
    codes = EntrantCode.objects.filter(entrant__tournament_id=tournament_id)
    if user_id is not None:
        codes = codes.filter(entrant__user_id=user_id)
    return list(
        codes.order_by("entrant__no").values_list("entrant__no", "entrant__user__username", "code")
    )


def _own_or_all(user) -> int | None:
    """Whose codes a signed-in, active ``user`` reads: every one (None) for staff, else
    their own (their id)."""
    return None if user.is_staff else user.pk


def _may_read(user) -> bool:
    return user.is_authenticated and user.is_active


def codes_for(place_id: int, user) -> list[tuple[int, str, str]]:
    """The join codes ``user`` may read in a place: their own seat's; staff, every seat's."""
    return place_codes(place_id, _own_or_all(user)) if _may_read(user) else []


def tournament_codes_for(tournament_id: int, user) -> list[tuple[int, str, str]]:
    """The entrant codes ``user`` may read in a tournament: their own; staff, every one."""
    return tournament_codes(tournament_id, _own_or_all(user)) if _may_read(user) else []


@dataclass(frozen=True)
class Connect:
    """Where a seat's client connects, and the commands that do it."""

    code: str
    host: str
    port: int
    #: An entrant's code: the client connects again after each table, until it is refused.
    tables: bool = False
    rules: str = UECDA_NAME  # the place's rules label: a variant is told to the project's client

    @property
    def client(self) -> str:
        """The stock C client's command line (UECda's ``client -h -p -n``): it ends after
        a match (status 0) and when it gets no seat (status 1), so a loop plays the tables."""
        once = f"./client -h {self.host} -p {self.port} -n {self.code}"
        return f"while {once}; do :; done" if self.tables else once

    @property
    def bot(self) -> str:
        """The project's own client (``bots/uecda.py``)."""
        rules = "" if self.rules == UECDA_NAME else f" --rules {self.rules}"
        return (
            f"python -m bots --transport uecda --server {self.host}:{self.port} "
            f"--join-code {self.code} --strategy greedy{rules}"
            + (" --rejoin" if self.tables else "")
        )


def connect(code: str, request_host: str, tables: bool = False, rules: str = UECDA_NAME) -> Connect:
    """How to connect with ``code``: ``UECDA_PUBLIC_HOST`` (else the host the request came
    to, without its port) and ``UECDA_PUBLIC_PORT`` (else ``UECDA_PORT``); ``tables``: an
    entrant's code, played table after table; ``rules``: the place's rules label."""
    host = settings.UECDA_PUBLIC_HOST or request_host.rsplit(":", 1)[0]
    if request_host.startswith("[") and not settings.UECDA_PUBLIC_HOST:
        host = request_host.split("]", 1)[0] + "]"
    port = settings.UECDA_PUBLIC_PORT or settings.UECDA_PORT
    return Connect(code, host, port, tables, rules)


def ended_among(place_ids: Collection[int]) -> list[int]:
    """Those of ``place_ids`` that are over (finished, aborted): the shared UECda port
    learns so of a waiting place stopped by another process, whose ``end_place`` reaches
    it only through Redis (:mod:`places.uecda.shared`)."""
    return list(
        Place.objects.filter(pk__in=place_ids, state__in=ENDED).values_list("id", flat=True)
    )
