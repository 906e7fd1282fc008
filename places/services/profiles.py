"""Profiles kept up to date: each finished game is added to its players' aggregates.

A profile (``places/reads/profiles.py``) once read every rank and every turn its
player ever had, on every request: 1.25 s at 5,333 games. Now the change that
finishes a game (``places/services/change.py``) adds the game to its five players'
rows (``ProfileTotals``, ``ProfileOpponent``, ``ProfileThink``, ``Player.games`` and
``Player.points``) in the same transaction, so a profile never counts a game that
did not commit, nor one twice, and reads the same few rows at any number of games.
A UECda match adds its stored games once a second (:func:`count_place_games`), what
``Player.games`` counts telling which are left.

The figures are those the records give (the same rules as before, in
:class:`GameTally`): :func:`recount` computes them again from the records, for the
migration that filled them and for a place deleted with its games.

The players' totals rows are locked in user order, as the ratings are (after them), so
two places finishing games with a player in common wait for each other and never
deadlock; a user's opponent and think-time rows are written only under that lock.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import timedelta

from django.apps import apps as installed_apps
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import Max

from daifugo.facts import MISS, REJECTED, UecdaTurn, play_marks, uecda_turns
from daifugo.place import points_for
from daifugo.rules import UECDA, UECDA_NAME
from places import rows
from places.models import PLAYERS_PER_PLACE, Game, Place, Player, Rank, Turn

#: What a turn row gives the tally, in this order.
TURN_FIELDS = ("player_id", "outcome", "reason", "cards", "table", "revolution")
TIMES = ("opened_at", "settled_at")
MICROSECOND = timedelta(microseconds=1)
TOTALS_FIELDS = (
    "games",
    "points",
    "rank_counts",
    "turns",
    "plays",
    "cards_played",
    "passes",
    "pass_chances",
    "timeouts",
    "misses",
    "revolutions",
    "eight_cuts",
    "answered",
    "think_us",
)
OPPONENT_FIELDS = ("games", "above", "points", "their_points")
#: Games of a ``uecda`` place counted at once (their records read together).
COUNTED_AT_ONCE = 200
#: Rows an upsert writes at most (its parameters stay well under SQLite's limit).
ROWS_A_STATEMENT = 300


def think_tenths(think: timedelta) -> int:
    """A think time in tenths of a millisecond, rounded as a profile shows it (to 0.1 ms)."""
    return round(round(think.total_seconds() * 1000, 1) * 10)


@dataclass
class Tally:
    """What some finished games add to one user's profile."""

    games: int = 0
    points: int = 0
    rank_counts: list[int] = field(default_factory=lambda: [0] * PLAYERS_PER_PLACE)
    turns: int = 0
    plays: int = 0
    cards_played: int = 0
    passes: int = 0
    pass_chances: int = 0
    timeouts: int = 0
    misses: Counter[str] = field(default_factory=Counter)
    revolutions: int = 0
    eight_cuts: int = 0
    answered: int = 0
    think_us: int = 0
    think: Counter[int] = field(default_factory=Counter)  # turns by tenths of a ms
    #: By opponent user id: games, above, points, their points.
    opponents: dict[int, list[int]] = field(default_factory=dict)
    #: By player id (a place of the user's): games, points.
    places: dict[int, list[int]] = field(default_factory=dict)

    def add_rank(
        self,
        player_id: int,
        rank: int,
        others: Iterable[tuple[int, int]],
        n: int,
        points: Callable[[int, int], int] = points_for,
    ) -> None:
        """One finished game: the user's rank among ``n`` players, and the others'
        ``(user_id, rank)``; ``points``: the game's rules' (``Rules.points_for``)."""
        mine = points(rank, n)
        self.games += 1
        self.points += mine
        self.rank_counts[rank - 1] += 1
        place = self.places.setdefault(player_id, [0, 0])
        place[0] += 1
        place[1] += mine
        for user_id, their_rank in others:
            o = self.opponents.setdefault(user_id, [0, 0, 0, 0])
            o[0] += 1
            o[1] += rank < their_rank
            o[2] += mine
            o[3] += points(their_rank, n)

    def add_turn(self, outcome, reason, cards, table, revolution, opened_at, settled_at) -> None:
        """One settled turn of a 2011 game: a pass counts against the turns with cards on
        the table, the only ones where passing is legal."""
        flips, eight = play_marks(cards, revolution) if outcome == "play" else (False, False)
        think = settled_at - opened_at
        self.add_move(outcome, reason, len(cards), bool(table), flips, eight, think)

    def add_uecda_turn(self, turn: UecdaTurn) -> None:
        """One submission of a ``uecda`` game, with its think time when the record keeps it
        (a game played over the UECda port; an imported log has none). Any turn may pass
        under these rules, the leader's too: each is a chance to."""
        reason = REJECTED if turn.outcome == MISS else ""
        think = None if turn.ms is None else timedelta(milliseconds=turn.ms)
        self.add_move(
            turn.outcome, reason, turn.cards, True, turn.revolution, turn.eight_cut, think
        )

    def add_move(
        self,
        outcome: str,
        reason: str,
        cards: int,
        chance: bool,
        revolution: bool,
        eight: bool,
        think: timedelta | None,
    ) -> None:
        """One settled turn, whatever the rules: ``chance``, whether a pass was legal;
        ``think``, the time it took (None: not kept). Think time is over the turns
        answered: a timeout is the limit, not a thought."""
        if think is not None and outcome != "timeout":
            self.answered += 1
            self.think_us += think // MICROSECOND
            self.think[think_tenths(think)] += 1
        self.turns += 1
        self.pass_chances += chance
        if outcome == "timeout":
            self.timeouts += 1
        elif outcome == "pass":
            self.passes += 1
        elif outcome == "miss":
            self.misses[reason] += 1
        elif outcome == "play":
            self.plays += 1
            self.cards_played += cards
            self.revolutions += revolution
            self.eight_cuts += eight


