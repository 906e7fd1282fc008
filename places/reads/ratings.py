"""The ratings as the leaderboard, ``/ratings.json`` and the profiles show them: one
leaderboard and one history per rule book."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import F

from places.models import Rating, RatingChange


@dataclass(frozen=True)
class RatingRow:
    rank: int
    name: str
    mu: float
    sigma: float
    ordinal: float
    games: int
    last_played: datetime

    def as_dict(self) -> dict:
        return {
            "rank": self.rank,
            "name": self.name,
            "mu": round(self.mu, 4),
            "sigma": round(self.sigma, 4),
            "ordinal": round(self.ordinal, 4),
            "games": self.games,
            "last_played": self.last_played.isoformat(),
        }


def leaderboard(rules: str) -> list[RatingRow]:
    """Every user rated in ``rules``, by the ordinal μ − 3σ (best first), then by name."""
    rows = (
        Rating.objects.filter(rules=rules)
        .annotate(ordinal_value=F("mu") - 3 * F("sigma"))
        .order_by("-ordinal_value", "user__username")
        .values_list("user__username", "mu", "sigma", "games", "last_played")
    )
    return [
        RatingRow(rank, name, mu, sigma, mu - 3 * sigma, games, last)
        for rank, (name, mu, sigma, games, last) in enumerate(rows, 1)
    ]


@dataclass(frozen=True)
class RatingPoint:
    """A user's rating after one rated game."""

    at: datetime
    place_id: int
    game_no: int
    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma

    def as_dict(self) -> dict:
        return {
            "at": self.at.isoformat(),
            "place": self.place_id,
            "game": self.game_no,
            "mu": round(self.mu, 4),
            "sigma": round(self.sigma, 4),
            "ordinal": round(self.ordinal, 4),
        }


def history(user_id: int, rules: str) -> list[RatingPoint]:
    """The user's rating in ``rules`` after each rated game, oldest first."""
    return [
        RatingPoint(at, place_id, no, mu, sigma)
        for at, place_id, no, mu, sigma in RatingChange.objects.filter(
            user_id=user_id, game__place__rules=rules
        )
        .order_by("id")
        .values_list("created_at", "game__place_id", "game__no", "mu", "sigma")
    ]
