"""A player's profile: how a user (a bot, a person, a house bot) has played.

Everything is counted over **finished games** only, of any place, running places
included: a game still being played says nothing yet, and its hands are secret.
Revolutions and 8-cuts are what the engine reads in each play's cards
(``daifugo.plays``), not a second copy of the rules. Each game is added up as it
ends (``places/services/profiles.py``); a profile reads the sums.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from django.contrib.auth import get_user_model
from django.db.models import Count

from bots.stats import mean_interval
from daifugo.rules import DAIHINMIN_2011_NAME, PROFILES, rules_named
from places.models import (
    PLAYERS_PER_PLACE,
    Game,
    HouseBot,
    Player,
    ProfileOpponent,
    ProfileThink,
    ProfileTotals,
    Rank,
    Rating,
)
from places.reads.ratings import RatingPoint, history


@dataclass(frozen=True)
class PlacePlayed:
    id: int
    title: str
    state: str
    games: int  # finished games the user played in it
    points: int


@dataclass
class Opponent:
    """Head to head: the games two users played together."""

    name: str
    games: int = 0
    above: int = 0  # games this user finished above the opponent
    points: int = 0  # this user's points in those games
    their_points: int = 0

    def as_dict(self) -> dict:
        return {
            "name": self.name,
            "games": self.games,
            "above": self.above,
            "points_per_game": _ratio(self.points, self.games),
            "their_points_per_game": _ratio(self.their_points, self.games),
        }


@dataclass(frozen=True)
class VersionResult:
    """A bot version's finished games (``Player.version``: the label of the token its seats
    posted with; "" for seats that never did): points per game and their 95 % interval."""

    version: str
    games: int
    points: int
    rank_counts: list[int]
    low: float | None
    high: float | None

    @property
    def points_per_game(self) -> float | None:
        return _ratio(self.points, self.games)

    def as_dict(self) -> dict:
        return {
            "version": self.version,
            "games": self.games,
            "points_per_game": self.points_per_game,
            "interval": [_round(self.low), _round(self.high)],
            "rank_counts": self.rank_counts,
        }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


@dataclass(frozen=True)
class BookRating:
    """A player's rating in one rule book, and its history."""

    rules: str
    rating: Rating
    history: list[RatingPoint]

    def as_dict(self, history: bool = True) -> dict:
        found = {
            "mu": round(self.rating.mu, 4),
            "sigma": round(self.rating.sigma, 4),
            "ordinal": round(self.rating.ordinal, 4),
            "games": self.rating.games,
            "last_played": self.rating.last_played.isoformat(),
        }
        if history:
            found["history"] = [p.as_dict() for p in self.history]
        return found


@dataclass
class Profile:
    name: str
    house: str | None  # the strategy the server plays for a house bot
    places: list[PlacePlayed] = field(default_factory=list)
    games: int = 0
    points: int = 0
    rank_counts: list[int] = field(default_factory=lambda: [0] * PLAYERS_PER_PLACE)
    turns: int = 0  # settled turns of finished games
    plays: int = 0
    cards_played: int = 0
    passes: int = 0
    pass_chances: int = 0  # turns with cards on the table: the only ones a pass is legal on
    timeouts: int = 0
    misses: dict[str, int] = field(default_factory=dict)  # by reason, timeouts apart
    revolutions: int = 0
    eight_cuts: int = 0
    think_ms_mean: float | None = None
    think_ms_p99: float | None = None
    opponents: list[Opponent] = field(default_factory=list)
    #: A rating for each rule book it played rated games in, in the books' order.
    ratings: list[BookRating] = field(default_factory=list)
    versions: list[VersionResult] = field(default_factory=list)

    @property
    def points_per_game(self) -> float | None:
        return _ratio(self.points, self.games)

    @property
    def pass_rate(self) -> float | None:
        return _ratio(self.passes, self.pass_chances)

    @property
    def cards_per_play(self) -> float | None:
        return _ratio(self.cards_played, self.plays)

    def as_dict(self) -> dict:
        """``/users/NAME.json`` (docs/protocol.md, "Profiles")."""
        book_2011 = next((b for b in self.ratings if b.rules == DAIHINMIN_2011_NAME), None)
        return {
            "name": self.name,
            "house": self.house,
            "games": self.games,
            "points": self.points,
            "points_per_game": self.points_per_game,
            "rank_counts": self.rank_counts,
            "turns": self.turns,
            "think_ms": {"mean": self.think_ms_mean, "p99": self.think_ms_p99},
            "plays": self.plays,
            "cards_per_play": self.cards_per_play,
            "passes": self.passes,
            "pass_rate": self.pass_rate,
            "timeouts": self.timeouts,
            "misses": dict(sorted(self.misses.items())),
            "revolutions": self.revolutions,
            "eight_cuts": self.eight_cuts,
            "places": [
                {
                    "id": p.id,
                    "title": p.title,
                    "state": p.state,
                    "games": p.games,
                    "points": p.points,
                }
                for p in self.places
            ],
            "opponents": [o.as_dict() for o in self.opponents],
            # the 2011 book's, as before there was a rating per book
            "rating": None if book_2011 is None else book_2011.as_dict(history=False),
            "rating_history": [] if book_2011 is None else [p.as_dict() for p in book_2011.history],
            "ratings": {b.rules: b.as_dict() for b in self.ratings},
            "versions": [v.as_dict() for v in self.versions],
        }


