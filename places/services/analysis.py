"""Asking for a finished game's analysis (``docs/analysis.md``): a job any server process
takes (``places/analyst.py``), bounded per user and per client address.

Only a game whose record the asker may read is analysed (the disclosure rule:
never a game in play, never a deal held back). A user has one analysis under way
at a time and at most ``ANALYSES_PER_WINDOW`` asked for in ``ANALYSES_WINDOW``
seconds. Since anyone may sign up many accounts, one client address, whatever its
accounts, has at most ``ANALYSES_UNDER_WAY_PER_ADDRESS`` under way and
``ANALYSES_PER_ADDRESS`` asked for in the window (staff are not bounded per
address). The queue serves staff first, then games their askers played in, then
the rest, oldest first in each (``GameAnalysis.priority``). A game analysed once is
not analysed again: asking for it returns the analysis there is (a failed one is
queued again), moved up the queue if this asker comes first.
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from places import errors
from places.models import ADDRESS_LENGTH, Game, GameAnalysis, GameEntry
from places.reads.analysis import finished_game
from places.services.addresses import lock_address

UNDER_WAY = (GameAnalysis.State.QUEUED, GameAnalysis.State.RUNNING)
Priority = GameAnalysis.Priority


def priority_of(user_id: int, game: Game, *, staff: bool) -> Priority:
    """Where the asker's job goes in the queue: staff first, then a game the asker played."""
    if staff:
        return Priority.STAFF
    if GameEntry.objects.filter(game=game, user_id=user_id).exists():
        return Priority.OWN_GAME
    return Priority.OTHER


def check_recent(
    asked: QuerySet[GameAnalysis], now: datetime, limit: int, code: errors.Code, whose: str
) -> None:
    """Refuse a request past ``limit`` analyses ``asked`` for in the last ``ANALYSES_WINDOW``
    seconds (``code``, with ``Retry-After``: when the oldest of them leaves the window)."""
    window = timedelta(seconds=settings.ANALYSES_WINDOW)
    recent = list(
        asked.filter(requested_at__gt=now - window)
        .order_by("requested_at")
        .values_list("requested_at", flat=True)
    )
    if len(recent) < limit:
        return
    wait = recent[len(recent) - limit] + window - now
    raise errors.Refused(
        code,
        f"{whose} asked for {len(recent)} analyses in the last {settings.ANALYSES_WINDOW} s:"
        f" at most {limit}",
        headers={"Retry-After": str(max(1, math.ceil(wait.total_seconds())))},
    )


def check_address(address: str, now: datetime) -> None:
    """Refuse a request past what one address may have under way
    (``ADDRESS_ANALYSES_UNDER_WAY``) and ask for in the window (``TOO_MANY_ADDRESS_ANALYSES``),
    whatever its accounts. Inside the caller's transaction."""
    lock_address("analysis", address)
    asked = GameAnalysis.objects.filter(requested_from=address)
    limit = settings.ANALYSES_UNDER_WAY_PER_ADDRESS
    if asked.filter(state__in=UNDER_WAY).count() >= limit:
        raise errors.Refused(
            errors.ADDRESS_ANALYSES_UNDER_WAY,
            f"this address has {limit} analyses under way (of any of its accounts): "
            "wait for one to finish",
        )
    check_recent(
        asked, now, settings.ANALYSES_PER_ADDRESS, errors.TOO_MANY_ADDRESS_ANALYSES, "this address"
    )


def request_analysis(
    user_id: int,
    place_id: int,
    game_no: int,
    *,
    staff: bool = False,
    address: str | None = None,
) -> GameAnalysis:
    """Queue the analysis of a finished game for this user (or return the one there is).

    ``address`` is the client's (``api/throttle.py``'s ``address_of``): what it may have
    under way and ask for is bounded too (:func:`check_address`). None (not asked for
    over HTTP) is bounded per user alone.
    """
    game = finished_game(place_id, game_no, staff=staff)
    priority = priority_of(user_id, game, staff=staff)
    users = get_user_model()
    with transaction.atomic():
        # the user's row, locked: two requests of one user at once count each other
        user = users.objects.select_for_update().get(pk=user_id)
        # the game's row, locked: many users asking for one game at once make one job. A
        # lock on the analysis's row locks nothing while there is none: two requests both
        # found none, and PostgreSQL refused the second's insert (a 500).
        Game.objects.select_for_update().filter(pk=game.pk).values_list("pk").get()
        found = GameAnalysis.objects.filter(game=game).first()
        if found is not None and found.state != GameAnalysis.State.FAILED:
            if priority < found.priority:  # a job still queued moves up for this asker
                GameAnalysis.objects.filter(pk=found.pk, state=GameAnalysis.State.QUEUED).update(
                    priority=priority
                )
                found.refresh_from_db()
            return found
        mine = GameAnalysis.objects.filter(requested_by=user)
        if mine.filter(state__in=UNDER_WAY).exists():
            raise errors.Refused(
                errors.ANALYSIS_UNDER_WAY,
                f"{user.get_username()} has an analysis under way: wait for it to finish",
            )
        now = timezone.now()
        check_recent(
            mine,
            now,
            settings.ANALYSES_PER_WINDOW,
            errors.TOO_MANY_ANALYSES,
            user.get_username(),
        )
        if address is not None and not staff:
            check_address(address[:ADDRESS_LENGTH], now)
        fields = {
            "state": GameAnalysis.State.QUEUED,
            "requested_by": user,
            "requested_from": (address or "")[:ADDRESS_LENGTH],
            "priority": priority,
            "playouts": settings.ANALYSIS_PLAYOUTS,
            "worker": "",
            "lease_until": None,
            "done_decisions": 0,
            "decisions": 0,
            "result": None,
            "error": "",
            "requested_at": now,
            "finished_at": None,
        }
        if found is None:
            return GameAnalysis.objects.create(game=game, **fields)
        for name, value in fields.items():
            setattr(found, name, value)
        found.save()
        return found


def store(game: Game, playouts: int, document: dict) -> GameAnalysis:
    """Keep an analysis made outside a job (the ``analyse`` command), replacing any."""
    now = timezone.now()
    with transaction.atomic():
        analysis, _ = GameAnalysis.objects.update_or_create(
            game=game,
            defaults={
                "state": GameAnalysis.State.DONE,
                "playouts": playouts,
                "worker": "",
                "lease_until": None,
                "done_decisions": _judged(document),
                "decisions": _judged(document),
                "result": document,
                "error": "",
                "requested_at": now,
                "finished_at": now,
            },
        )
    return analysis


def _judged(document: dict) -> int:
    return sum(1 for d in document["decisions"] if "candidates" in d)
