"""Standings, rank counts and the results of a place's finished games.

Points come from the engine's state (it adds each finished game's points);
rank counts and each game's ranks from the Rank rows, read only up to the
games that state has finished, so that all of them agree.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db.models import Count

from daifugo.place import PlaceState
from places.models import PLAYERS_PER_PLACE, Game, Place, Rank
from places.reads.position import finished_games, state_of
from places.reads.seats import Seat, seats_of


def rank_counts(place_id: int, up_to_game: int) -> dict[int, list[int]]:
    """Per player id: how many of games 1…``up_to_game`` they ended 1st, 2nd, … 5th."""
    counts: dict[int, list[int]] = {}
    rows = (
        Rank.objects.filter(
            game__place_id=place_id, game__status=Game.FINISHED, game__no__lte=up_to_game
        )
        .values_list("player_id", "rank")
        .annotate(n=Count("id"))
        .order_by()
    )
    for player_id, rank, n in rows:
        if 1 <= rank <= PLAYERS_PER_PLACE:
            counts.setdefault(player_id, [0] * PLAYERS_PER_PLACE)[rank - 1] = n
    return counts


@dataclass(frozen=True)
class Standing:
    position: int  # 1 best; tied players share a position
    seat: int
    name: str
    points: int
    #: How many finished games the player ended 1st, 2nd, … 5th.
    rank_counts: list[int] = field(default_factory=list)

    @property
    def games(self) -> int:
        return sum(self.rank_counts)

    @property
    def average_rank(self) -> float | None:
        played = self.games
        return sum(r * c for r, c in enumerate(self.rank_counts, 1)) / played if played else None

    def as_dict(self) -> dict:
        return {
            "position": self.position,
            "seat": self.seat,
            "name": self.name,
            "points": self.points,
            "rank_counts": self.rank_counts,
        }


def points(state: PlaceState | None, players: int) -> list[int]:
    """Points per seat of the finished games."""
    return list(state.points) if state is not None else [0] * players


def _standings(
    seats: tuple[Seat, ...], pts: list[int], counts: dict[int, list[int]]
) -> list[Standing]:
    """Players best first: most points; ties in seat order, sharing a position."""
    out: list[Standing] = []
    for i, s in enumerate(sorted(seats, key=lambda s: (-pts[s.no], s.no))):
        tied = out and out[-1].points == pts[s.no]
        out.append(
            Standing(
                out[-1].position if tied else i + 1,
                s.no,
                s.name,
                pts[s.no],
                counts.get(s.player_id, [0] * PLAYERS_PER_PLACE),
            )
        )
    return out


@dataclass
class Results:
    """A place's finished games: each game's ranks by seat, and the standings."""

    place: Place
    seats: tuple[Seat, ...]
    state: PlaceState | None
    games: list[tuple[int, list[int | None]]]  # (game no, rank per seat)
    points: list[int]  # per seat
    counts: list[list[int]]  # per seat: games ended 1st … 5th
    standings: list[Standing]


def standings(place: Place) -> list[Standing]:
    """The standings of the place's finished games."""
    state = state_of(place)
    seats = seats_of(place.id)
    counts = rank_counts(place.id, finished_games(state))
    return _standings(seats, points(state, len(seats)), counts)


def results(place: Place) -> Results:
    """Every finished game's ranks, the points, the rank counts and the standings."""
    state = state_of(place)
    done = finished_games(state)
    seats = seats_of(place.id)
    seat_of = {s.player_id: s.no for s in seats}
    by_game: dict[int, list[int | None]] = {}
    rows = (
        Rank.objects.filter(game__place=place, game__status=Game.FINISHED, game__no__lte=done)
        .values_list("game__no", "player_id", "rank")
        .order_by("game__no")
    )
    for no, player_id, rank in rows:
        ranks = by_game.setdefault(no, [None] * len(seats))
        if player_id in seat_of:
            ranks[seat_of[player_id]] = rank
    counts = rank_counts(place.id, done)
    pts = points(state, len(seats))
    return Results(
        place=place,
        seats=seats,
        state=state,
        games=sorted(by_game.items()),
        points=pts,
        counts=[counts.get(s.player_id, [0] * PLAYERS_PER_PLACE) for s in seats],
        standings=_standings(seats, pts, counts),
    )


def status(place: Place) -> dict:
    """Where a place stands (``place_status``): its state, the game being played, standings."""
    state = state_of(place)
    return {
        "place": place.id,
        "title": place.title,
        "state": place.state,
        "rules": place.rules,
        "game_no": state.game_no if state else 0,
        "game_count": place.game_count,
        "games_played": finished_games(state),
        "pace": place.pace,
        "time_limit": place.time_limit,
        "standings": [s.as_dict() for s in standings(place)],
    }