def _ratio(a: float, b: float) -> float | None:
    return round(a / b, 4) if b else None


def percentile(values: list[float], q: float) -> float | None:
    """The nearest-rank percentile (``q`` in 0…100) of ``values``; None when empty."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


def profile(name: str) -> Profile | None:
    """The profile of the player named ``name``: None when there is no such user, or the
    user never had a seat in a place (staff, a new account), so that the users who are
    not players cannot be told from names nobody has.

    It reads the aggregates each finished game adds to (``places/services/profiles.py``),
    not the games: the same few queries at ten games or a hundred thousand. Only the lists
    the document holds grow: a row per place played, per opponent, per rated game.
    """
    user = get_user_model().objects.filter(username=name).values("id", "username").first()
    if user is None:
        return None
    user_id = user["id"]
    places = [
        PlacePlayed(*row)
        for row in Player.objects.filter(user_id=user_id)
        .order_by("-place_id")
        .values_list("place_id", "place__title", "place__state", "games", "points")
    ]
    if not places:
        return None
    house = HouseBot.objects.filter(user_id=user_id).values_list("strategy", flat=True).first()
    found = Profile(name=user["username"], house=house)
    held = {r.rules: r for r in Rating.objects.filter(user_id=user_id)}
    found.ratings = [
        BookRating(rules, held[rules], history(user_id, rules))
        for rules in PROFILES
        if rules in held
    ]
    found.places = places
    found.versions = versions(user_id)
    totals = ProfileTotals.objects.filter(user_id=user_id).first()
    if totals is None:
        return found
    for name in COUNTED:
        setattr(found, name, getattr(totals, name))
    found.rank_counts = list(totals.rank_counts)
    found.misses = dict(totals.misses)
    found.opponents = sorted(
        (
            Opponent(*row)
            for row in ProfileOpponent.objects.filter(user_id=user_id).values_list(
                "opponent__username", "games", "above", "points", "their_points"
            )
        ),
        key=lambda o: (-o.games, o.name),
    )
    if totals.answered:
        found.think_ms_mean = round(totals.think_us / 1000 / totals.answered, 1)
        found.think_ms_p99 = _think_percentile(user_id, totals.answered, 99)
    return found


#: The figures a profile takes as they are from its totals.
COUNTED = (
    "games",
    "points",
    "turns",
    "plays",
    "cards_played",
    "passes",
    "pass_chances",
    "timeouts",
    "revolutions",
    "eight_cuts",
)
#: Think-time counts read at a time, from the longest down.
THINK_PAGE = 200


def _think_percentile(user_id: int, answered: int, q: float) -> float:
    """The nearest-rank percentile (:func:`percentile`) of the user's think times, from
    their counts by tenth of a millisecond: read from the longest down, so the 99th reads
    the top 1 % of the distinct times, not all of them."""
    from_top = answered - max(0, math.ceil(q / 100 * answered) - 1)  # its place, 1 the longest
    seen = 0
    below = None
    while True:
        counts = ProfileThink.objects.filter(user_id=user_id).order_by("-tenths")
        if below is not None:
            counts = counts.filter(tenths__lt=below)
        page = list(counts.values_list("tenths", "turns")[:THINK_PAGE])
        for tenths, turns in page:
            seen += turns
            if seen >= from_top:
                return tenths / 10
        if len(page) < THINK_PAGE:
            raise AssertionError(f"think-time counts of user {user_id} short of {answered}")
        below = page[-1][0]


def versions(user_id: int) -> list[VersionResult]:
    """The user's finished games split by bot version (``Player.version``), each with its
    points per game and their 95 % interval (``bots.stats.mean_interval``, the normal one:
    a game's points are its rank's, so the counts of each rank are all it needs), the
    versions by name, "" (no token) first. Empty when no seat ever posted with a token.

    Unlike the rest of the profile it reads the user's Rank rows (one grouped query), and
    only for a user with a versioned seat: the others pay one indexed look."""
    if not Player.objects.filter(user_id=user_id).exclude(version="").exists():
        return []
    counted = (
        Rank.objects.filter(player__user_id=user_id, game__status=Game.FINISHED)
        .values_list("player__version", "player__place__rules", "rank")
        .annotate(n=Count("id"))
    )
    by_version: dict[str, list[tuple[str, int, int]]] = {}
    for version, rules, rank, n in counted:
        by_version.setdefault(version, []).append((rules, rank, n))
    found = []
    for version in sorted(by_version):
        values: list[float] = []
        ranks = [0] * PLAYERS_PER_PLACE
        for rules, rank, n in by_version[version]:
            values += [rules_named(rules).points_for(rank, PLAYERS_PER_PLACE)] * n
            ranks[rank - 1] += n
        interval = mean_interval(values)
        width = len(values) > 1
        found.append(
            VersionResult(
                version, len(values), int(sum(values)), ranks,
                interval.low if width else None, interval.high if width else None,
            )
        )  # fmt: skip
    return found