@dataclass(frozen=True)
class Seated:
    """A player of a finished game: its player row, its user, its rank."""

    player_id: int
    user_id: int
    rank: int
    #: Its number in a ``uecda`` game's record (``Player.seat``).
    number: int = -1


def tally_game(
    players: Sequence[Seated],
    turns: Iterable[tuple],
    into: dict[int, Tally],
    points: Callable[[int, int], int] = points_for,
    uecda: Iterable[UecdaTurn] = (),
) -> None:
    """Add one finished game (its players and its settled turns, ``TURN_FIELDS`` + ``TIMES``;
    a ``uecda`` game: its judged submissions, ``uecda``) to the tallies of the users in
    ``into`` (others are left out)."""
    n = len(players)
    user_of = {p.player_id: p.user_id for p in players}
    for p in players:
        if p.user_id in into:
            others = ((q.user_id, q.rank) for q in players if q is not p)
            into[p.user_id].add_rank(p.player_id, p.rank, others, n, points)
    for player_id, *turn in turns:
        tally = into.get(user_of.get(player_id))
        if tally is not None:
            tally.add_turn(*turn)
    by_number = {p.number: into.get(p.user_id) for p in players}
    for uecda_turn in uecda:
        tally = by_number.get(uecda_turn.player)
        if tally is not None:
            tally.add_uecda_turn(uecda_turn)


def count_game(game_id: int, players: Sequence[Seated]) -> None:
    """Add a game that just finished to its players' profiles, inside its change.

    What the change holds (``places.rows.together``) is sent before the game's turns and
    the totals are read; the writes are then held with the change's own, and go with its
    COMMIT.
    """
    with rows.at_once():
        turns = list(
            Turn.objects.filter(game_id=game_id, settled_at__isnull=False).values_list(
                *TURN_FIELDS, *TIMES
            )
        )
    tallies = {p.user_id: Tally() for p in players}
    tally_game(players, turns, tallies)
    _add(tallies, installed_apps)


