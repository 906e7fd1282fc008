"""The game search (``/games``, ``/games.json``): finished games by player, opponent, rules,
place, tournament, time, the player's rank, and what happened in them (``has=``).

It reads the index written as each game ends (``GameEntry``, ``GameFact``:
``places/services/game_index.py``), newest game first, a page at a time by a cursor
(``before``: the last game of the page before), so that a page costs the same at a
million games. A game still held back (``places.reads.disclosure``) is found by staff
only: the candidates of a place whose seed another place shares are checked against its
disclosure, and the search reads on until the page is full.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, time

from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import Count
from django.urls import reverse
from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime

from daifugo import facts
from daifugo.numbers import whole
from daifugo.plays import Miss
from daifugo.rules import DAIHINMIN_2011_NAME, PROFILES
from places import errors
from places.models import GameEntry, GameFact, Place, Player
from places.reads.disclosure import disclosure

#: Games a page lists unless ``limit`` says otherwise, and at most.
PAGE_SIZE = 50
MAX_PAGE_SIZE = 200
#: The miss codes ``miss=`` takes: the 2011 misses (a timeout is ``has=timeout``), and a
#: ``uecda`` game's rejected table.
MISS_CODES = tuple(c for c in Miss.ALL if c != Miss.TIMEOUT) + (facts.REJECTED,)
#: Every parameter the search reads; any other is refused.
PARAMETERS = (
    "player", "version", "opponent", "rules", "place", "tournament", "since", "until", "rank",
    "has", "miss", "before", "limit",
)  # fmt: skip
#: A version is an API token's label (``ApiToken.label``): at most this long.
VERSION_MAX_LENGTH = Player._meta.get_field("version").max_length
#: The largest id a path or parameter takes (the database's integers).
MAX_ID = 10**18
#: Where the cursor's condition goes in a candidates' query.
BEFORE = "/*before*/"


@dataclass(frozen=True)
class GameQuery:
    """A search, its values checked (:func:`parse_query`)."""

    player: str | None = None
    #: The player's bot version: the label of the token its seats played with.
    version: str | None = None
    opponent: str | None = None
    rules: str | None = None
    place: int | None = None
    tournament: int | None = None
    since: datetime | None = None
    until: datetime | None = None
    rank: int | None = None
    has: str | None = None
    miss: str | None = None
    before: int | None = None
    limit: int = PAGE_SIZE

    def params(self, **changed: object) -> dict[str, str]:
        """The query string's parameters of this search (with ``changed``), as given."""
        values = {**self.__dict__, **changed}
        out = {}
        for name in PARAMETERS:
            value = values[name]
            if value is None or (name == "limit" and value == PAGE_SIZE):
                continue
            out[name] = value.isoformat() if isinstance(value, datetime) else str(value)
        return out


def _refused(name: str, why: str) -> errors.Refused:
    return errors.Refused(errors.INVALID_PARAMETER, f"{name}: {why}")


def rules_parameter(value: str | None) -> str | None:
    """A ``rules`` query parameter (the search's, a leaderboard's): a profile's name, or
    None when not given; ``INVALID_PARAMETER`` for another."""
    if value is not None and value not in PROFILES:
        raise _refused("rules", "one of " + ", ".join(PROFILES))
    return value


def _whole(params: Mapping[str, str], name: str, low: int, high: int) -> int | None:
    text = params.get(name) or ""
    if not text:
        return None
    value = whole(text, high, low)
    if value is None:
        raise _refused(name, f"a whole number from {low} to {high}")
    return value


def _moment(params: Mapping[str, str], name: str) -> datetime | None:
    text = params.get(name) or ""
    if not text:
        return None
    try:
        moment = parse_datetime(text)
        if moment is None:
            day = parse_date(text)
            moment = None if day is None else datetime.combine(day, time())
    except ValueError:
        moment = None
    if moment is None:
        raise _refused(name, "a date (2026-11-28) or a time (2026-11-28T09:30:00Z)")
    return timezone.make_aware(moment) if timezone.is_naive(moment) else moment


