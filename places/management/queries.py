"""Read-only views of a place for staff: standings, the table, every hand.

Shared by the management commands, the admin and the staff endpoints. Nothing
here changes a place (that is ``places.services``); everything reads the
place's ``engine_state``, the authoritative position, and the record rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db.models import Count

from places.engine.cards import format_card, sorted_ids
from places.engine.place import PlaceState
from places.models import PLAYERS_PER_PLACE, Game, Place, Player, Rank


def engine_state(place: Place) -> PlaceState | None:
    """The engine's state of a place; None before it started."""
    data = place.engine_state or {}
    return PlaceState.from_dict(data["place"]) if data.get("place") else None


def seated(place: Place) -> list[Player]:
    """The players in seat order, read fresh (no cache: a waiting place may be re-seated)."""
    return list(Player.objects.filter(place=place).select_related("user").order_by("seat"))


def points(place: Place, state: PlaceState | None = None) -> list[int]:
    """Points per seat so far (finished games only, as the engine adds them)."""
    state = state if state is not None else engine_state(place)
    if state is None:
        return [0] * PLAYERS_PER_PLACE
    return list(state.points)


def games_played(place: Place) -> int:
    return place.games.filter(status=Game.FINISHED).count()


@dataclass
class Standing:
    position: int  # 1 best; tied players share a position
    seat: int
    name: str
    points: int
    #: How many finished games the player ended 1st, 2nd, … 5th.
    rank_counts: list[int] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {
            "position": self.position,
            "seat": self.seat,
            "name": self.name,
            "points": self.points,
            "rank_counts": self.rank_counts,
        }


def standings(place: Place, state: PlaceState | None = None) -> list[Standing]:
    """Players best first (most points; ties in seat order, sharing a position)."""
    players = seated(place)
    pts = points(place, state)
    counts = {p.id: [0] * PLAYERS_PER_PLACE for p in players}
    rows = (
        Rank.objects.filter(game__place=place, game__status=Game.FINISHED)
        .values_list("player_id", "rank")
        .annotate(n=Count("id"))
    )
    for player_id, rank, n in rows:
        if player_id in counts and 1 <= rank <= PLAYERS_PER_PLACE:
            counts[player_id][rank - 1] = n
    order = sorted(players, key=lambda p: (-pts[p.seat], p.seat))
    out: list[Standing] = []
    for i, p in enumerate(order):
        tied = out and out[-1].points == pts[p.seat]
        position = out[-1].position if tied else i + 1
        out.append(Standing(position, p.seat, p.name, pts[p.seat], counts[p.id]))
    return out


def status(place: Place) -> dict:
    """What ``place_status`` prints: the state, the game being played, the standings."""
    state = engine_state(place)
    return {
        "place": place.id,
        "title": place.title,
        "state": place.state,
        "game_no": state.game_no if state else 0,
        "game_count": place.game_count,
        "games_played": games_played(place),
        "pace": place.pace,
        "time_limit": place.time_limit,
        "standings": [s.as_dict() for s in standings(place, state)],
    }


def table_ids(state: PlaceState | None) -> list[int]:
    """Card ids on the table of the game being played, weakest first."""
    if state is None or state.game is None or state.game.table is None:
        return []
    return sorted_ids(state.game.table.mask)


def hand_ids(state: PlaceState | None) -> list[list[int]]:
    """Every seat's cards now, weakest first (empty lists before the first deal)."""
    if state is None or state.game is None:
        return [[] for _ in range(PLAYERS_PER_PLACE)]
    return [sorted_ids(h) for h in state.game.hands]


def written(ids: list[int]) -> str:
    """Card ids as players write them: ``"1-3 2-3 joker"``."""
    return " ".join(format_card(c) for c in ids)
