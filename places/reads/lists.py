"""The home page's lists: running, waiting and the latest finished places."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db.models import Prefetch

from places.models import ENDED, Place, Player
from places.reads.position import state_of

#: The home page lists this many finished places (newest first); the admin has them all.
FINISHED_SHOWN = 30


@dataclass
class PlaceRow:
    id: int
    title: str
    state: str
    players: list[str]
    game_no: int
    game_count: int
    pace: float | None
    leader: str = ""
    leader_points: int = 0


@dataclass
class HomeLists:
    running: list[PlaceRow] = field(default_factory=list)
    waiting: list[PlaceRow] = field(default_factory=list)
    finished: list[PlaceRow] = field(default_factory=list)
    finished_total: int = 0


def home_lists() -> HomeLists:
    """Running, waiting and (the latest) finished places, newest first."""
    players = Prefetch("players", queryset=Player.objects.select_related("user").order_by("seat"))
    base = Place.objects.prefetch_related(players).order_by("-id")
    out = HomeLists()
    out.running = [_row(p) for p in base.filter(state=Place.State.RUNNING)]
    out.waiting = [_row(p) for p in base.filter(state=Place.State.WAITING)]
    finished = base.filter(state__in=ENDED)  # aborted ones too
    out.finished_total = finished.count()
    out.finished = [_row(p) for p in finished[:FINISHED_SHOWN]]
    return out


def _row(place: Place) -> PlaceRow:
    state = state_of(place)
    names = [p.name for p in place.players.all()]
    row = PlaceRow(
        id=place.id,
        title=place.title,
        state=place.state,
        players=names,
        game_no=state.game_no if state else 0,
        game_count=place.game_count,
        pace=place.pace,
    )
    if state is not None and any(state.points) and len(names) == len(state.points):
        best = max(range(len(names)), key=lambda s: (state.points[s], -s))
        row.leader, row.leader_points = names[best], state.points[best]
    return row