def count_games(
    games: Sequence[Sequence[Seated]],
    points: Callable[[int, int], int],
    judged: Sequence[Sequence[UecdaTurn]],
) -> None:
    """Add finished games without turn rows (a UECda place's: ``places/services/uecda.py``),
    each with its judged submissions, to their players' profiles, inside the change that
    writes them."""
    tallies = {p.user_id: Tally() for players in games for p in players}
    for players, turns in zip(games, judged, strict=True):
        tally_game(players, (), tallies, points, turns)
    _add(tallies, installed_apps)


def count_place_games(
    place_id: int, judged: Mapping[int, Sequence[UecdaTurn]] | None = None
) -> int:
    """Add the finished games of a ``uecda`` place its players' profiles do not count yet
    to them; returns how many. Call in the change that holds the place's row.
    ``judged``: the judged submissions of games by number, as their match or import
    refereed them; a game not in it is played again from its stored record.

    A UECda match stores each game as it ends and counts them in batches
    (``places/services/uecda.py``, ``store_match_games``): what a player's row counts
    (``Player.games``, written with the profiles, in their transaction) tells which are
    not counted yet, after a crash too (a place aborted is counted up first). Every
    player of a ``uecda`` place plays each of its games, numbered 1, 2, … as they end.
    """
    judged = judged or {}
    with rows.at_once():  # the games this change writes, first
        counted = min(
            Player.objects.filter(place_id=place_id).values_list("games", flat=True), default=0
        )
        last = Game.objects.filter(place_id=place_id).aggregate(last=Max("no"))["last"] or 0
    for first in range(counted + 1, last + 1, COUNTED_AT_ONCE):  # records: a part at a time
        upto = first + COUNTED_AT_ONCE - 1
        stored = Rank.objects.filter(
            game__place_id=place_id, game__no__gte=first, game__no__lte=upto
        ).order_by("game__no", "rank")
        unjudged = [no for no in range(first, upto + 1) if no not in judged]
        records = dict(
            Game.objects.filter(place_id=place_id, no__in=unjudged).values_list("no", "record")
            if unjudged
            else ()
        )
        seated: dict[int, list[Seated]] = {}
        for no, player_id, user_id, rank, number in stored.values_list(
            "game__no", "player_id", "player__user_id", "rank", "player__seat"
        ):
            seated.setdefault(no, []).append(Seated(player_id, user_id, rank, number))
        if seated:
            turns = [judged[no] if no in judged else uecda_turns(records[no]) for no in seated]
            count_games(list(seated.values()), UECDA.points_for, turns)
    return max(0, last - counted)


def _add(tallies: dict[int, Tally], apps, fresh: bool = False) -> None:
    """Add the tallies to the users' rows (made when missing), the totals rows locked first.

    A statement for each table, whatever the number of users: the totals as they
    now are (read locked, added to here), the rows by head to head and by think time
    added to in the database, the players' games and points too (the ORM's
    ``bulk_update`` took 100 ms a game building its CASE expressions); inside a
    change every write is held and goes with its COMMIT.
    ``fresh``: the users have no rows (:func:`recount` removed them).
    """
    Totals = apps.get_model("places", "ProfileTotals")
    Opponent = apps.get_model("places", "ProfileOpponent")
    Think = apps.get_model("places", "ProfileThink")
    Player = apps.get_model("places", "Player")
    users = sorted(tallies)
    empty = {"rank_counts": [0] * PLAYERS_PER_PLACE, "misses": {}}
    if fresh:
        held = {u: [empty.get(name, 0) for name in TOTALS_FIELDS] for u in users}
    else:
        with rows.at_once():  # the game before's totals, if this change finished it, first
            held = _locked(Totals, users)
            if len(held) < len(users):  # made first, so that two changes lock them in turn
                Totals.objects.bulk_create(
                    [Totals(user_id=u, **empty) for u in users if u not in held],
                    ignore_conflicts=True,
                )
                held = _locked(Totals, users)
    totals = {
        (u,): [
            _sum(name, was, getattr(tallies[u], name))
            for name, was in zip(TOTALS_FIELDS, held[u], strict=True)
        ]
        for u in users
    }
    _write_rows(Totals, ("user",), TOTALS_FIELDS, totals, add=False)
    opponents = {(u, o): v for u in users for o, v in tallies[u].opponents.items()}
    think = {(u, k): [v] for u in users for k, v in tallies[u].think.items()}
    _write_rows(Opponent, ("user", "opponent"), OPPONENT_FIELDS, opponents)
    _write_rows(Think, ("user", "tenths"), ("turns",), think)
    _add_to_players(Player, {pk: v for u in users for pk, v in tallies[u].places.items()})