def parse_query(params: Mapping[str, str]) -> GameQuery:
    """The search a query string asks for; ``INVALID_PARAMETER`` naming the first parameter
    that is unknown or has no valid value. Empty values are left out (a form's blanks)."""
    for name in params:
        if name not in PARAMETERS:
            raise _refused(name, "no such parameter; the search takes " + ", ".join(PARAMETERS))
    rules = rules_parameter(params.get("rules") or None)
    has = params.get("has") or None
    if has is not None and has not in facts.KINDS:
        raise _refused("has", "one of " + ", ".join(facts.KINDS))
    miss = params.get("miss") or None
    if miss is not None:
        if miss not in MISS_CODES:
            raise _refused("miss", "one of " + ", ".join(MISS_CODES))
        if has not in (None, facts.MISS):
            raise _refused("miss", "goes with has=miss")
        has = facts.MISS
    player = params.get("player") or None
    rank = _whole(params, "rank", 1, 5)
    if rank is not None and player is None:
        raise _refused("rank", "the rank of the player: give player too")
    version = params.get("version") or None
    if version is not None and player is None:
        raise _refused("version", "a version of the player's bot: give player too")
    if version is not None and len(version) > VERSION_MAX_LENGTH:
        raise _refused("version", f"at most {VERSION_MAX_LENGTH} characters (a token's label)")
    return GameQuery(
        player=player,
        version=version,
        opponent=params.get("opponent") or None,
        rules=rules,
        place=_whole(params, "place", 1, MAX_ID),
        tournament=_whole(params, "tournament", 1, MAX_ID),
        since=_moment(params, "since"),
        until=_moment(params, "until"),
        rank=rank,
        has=has,
        miss=miss,
        before=_whole(params, "before", 1, MAX_ID),
        limit=_whole(params, "limit", 1, MAX_PAGE_SIZE) or PAGE_SIZE,
    )


@dataclass
class FoundGame:
    """A game found: where, when, who, and the turn where what was asked for happened."""

    game_id: int
    place_id: int
    no: int
    turn: int | None  # the first turn of the fact asked for (None: no has=)
    seat: int | None  # the player's seat (None: no player=)
    place_title: str = ""
    rules: str = ""
    tournament_id: int | None = None
    ended_at: datetime | None = None
    players: list[dict] = field(default_factory=list)  # seat, name, rank; by seat

    @property
    def replay_url(self) -> str:
        """The replay page, at the turn where it happened (the 2011 page: as the player sees
        it, ``seat``)."""
        url = reverse("game-replay", args=[self.place_id, self.no])
        if self.turn is None:
            return url
        seat = (
            f"&seat={self.seat}"
            if self.seat is not None and self.rules == DAIHINMIN_2011_NAME
            else ""
        )
        return f"{url}#turn={self.turn}{seat}"

    def as_dict(self) -> dict:
        return {
            "place": {"id": self.place_id, "title": self.place_title},
            "game": self.no,
            "rules": self.rules,
            "tournament": self.tournament_id,
            "ended_at": self.ended_at.isoformat() if self.ended_at else None,
            "players": self.players,
            "turn": self.turn,
            "replay": self.replay_url,
            "record": reverse("game-record", args=[self.place_id, self.no]),
        }


@dataclass
class GamesPage:
    games: list[FoundGame]
    #: The cursor of the next page (``before=``), None on the last page.
    next_before: int | None


def search(q: GameQuery, *, staff: bool = False) -> GamesPage:
    """A page of the games ``q`` finds that this reader may read, newest first."""
    users = _user_ids([name for name in (q.player, q.opponent) if name])
    if (q.player and q.player not in users) or (q.opponent and q.opponent not in users):
        return GamesPage([], None)  # nobody of that name: no game
    if q.player and q.player == q.opponent:
        return GamesPage([], None)
    sql, params, key = _sql(q, users)
    found: list[FoundGame] = []
    before = q.before
    public: dict[int, int | None] = {}  # place -> games 1 … n public (None: all)
    while len(found) <= q.limit:
        want = q.limit + 1 - len(found)
        cursor_sql = sql.replace(BEFORE, "" if before is None else f"AND {key} < %s")
        with connection.cursor() as cursor:
            cursor.execute(cursor_sql, [*params, *([] if before is None else [before]), want])
            batch = [FoundGame(*row) for row in cursor.fetchall()]
        if not staff:
            _learn_public(public, {g.place_id for g in batch} - public.keys())
        found += [
            g for g in batch if staff or public[g.place_id] is None or g.no <= public[g.place_id]
        ]
        if len(batch) < want:
            break
        before = batch[-1].game_id
    more = len(found) > q.limit
    found = found[: q.limit]
    _fill(found)
    return GamesPage(found, found[-1].game_id if more else None)


def _user_ids(names: list[str]) -> dict[str, int]:
    model = get_user_model()
    return dict(
        model.objects.filter(**{f"{model.USERNAME_FIELD}__in": names}).values_list(
            model.USERNAME_FIELD, "pk"
        )
    )


