"""A tournament as its pages, JSON and CSV show it: its tables, and its standings.

Standings count the finished games of the tournament's places (a place still
running counts as far as it has gone). Points per game come with a 95 %
percentile-bootstrap interval over the entrant's games (``bots.stats``): the games
of a table are not quite independent (an exchange carries one game into the
next), so read the interval as a guide to how settled a standing is, not as a test.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime

from django.core.cache import cache
from django.core.paginator import Page, Paginator
from django.db.models import Count, Q

from bots.stats import bootstrap_interval
from daifugo.place import points_for
from daifugo.rules import DAIHINMIN_2011_NAME, rules_named
from places.models import PLAYERS_PER_PLACE, Entrant, Game, Place, Player, Rank, Tournament
from places.reads.lists import games_finished_by_tournament


@dataclass(frozen=True)
class Standing:
    name: str
    games: int
    points: int
    points_per_game: float | None
    low: float | None  # the 95 % interval of points per game
    high: float | None
    average_rank: float | None
    rank_counts: tuple[int, ...]

    def as_dict(self) -> dict:
        return {
            "name": self.name,
            "games": self.games,
            "points": self.points,
            "points_per_game": _round(self.points_per_game),
            "interval": [_round(self.low), _round(self.high)],
            "average_rank": _round(self.average_rank),
            "rank_counts": list(self.rank_counts),
        }


@dataclass(frozen=True)
class Table:
    """One place of the tournament: its number in the schedule, players and progress."""

    place_id: int
    no: int
    title: str
    state: str
    players: tuple[str, ...]
    games_finished: int

    def as_dict(self) -> dict:
        return {
            "place": self.place_id,
            "table": self.no,
            "title": self.title,
            "state": self.state,
            "players": list(self.players),
            "games_finished": self.games_finished,
        }


@dataclass
class TournamentView:
    id: int
    title: str
    format: str
    state: str
    game_count: int
    pace: float
    time_limit: float
    time_bank: float
    max_running: int
    rated: bool
    seed: str | None  # once the tournament is over: before, it would tell the deals to come
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    entrants: list[str] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    standings: list[Standing] = field(default_factory=list)
    rules: str = DAIHINMIN_2011_NAME
    variant: str = ""  # a uecda tournament's variant ("6reverse+11back"), "" for none

    @property
    def games_finished(self) -> int:
        return sum(t.games_finished for t in self.tables)

    @property
    def games_total(self) -> int:
        return self.game_count * len(self.tables)

    @property
    def running(self) -> list[Table]:
        return [t for t in self.tables if t.state == Place.State.RUNNING]

    def as_dict(self) -> dict:
        return {
            "id": self.id,
            "title": self.title,
            "format": self.format,
            "state": self.state,
            "games_per_table": self.game_count,
            "pace": self.pace,
            "time_limit": self.time_limit,
            "time_bank": self.time_bank,
            "max_running": self.max_running,
            "rated": self.rated,
            "rules": self.rules,
            "variant": self.variant,
            "seed": self.seed,
            "created_at": _iso(self.created_at),
            "started_at": _iso(self.started_at),
            "finished_at": _iso(self.finished_at),
            "entrants": self.entrants,
            "games_finished": self.games_finished,
            "games_total": self.games_total,
            "standings": [s.as_dict() for s in self.standings],
            "tables": [t.as_dict() for t in self.tables],
        }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def _iso(dt: datetime | None) -> str | None:
    return None if dt is None else dt.isoformat()


def tournament(tournament_id: int) -> TournamentView | None:
    """The tournament, its tables and standings; None for no such tournament."""
    t = Tournament.objects.filter(pk=tournament_id).first()
    if t is None:
        return None
    view = TournamentView(
        id=t.id,
        title=t.title,
        format=t.format,
        state=t.state,
        game_count=t.game_count,
        pace=t.pace,
        time_limit=t.time_limit,
        time_bank=t.time_bank,
        max_running=t.max_running,
        rated=t.rated,
        rules=t.rules,
        variant=t.variant,
        seed=(t.seed or None) if t.state == Tournament.State.FINISHED else None,
        created_at=t.created_at,
        started_at=t.started_at,
        finished_at=t.finished_at,
        entrants=list(
            Entrant.objects.filter(tournament=t)
            .order_by("no")
            .values_list("user__username", flat=True)
        ),
    )
    players: dict[int, list[str]] = defaultdict(list)
    for place_id, name in (
        Player.objects.filter(place__tournament=t)
        .order_by("place_id", "seat")
        .values_list("place_id", "user__username")
    ):
        players[place_id].append(name)
    places = (
        Place.objects.filter(tournament=t)
        .annotate(done=Count("games", filter=Q(games__status=Game.FINISHED)))
        .order_by("table_no")
        .values_list("id", "table_no", "title", "state", "done")
    )
    view.tables = [
        Table(pk, no, title, state, tuple(players[pk]), done)
        for pk, no, title, state, done in places
    ]
    view.standings = standings(t, view.games_finished)
    return view


def standings(t: Tournament, games_finished: int) -> list[Standing]:
    """Every entrant's standing, best points per game first.

    Kept in the cache by the number of finished games: the bootstrap costs a few
    tens of milliseconds an entrant, and nothing changes it but a game's end. (The
    creation time is in the key too: a database rolled back may give an id again.)
    """
    key = f"tournament-standings:{t.id}:{t.created_at.timestamp()}:{games_finished}"
    found = cache.get(key)
    if found is None:
        found = _standings(t.id)
        cache.set(key, found, timeout=3600)
    return found


def _standings(tournament_id: int) -> list[Standing]:
    names = dict(
        Entrant.objects.filter(tournament_id=tournament_id).values_list("user_id", "user__username")
    )
    # a game's points by the tournament's rules (uecda: 5 … 1, tndhms's)
    rules = Tournament.objects.filter(pk=tournament_id).values_list("rules", flat=True).first()
    points_of = rules_named(rules or DAIHINMIN_2011_NAME).points_for
    points: dict[int, list[int]] = {user_id: [] for user_id in names}
    ranks: dict[int, list[int]] = {user_id: [0] * PLAYERS_PER_PLACE for user_id in names}
    for user_id, rank in (
        Rank.objects.filter(game__place__tournament_id=tournament_id, game__status=Game.FINISHED)
        .order_by("game_id", "rank")
        .values_list("player__user_id", "rank")
    ):
        points[user_id].append(points_of(rank, PLAYERS_PER_PLACE))
        ranks[user_id][rank - 1] += 1
    rows = []
    for user_id, name in names.items():
        values = points[user_id]
        games = len(values)
        if games:
            interval = bootstrap_interval(values, seed=f"{tournament_id}:{name}")
            low, high, mean = interval.low, interval.high, interval.mean
            average_rank = sum(r * n for r, n in enumerate(ranks[user_id], 1)) / games
        else:
            low = high = mean = average_rank = None
        rows.append(
            Standing(name, games, sum(values), mean, low, high, average_rank, tuple(ranks[user_id]))
        )
    rows.sort(key=lambda s: (s.points_per_game is None, -(s.points_per_game or 0), s.name))
    return rows


@dataclass(frozen=True)
class TournamentSummary:
    """A tournament as the list page shows it: state, dates, games, and who leads or won."""

    id: int
    title: str
    format: str
    state: str
    entrant_count: int
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    games_finished: int
    games_total: int
    leader: str | None  # best points per game so far (as the standings sort); the winner at the end


#: Tournaments the list page shows a page.
TOURNAMENTS_PAGE_SIZE = 25


def tournaments(page: str | None = None) -> Page:
    """A page of every tournament, newest first (a bad page number gives the nearest)."""
    found = Tournament.objects.annotate(
        entrant_count=Count("entrants", distinct=True),
        table_count=Count("places", distinct=True),
    ).order_by("-id")
    tournament_page = Paginator(found, TOURNAMENTS_PAGE_SIZE).get_page(page)
    rows = list(tournament_page.object_list)
    ids = [t.id for t in rows]
    done = games_finished_by_tournament(ids)
    leaders = _leaders(ids)
    tournament_page.object_list = [
        TournamentSummary(
            id=t.id,
            title=t.title,
            format=t.format,
            state=t.state,
            entrant_count=t.entrant_count,
            created_at=t.created_at,
            started_at=t.started_at,
            finished_at=t.finished_at,
            games_finished=done.get(t.id, 0),
            games_total=t.game_count * t.table_count,
            leader=leaders.get(t.id),
        )
        for t in rows
    ]
    return tournament_page


def _leaders(ids: list[int]) -> dict[int, str]:
    """Each tournament's leader by points per game, ties by name, as :func:`standings` sorts.

    One query over the ranks of all of them; no bootstrap (that is the standings' page).
    """
    games: dict[tuple[int, str], int] = defaultdict(int)
    points: dict[tuple[int, str], int] = defaultdict(int)
    for tournament_id, name, rank, n in (
        Rank.objects.filter(game__place__tournament_id__in=ids, game__status=Game.FINISHED)
        .values_list("game__place__tournament_id", "player__user__username", "rank")
        .annotate(n=Count("id"))
        .order_by()
    ):
        games[tournament_id, name] += n
        points[tournament_id, name] += n * points_for(rank, PLAYERS_PER_PLACE)
    best: dict[int, tuple[float, str]] = {}
    for (tournament_id, name), n in games.items():
        key = (-points[tournament_id, name] / n, name)
        if tournament_id not in best or key < best[tournament_id]:
            best[tournament_id] = key
    return {tournament_id: name for tournament_id, (_, name) in best.items()}