def _locked(Totals, users: list[int]) -> dict[int, list]:
    """The users' totals (``TOTALS_FIELDS``), their rows locked in user order."""
    return {u: values for u, *values in rows.lock_many(Totals, "user", users, TOTALS_FIELDS)}


def _sum(name: str, was, more):
    """A totals field's value with a tally's added."""
    if name == "rank_counts":
        return [a + b for a, b in zip(was, more, strict=True)]
    if name == "misses":
        return dict(Counter(was) + more)
    return was + more


def _write_rows(
    model, keys: Sequence[str], fields: Sequence[str], wanted: dict, add: bool = True
) -> None:
    """Write ``wanted`` (key values -> values of fields) to the rows of ``model``, made when
    missing: ``INSERT … ON CONFLICT DO UPDATE SET f = f + excluded.f`` (``add``) or
    ``f = excluded.f`` (SQLite and PostgreSQL alike), a statement per few hundred rows. The
    caller holds the users' totals rows."""
    connection = connections[DEFAULT_DB_ALIAS]
    q = connection.ops.quote_name
    table = q(model._meta.db_table)
    key_columns = [model._meta.get_field(k).column for k in keys]
    preparers = [rows.preparer(model._meta.get_field(f), connection) for f in fields]
    columns = [*key_columns, *fields]
    one = "(" + ", ".join(["%s"] * len(columns)) + ")"
    setting = ", ".join(
        f"{q(f)} = {table}.{q(f)} + excluded.{q(f)}" if add else f"{q(f)} = excluded.{q(f)}"
        for f in fields
    )
    items = list(wanted.items())
    for i in range(0, len(items), ROWS_A_STATEMENT):
        chunk = items[i : i + ROWS_A_STATEMENT]
        rows.execute(
            f"INSERT INTO {table} ({', '.join(q(c) for c in columns)}) "
            f"VALUES {', '.join([one] * len(chunk))} "
            f"ON CONFLICT ({', '.join(q(c) for c in key_columns)}) DO UPDATE SET {setting}",
            [x for key, values in chunk for x in (*key, *rows.prepared(preparers, values))],
        )


def _add_to_players(Player, added: dict[int, list[int]]) -> None:
    """Add ``added`` (player id -> games, points) to the players' rows, a statement per few
    hundred players."""
    q = connections[DEFAULT_DB_ALIAS].ops.quote_name
    items = sorted(added.items())
    for i in range(0, len(items), ROWS_A_STATEMENT):
        chunk = items[i : i + ROWS_A_STATEMENT]
        cases = " ".join(["WHEN %s THEN %s"] * len(chunk))
        rows.execute(
            f"UPDATE {q(Player._meta.db_table)} SET "
            f"{q('games')} = {q('games')} + CASE {q('id')} {cases} END, "
            f"{q('points')} = {q('points')} + CASE {q('id')} {cases} END "
            f"WHERE {q('id')} IN ({', '.join(['%s'] * len(chunk))})",
            [
                *(x for pk, (games, _) in chunk for x in (pk, games)),
                *(x for pk, (_, points) in chunk for x in (pk, points)),
                *(pk for pk, _ in chunk),
            ],
        )