def _sql(q: GameQuery, users: dict[str, int]) -> tuple[str, list, str]:
    """The query of the candidates, :data:`BEFORE` left for the cursor, and the column the
    cursor compares; the query's last parameter is the LIMIT. Driven by the facts' index
    when ``has`` is given, else by the entries'."""
    qn = connection.ops.quote_name
    entries, fact_table = qn(GameEntry._meta.db_table), qn(GameFact._meta.db_table)
    where: list[str] = []
    params: list = []
    player = users.get(q.player) if q.player else None
    opponent = users.get(q.opponent) if q.opponent else None
    if q.has is not None:
        x = "f"
        head = (
            f"SELECT f.game_id, MIN(e.place_id), MIN(e.no), MIN(f.turn), "
            f"{'MIN(e.seat)' if player else 'NULL'} "
            f"FROM {fact_table} f JOIN {entries} e "
            "ON e.game_id = f.game_id AND e.user_id = f.user_id "
            "WHERE f.kind = %s AND f.code = %s"
        )
        params += [q.has, q.miss or ""]
        if player is not None:
            where.append("f.user_id = %s")
            params.append(player)
        tail = "GROUP BY f.game_id ORDER BY f.game_id DESC LIMIT %s"
    else:
        x = "e"
        head = f"SELECT e.game_id, e.place_id, e.no, NULL, e.seat FROM {entries} e WHERE "
        # no player: each game once, by its player of rank 1 (or the opponent's entry)
        if player is not None or opponent is not None:
            head += "e.user_id = %s"
            params.append(player if player is not None else opponent)
        else:
            head += "e.rank = 1"
        tail = "ORDER BY e.game_id DESC LIMIT %s"
    for column, value in (
        ("rules", q.rules), ("place_id", q.place), ("tournament_id", q.tournament),
        ("rank", q.rank),
    ):  # fmt: skip
        if value is not None:
            where.append(f"e.{column} = %s")
            params.append(value)
    if q.since is not None:
        where.append("e.ended_at >= %s")
        params.append(q.since)
    if q.until is not None:
        where.append("e.ended_at < %s")
        params.append(q.until)
    if q.version is not None:  # the places where the player's seat played that version
        players = qn(Player._meta.db_table)
        where.append(
            f"e.place_id IN (SELECT p.place_id FROM {players} p "
            "WHERE p.user_id = %s AND p.version = %s)"
        )
        params += [player, q.version]
    if opponent is not None and (player is not None or q.has is not None):
        where.append(
            f"EXISTS (SELECT 1 FROM {entries} o WHERE o.game_id = {x}.game_id AND o.user_id = %s)"
        )
        params.append(opponent)
    conditions = "".join(f" AND {w}" for w in where)
    return f"{head}{conditions} {BEFORE} {tail}", params, f"{x}.game_id"


def _learn_public(public: dict[int, int | None], places: set[int]) -> None:
    """How many games of each place this reader may read: all (None) unless another place
    shares its seed, then as its disclosure says."""
    if not places:
        return
    seeds = dict(Place.objects.filter(pk__in=places).exclude(seed="").values_list("id", "seed"))
    shared = set(
        Place.objects.filter(seed__in=set(seeds.values()))
        .values("seed")
        .annotate(n=Count("id"))
        .filter(n__gt=1)
        .values_list("seed", flat=True)
    )
    for place_id in places:
        public[place_id] = None
    for place in Place.objects.filter(pk__in=[p for p, seed in seeds.items() if seed in shared]):
        public[place.id] = disclosure(place).public


def _fill(found: list[FoundGame]) -> None:
    """The places' titles and rules and each game's players, in two queries."""
    if not found:
        return
    places = {
        pk: (title, rules, tournament)
        for pk, title, rules, tournament in Place.objects.filter(
            pk__in={g.place_id for g in found}
        ).values_list("id", "title", "rules", "tournament_id")
    }
    players: dict[int, list[dict]] = {}
    ended: dict[int, datetime] = {}
    for game_id, seat, name, rank, ended_at in (
        GameEntry.objects.filter(game_id__in=[g.game_id for g in found])
        .order_by("game_id", "seat")
        .values_list("game_id", "seat", "user__username", "rank", "ended_at")
    ):
        players.setdefault(game_id, []).append({"seat": seat, "name": name, "rank": rank})
        ended[game_id] = ended_at
    for g in found:
        g.place_title, g.rules, g.tournament_id = places[g.place_id]
        g.players = players.get(g.game_id, [])
        g.ended_at = ended.get(g.game_id)
