"""A player's profile: how a user (a bot, a person, a house bot) has played.

Everything is counted over **finished games** only, of any place, running places
included: a game still being played says nothing yet, and its hands are secret.
Revolutions and 8-cuts are what the engine reads in each play's cards
(``places.engine.plays``), not a second copy of the rules.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from django.contrib.auth import get_user_model

from places.engine.cards import mask_of
from places.engine.plays import read_play
from places.engine.rules import Rules, rules_named
from places.models import PLAYERS_PER_PLACE, Game, HouseBot, Place, Player, Rank, Rating, Turn
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
    rating: Rating | None = None  # None: no rated game yet
    rating_history: list[RatingPoint] = field(default_factory=list)

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
            "rating": None
            if self.rating is None
            else {
                "mu": round(self.rating.mu, 4),
                "sigma": round(self.rating.sigma, 4),
                "ordinal": round(self.rating.ordinal, 4),
                "games": self.rating.games,
                "last_played": self.rating.last_played.isoformat(),
            },
            "rating_history": [p.as_dict() for p in self.rating_history],
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
    """The profile of the user named ``name``, or None when there is no such user."""
    user = get_user_model().objects.filter(username=name).values("id", "username").first()
    if user is None:
        return None
    house = HouseBot.objects.filter(user_id=user["id"]).values_list("strategy", flat=True).first()
    found = Profile(name=user["username"], house=house)
    found.rating = Rating.objects.filter(user_id=user["id"]).first()
    if found.rating is not None:
        found.rating_history = history(user["id"])
    seats = dict(Player.objects.filter(user_id=user["id"]).values_list("id", "place_id"))
    if not seats:
        return found
    _read_games(found, user["id"], seats)
    _read_turns(found, list(seats))
    return found


def _read_games(found: Profile, user_id: int, seats: dict[int, int]) -> None:
    """Ranks, points, places and head to head: every rank of the games the user finished."""
    rows = Rank.objects.filter(
        game__place_id__in=set(seats.values()), game__status=Game.FINISHED
    ).values_list(
        "game_id",
        "game__place_id",
        "game__place__rules",
        "player_id",
        "player__user__username",
        "rank",
    )
    by_game: dict[int, list[tuple[int, str, int]]] = defaultdict(list)
    place_of: dict[int, int] = {}
    rules_of: dict[int, Rules] = {}
    for game_id, place_id, rules, player_id, username, rank in rows:
        by_game[game_id].append((player_id, username, rank))
        place_of[game_id] = place_id
        rules_of[game_id] = rules_named(rules)
    mine = set(seats)
    per_place: Counter[int] = Counter()
    points_in: Counter[int] = Counter()
    opponents: dict[str, Opponent] = {}
    for game_id, ranks in by_game.items():
        own = next(((p, r) for p, _, r in ranks if p in mine), None)
        if own is None:
            continue
        my_rank = own[1]
        players = len(ranks)
        points_for = rules_of[game_id].points_for
        my_points = points_for(my_rank, players)
        found.games += 1
        found.points += my_points
        found.rank_counts[my_rank - 1] += 1
        per_place[place_of[game_id]] += 1
        points_in[place_of[game_id]] += my_points
        for player_id, username, rank in ranks:
            if player_id in mine:
                continue
            o = opponents.setdefault(username, Opponent(username))
            o.games += 1
            o.above += my_rank < rank
            o.points += my_points
            o.their_points += points_for(rank, players)
    found.opponents = sorted(opponents.values(), key=lambda o: (-o.games, o.name))
    places = Place.objects.filter(pk__in=set(seats.values())).order_by("-id")
    found.places = [
        PlacePlayed(p.id, p.title, p.state, per_place[p.id], points_in[p.id])
        for p in places.only("id", "title", "state")
    ]


def _read_turns(found: Profile, player_ids: list[int]) -> None:
    """Think time, passes, misses, revolutions and 8-cuts from the user's settled turns.

    Think time is over the turns the player answered (plays, passes, misses): a
    timeout is the limit, not a thought. A pass is counted against the turns that
    had cards on the table, the only ones where passing is legal.
    """
    rows = Turn.objects.filter(
        player_id__in=player_ids, game__status=Game.FINISHED, settled_at__isnull=False
    ).values_list("outcome", "reason", "cards", "table", "revolution", "opened_at", "settled_at")
    thinking: list[float] = []
    misses: Counter[str] = Counter()
    for outcome, reason, cards, table, revolution, opened_at, settled_at in rows.iterator():
        found.turns += 1
        if table:
            found.pass_chances += 1
        if outcome == Turn.Outcome.TIMEOUT:
            found.timeouts += 1
            continue
        thinking.append((settled_at - opened_at).total_seconds() * 1000)
        if outcome == Turn.Outcome.PASS:
            found.passes += 1
        elif outcome == Turn.Outcome.MISS:
            misses[reason] += 1
        elif outcome == Turn.Outcome.PLAY:
            found.plays += 1
            found.cards_played += len(cards)
            readings = read_play(mask_of(cards), revolution)
            found.revolutions += any(p.is_revolution for p in readings)
            found.eight_cuts += any(p.has_eight for p in readings)
    found.misses = dict(misses)
    if thinking:
        found.think_ms_mean = round(sum(thinking) / len(thinking), 1)
        found.think_ms_p99 = round(percentile(thinking, 99), 1)