def recount(user_ids: Iterable[int] | None = None, apps=installed_apps) -> None:
    """Compute the profiles of these users (of every user: None) afresh from the records of
    their finished games. ``apps``: a migration's, which filled them first."""
    Totals = apps.get_model("places", "ProfileTotals")
    Opponent = apps.get_model("places", "ProfileOpponent")
    Think = apps.get_model("places", "ProfileThink")
    Player = apps.get_model("places", "Player")
    Games = apps.get_model("places", "Game")
    Rank = apps.get_model("places", "Rank")
    Turn = apps.get_model("places", "Turn")
    players = Player.objects.all()
    if user_ids is not None:
        users = set(user_ids)
        players = players.filter(user_id__in=users)
    else:
        users = set(Player.objects.values_list("user_id", flat=True).distinct())
    for model in (Totals, Opponent, Think):
        kept = model.objects.all()
        (kept if user_ids is None else kept.filter(user_id__in=users)).delete()
    players.update(games=0, points=0)
    tallies = {u: Tally() for u in users}
    games = Games.objects.filter(
        place_id__in=players.values("place_id"), status=Game.FINISHED
    ).order_by("id")
    # a game is tallied with its rules' points (5…1 under uecda); before the rules
    # migration every game was the 2011 rules'
    place_fields = {f.name for f in apps.get_model("places", "Place")._meta.get_fields()}
    game_fields = {f.name for f in Games._meta.get_fields()}
    uecda_games = (
        set(games.filter(place__rules=UECDA_NAME).values_list("id", flat=True))
        if "rules" in place_fields
        else set()
    )
    for chunk in _chunks(list(games.values_list("id", flat=True)), 500):
        seated: dict[int, list[Seated]] = {}
        for game_id, player_id, user_id, rank, number in Rank.objects.filter(
            game_id__in=chunk
        ).values_list("game_id", "player_id", "player__user_id", "rank", "player__seat"):
            seated.setdefault(game_id, []).append(Seated(player_id, user_id, rank, number))
        records = (
            dict(
                Games.objects.filter(id__in=uecda_games.intersection(chunk)).values_list(
                    "id", "record"
                )
            )
            if "record" in game_fields
            else {}
        )
        turns: dict[int, list[tuple]] = {}
        for game_id, *turn in Turn.objects.filter(
            game_id__in=chunk, settled_at__isnull=False
        ).values_list("game_id", *TURN_FIELDS, *TIMES):
            turns.setdefault(game_id, []).append(turn)
        for game_id in chunk:
            points = UECDA.points_for if game_id in uecda_games else points_for
            tally_game(
                seated.get(game_id, []),
                turns.get(game_id, []),
                tallies,
                points,
                uecda_turns(records[game_id]) if game_id in records else (),
            )
    _add(tallies, apps, fresh=True)


def _chunks(items: list, size: int) -> Iterable[list]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


# -- a place deleted with its games ----------------------------------------------------------


def _note_players(sender, instance, **kwargs) -> None:
    """Before a place is deleted (the admin's delete, or its tournament's): whose profiles
    its finished games are in."""
    counted = Game.objects.filter(place_id=instance.pk, status=Game.FINISHED).exists()
    instance._profile_users = (
        list(Player.objects.filter(place_id=instance.pk).values_list("user_id", flat=True))
        if counted
        else []
    )


def _recount_players(sender, instance, **kwargs) -> None:
    """After: those profiles are added up again without its games, in the same transaction."""
    users = getattr(instance, "_profile_users", [])
    if users:
        recount(users)


def connect_signals() -> None:
    """Keep profiles right when a place goes (``PlacesConfig.ready``)."""
    from django.db.models.signals import post_delete, pre_delete

    pre_delete.connect(_note_players, sender=Place, dispatch_uid="profiles-note-players")
    post_delete.connect(_recount_players, sender=Place, dispatch_uid="profiles-recount")
