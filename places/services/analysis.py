"""Asking for a finished game's analysis (``docs/analysis.md``): a job any server process
takes (``places/analyst.py``), bounded per user.

Only a game whose record the asker may read is analysed (the disclosure rule:
never a game in play, never a deal held back); a user has one analysis under way
at a time and at most ``ANALYSES_PER_WINDOW`` asked for in ``ANALYSES_WINDOW``
seconds. A game analysed once is not analysed again: asking for it returns the
analysis there is (a failed one is queued again).
"""

from __future__ import annotations

import math
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from places import errors
from places.models import Game, GameAnalysis
from places.reads.records import place_head

UNDER_WAY = (GameAnalysis.State.QUEUED, GameAnalysis.State.RUNNING)


def finished_game(place_id: int, game_no: int, *, staff: bool = False) -> Game:
    """The finished game whose record this reader may read, or the refusal the record
    route gives (``NOT_FOUND``, ``HELD_BACK``)."""
    head = place_head(place_id, staff=staff)
    if head is not None and head.played >= game_no > head.finished:
        raise errors.Refused(
            errors.HELD_BACK,
            f"game {game_no} of place {head.id} is held back until every place dealing "
            "its cards has played it",
        )
    game = None
    if head is not None and 1 <= game_no <= head.finished:
        game = Game.objects.filter(place_id=place_id, no=game_no, status=Game.FINISHED).first()
    if game is None:
        raise errors.Refused(errors.NOT_FOUND, f"no finished game {game_no} in place {place_id}")
    return game


def request_analysis(
    user_id: int, place_id: int, game_no: int, *, staff: bool = False
) -> GameAnalysis:
    """Queue the analysis of a finished game for this user (or return the one there is)."""
    game = finished_game(place_id, game_no, staff=staff)
    users = get_user_model()
    with transaction.atomic():
        # the user's row, locked: two requests at once count each other
        user = users.objects.select_for_update().get(pk=user_id)
        found = GameAnalysis.objects.select_for_update().filter(game=game).first()
        if found is not None and found.state != GameAnalysis.State.FAILED:
            return found
        mine = GameAnalysis.objects.filter(requested_by=user)
        if mine.filter(state__in=UNDER_WAY).exists():
            raise errors.Refused(
                errors.ANALYSIS_UNDER_WAY,
                f"{user.get_username()} has an analysis under way: wait for it to finish",
            )
        now = timezone.now()
        window = timedelta(seconds=settings.ANALYSES_WINDOW)
        recent = list(
            mine.filter(requested_at__gt=now - window)
            .order_by("requested_at")
            .values_list("requested_at", flat=True)
        )
        limit = settings.ANALYSES_PER_WINDOW
        if len(recent) >= limit:
            wait = recent[len(recent) - limit] + window - now
            raise errors.Refused(
                errors.TOO_MANY_ANALYSES,
                f"{user.get_username()} asked for {len(recent)} analyses in the last"
                f" {settings.ANALYSES_WINDOW} s: at most {limit}",
                headers={"Retry-After": str(max(1, math.ceil(wait.total_seconds())))},
            )
        fields = {
            "state": GameAnalysis.State.QUEUED,
            "requested_by": user,
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
