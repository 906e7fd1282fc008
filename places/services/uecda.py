"""UECda places (the ``uecda`` rules): their finished games, and a match imported from a log.

A finished game of a ``uecda`` place is kept as one unit, written in one
transaction: its Game row (finished, holding its version 2 record), its five
Rank rows, the place's engine state moved past it (each player's points, the
last ranks), and its ratings when the place is rated. The standings, results,
profiles, ratings and records read those rows as they read a 2011 place's.
:func:`import_tndhms_log` writes a whole match of a tndhms log so, in one
transaction, reading the log as it goes (memory stays a few hundred games' whatever
its length); a UECda server writes each game so as it ends
(:func:`store_finished_games`).
"""

from __future__ import annotations

import hashlib
import io
import itertools
import string
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import BinaryIO

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from daifugo import uecda as u
from daifugo.facts import UecdaTurn, facts_uecda, judged_turns
from daifugo.place import BETWEEN_GAMES, OVER, PlaceState
from daifugo.replay import REVOLUTION
from daifugo.rules import UECDA_NAME
from daifugo.uecda_log import (
    Disagreement,
    LogError,
    LogReader,
    Refereed,
    Skipped,
    TndhmsLog,
    referee,
    rules_of_log,
)
from daifugo.uecda_record import record_of_logged
from places import errors, rows
from places.leases import DRIVER_ID, lease_length
from places.models import PLAYERS_PER_PLACE, Game, HouseBot, Place, Player, Rank
from places.reads.position import Position
from places.services import accounts, game_index, profiles, ratings
from places.services.setup import _setting_problems, timing_problems
from places.wire.records import order_name

#: A place's time limit when none is given (the model's default).
DEFAULT_LIMIT = Place._meta.get_field("time_limit").default
#: How many disagreements a refusal names (the rest are counted).
NAMED_DISAGREEMENTS = 5
#: Games whose records are made and written together (a log may hold 99,999 games).
WRITTEN_AT_ONCE = 500
#: The longest line a log may have: a game's longest, its play line, is a few KiB.
MAX_LOG_LINE = 1 << 20
#: What a TCP match's write reads of its place (:func:`store_finished_games`).
WRITE_READS = ("state", "engine_state", "game_count", "rated", "tournament")


@dataclass(frozen=True)
class Imported:
    """A log made into a place: how many games and turns, and the games left out."""

    place: Place
    games: int
    turns: int
    #: The games not imported (only with ``keep_going``): those the reader could not
    #: read (a garbled line, tndhms's overflow) and those the engine plays otherwise.
    left_out: list[Disagreement | Skipped] = field(default_factory=list)


def store_finished_games(
    place: Place,
    players: Sequence[Player],
    records: Sequence[dict],
    now: datetime,
    over: bool,
    saved_with: Sequence[str] = (),
    judged: Mapping[int, Sequence[UecdaTurn]] | None = None,
) -> list[int]:
    """Write finished games of a ``uecda`` place from their version 2 records, in order;
    returns their ids.

    Call inside the transaction that holds the place's row; ``players`` are the
    place's, by number (``Player.seat``). ``over``: the engine state says the place
    ended with them (its ``state`` and ``finished_at`` are the caller's to set, and
    ``saved_with`` the place's fields the caller changed: saved in the same statement).
    The players' profiles count them when the caller calls
    :func:`profiles.count_place_games`, in this transaction or a later one. ``judged``:
    the games' judged submissions by game number (``facts.judged_turns``), as their match or
    import refereed them; a game not in it is played again from its record.
    """
    judged = judged or {}
    games = rows.insert_returning_ids(
        Game,
        [
            {
                "place_id": place.id,
                "no": r["game"],
                "status": Game.FINISHED,
                "place_info": order_name(r["order"] == REVOLUTION),
                "record": r,
            }
            for r in records
        ],
    )
    rows.insert_many(
        Rank,
        [
            {"game_id": game_id, "player_id": players[p].id, "rank": rank}
            for game_id, r in zip(games, records, strict=True)
            for p, rank in enumerate(r["ranks"])
        ],
    )
    game_index.index_games(
        [
            game_index.Finished(
                game_id, r["game"], place.id, place.tournament_id, UECDA_NAME, now,
                [(p, players[p].user_id, rank) for p, rank in enumerate(r["ranks"])],
                facts_uecda(r, judged.get(r["game"])),
            )
            for game_id, r in zip(games, records, strict=True)
        ]
    )  # fmt: skip
    state = Position.decode(place.engine_state).state or PlaceState(
        PLAYERS_PER_PLACE, place.game_count, BETWEEN_GAMES
    )
    points = list(state.points)
    for r in records:
        points = [p + u.points_for(rank) for p, rank in zip(points, r["ranks"], strict=True)]
    if records:
        state = state.replace(
            game_no=records[-1]["game"],
            last_ranks=tuple(records[-1]["ranks"]),
            points=tuple(points),
        )
    place.engine_state = Position(state.replace(phase=OVER if over else BETWEEN_GAMES)).encode()
    rows.save(place, ["engine_state", "updated_at", *saved_with])
    if place.rated:
        user_ids = [p.user_id for p in players]
        for game_id, r in zip(games, records, strict=True):
            ratings.rate_game(game_id, place.rules, user_ids, r["ranks"], now)
    return games


def _text(log: BinaryIO, digest: hashlib._Hash) -> Iterator[str]:  # (hashlib names no type)
    """The log's lines from its start, as ``str.splitlines`` cuts them, read a line at a time
    (each fed to ``digest``). A line that is not UTF-8 or longer than ``MAX_LOG_LINE`` is
    ``INVALID_LOG`` naming it, as soon as it is read."""
    log.seek(0)
    number = 0
    while raw := log.readline(MAX_LOG_LINE + 1):
        number += 1
        if len(raw) > MAX_LOG_LINE:
            raise errors.Refused(
                errors.INVALID_LOG, f"line {number}: longer than {MAX_LOG_LINE} bytes"
            )
        digest.update(raw)
        try:
            yield from raw.decode("utf-8").splitlines()
        except UnicodeDecodeError:
            raise errors.Refused(errors.INVALID_LOG, f"line {number}: not UTF-8 text") from None


def _refused_games(named: list[Disagreement | Skipped], count: int, total: int) -> errors.Refused:
    """``LOG_DISAGREES`` for ``count`` disagreements, the first of them ``named``."""
    text = "; ".join(str(d) for d in named[:NAMED_DISAGREEMENTS])
    more = count - NAMED_DISAGREEMENTS
    return errors.Refused(
        errors.LOG_DISAGREES,
        f"{count} of {total} games are not as the engine plays them: {text}"
        + (f"; and {more} more" if more > 0 else ""),
    )


def _users(log: TndhmsLog) -> list:
    """The log's five players as users (:func:`_passwordless_users`); a name no new user
    may take (``accounts.check_new_name``) is ``INVALID_LOG`` naming its line."""
    line = log.header_lines.get("palyer_name", 1)
    names = []
    for name in log.names:
        try:
            names.append(accounts.check_unless_taken(name))
        except errors.Refused as e:
            raise errors.Refused(
                errors.INVALID_LOG, f"line {line}: {name[:40]!r} is no user name: {e.message}"
            ) from None
    if len(set(names)) != len(names):  # as stored: ＡＢＣ is ABC
        raise errors.Refused(errors.INVALID_LOG, f"line {line}: a player is named twice")
    return _passwordless_users(names)


def _passwordless_users(names: Sequence[str]) -> list:
    """The users of these (checked) names; those not there yet are made without a usable
    password: nobody logs in as them until staff give them one."""
    model = get_user_model()
    known = {u.get_username(): u for u in model.objects.filter(username__in=names)}
    users = []
    for name in names:
        user = known.get(name)
        if user is None:
            user = model(username=name)
            user.set_unusable_password()
            user.save()
        users.append(user)
    return users


def _new_place(title: str, games: int, seed: str, rated: bool, users: list, **fields) -> tuple:
    """A ``uecda`` place of these users (player number = seat), and its players; inside the
    caller's transaction."""
    place = Place.objects.create(
        title=title, game_count=games, pace=None, seed=seed, rated=rated, rules=UECDA_NAME,
        **fields,
    )  # fmt: skip
    players = Player.objects.bulk_create(
        Player(place=place, user=user, seat=p) for p, user in enumerate(users)
    )
    return place, players


def _title(log: TndhmsLog) -> str:
    """``tndhms YYYYMMDD-HHMM``, from the log's start."""
    digits = "".join(c for c in log.header.get("TIME_START", "") if c in string.digits)
    return f"tndhms {digits[:8]}-{digits[8:12]}" if len(digits) >= 12 else "tndhms log"


class _Disagrees(Exception):
    """A game the engine plays otherwise, found while writing: what is written is undone."""


def _read_header(log: BinaryIO, keep_going: bool) -> tuple[TndhmsLog, int, str]:
    """The first reading of a log: every line checked, the games counted and let go (a
    game that cannot be read refuses the log, unless ``keep_going``). Returns the header
    (as a log without games), the games and the log's digest (the SHA-256 of its bytes:
    what tells one log from another)."""
    digest = hashlib.sha256()
    reader = LogReader(_text(log, digest), keep_going)
    try:
        for _ in reader.games():
            pass
    except LogError as e:
        raise errors.Refused(errors.INVALID_LOG, str(e)) from None
    return reader.log, reader.count, digest.hexdigest()


def import_tndhms_log(
    log: BinaryIO | bytes,
    *,
    rated: bool = False,
    keep_going: bool = False,
    title: str | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Imported:
    """Make a finished ``uecda`` place of the match a tndhms FLAG_LOGGER log holds.

    ``log`` is a file opened in binary (or its bytes), read twice from its start, a line
    at a time: memory stays a few hundred games' whatever the log's length. The first
    reading checks every line: a malformed or cut log is ``INVALID_LOG`` naming the line,
    at the first such line (with ``keep_going``, a game with a garbled line is left out
    and named, tndhms's overflow said so; the log's shape must hold); a log imported
    before, ``ALREADY_IMPORTED``. The second
    referees each game with the engine and writes it, all in one transaction: a game
    the engine does not replay as logged refuses the whole log (``LOG_DISAGREES``,
    naming the game, the turn and what each says) and nothing is kept, unless
    ``keep_going``, which imports the games that agree and returns the others.
    ``progress(done, total)`` is called as games are refereed.
    """
    if isinstance(log, bytes):
        log = io.BytesIO(log)
    header, total, digest = _read_header(log, keep_going)
    try:
        rules = rules_of_log(header)  # the match's rules: its header's (a variant, perhaps)
    except LogError as e:
        raise errors.Refused(errors.INVALID_LOG, str(e)) from None
    before = Place.objects.filter(imported_from=digest).values_list("id", flat=True).first()
    if before is not None:
        raise errors.Refused(errors.ALREADY_IMPORTED, f"this log was imported as place {before}")
    title = title if title is not None else _title(header)
    seed = header.header.get("RANDOM_SEED", "")
    problems = _setting_problems(title, total, None, DEFAULT_LIMIT, seed)
    if problems:
        raise errors.Refused(errors.INVALID_PLACE, "; ".join(problems))
    now = timezone.now()
    disagreements: list[Disagreement | Skipped] = []
    count = agreed = turns = 0
    try:
        with transaction.atomic():
            users = _users(header)
            place = players = head = None
            part: list[Refereed] = []
            again = hashlib.sha256()
            reader = LogReader(_text(log, again), keep_going)
            for done in referee(header, rules, reader.games()):
                count += 1
                if isinstance(done, Disagreement | Skipped):
                    if keep_going or len(disagreements) < NAMED_DISAGREEMENTS:
                        disagreements.append(done)
                else:
                    agreed += 1
                    turns += done.turns
                    if place is None:
                        place, players = _new_place(
                            title, total, seed, rated, users, imported_from=digest,
                            variant=rules.variant, state=Place.State.FINISHED, started_at=now, finished_at=now,
                        )  # fmt: skip
                        head = {"id": place.id, "title": title, "games": total}
                    if keep_going or not disagreements:  # else nothing is kept: none written
                        part.append(done)
                if len(part) > WRITTEN_AT_ONCE:  # the last part is never empty
                    _write(header, part[:WRITTEN_AT_ONCE], place, players, head, seed, now)
                    del part[:WRITTEN_AT_ONCE]
                if progress is not None:
                    progress(count, total)
            if again.hexdigest() != digest:
                raise errors.Refused(errors.INVALID_LOG, "the log changed while it was read")
            if count > agreed and not keep_going:
                raise _Disagrees
            if not agreed:
                raise errors.Refused(
                    errors.LOG_DISAGREES, "no game of the log is as the engine plays it"
                )
            _write(header, part, place, players, head, seed, now, over=True)
    except LogError as e:
        raise errors.Refused(errors.INVALID_LOG, str(e)) from None
    except _Disagrees:
        raise _refused_games(disagreements, count - agreed, total) from None
    except IntegrityError:
        if not Place.objects.filter(imported_from=digest).exists():
            raise
        # the same log, imported at the same moment by another process
        raise errors.Refused(errors.ALREADY_IMPORTED, "this log was imported already") from None
    return Imported(place, agreed, turns, disagreements)


def _write(
    log: TndhmsLog,
    part: list[Refereed],
    place: Place,
    players: list,
    head: dict,
    seed: str,
    now: datetime,
    *,
    over: bool = False,
) -> None:
    """Write refereed games of an imported log (``over`` with its last), and count them in
    their players' profiles: a part at a time, so that no more records are held at once."""
    records = [record_of_logged(log, done, head, seed or None) for done in part]
    judged = {
        r["game"]: judged_turns(r, done.outcomes) for r, done in zip(records, part, strict=True)
    }
    store_finished_games(place, players, records, now, over=over, judged=judged)
    profiles.count_place_games(place.id, judged)


# -- a match played over TCP (places/uecda/match.py) ---------------------------------------


def _match_users(names: Sequence[str]) -> list:
    """A user per player (:func:`_passwordless_users`): the name its client sent (as
    stored, ``accounts.check_unless_taken``) when no user has it or the user who has it
    plays over UECda only (:func:`_uecda_only`). A name taken before in this match (five
    stock clients are all called the same) becomes ``NAME-P``, P the player number; a
    name no new user may take, one that looks like a user's, or one of an account that
    logs in (staff, a password, a house bot) becomes ``uecda-P`` (``uecda-P-2`` … if
    that is not free either). A client is never refused for its name: tndhms takes any.
    """
    chosen: list[str] = []
    for p, name in enumerate(names):
        seated = _uecda_name(name)
        if seated is not None and seated in chosen:
            seated = _uecda_name(f"{name}-{p}")
        fallbacks = (f"uecda-{p}-{n}" if n > 1 else f"uecda-{p}" for n in itertools.count(1))
        while seated is None or seated in chosen:
            seated = _uecda_name(next(fallbacks))
        chosen.append(seated)
    return _passwordless_users(chosen)


def _uecda_name(name: str) -> str | None:
    """``name`` as stored if a TCP client may play as it (free, or a UECda-only user's),
    else None."""
    try:
        name = accounts.check_unless_taken(name)
    except errors.Refused:
        return None
    model = get_user_model()
    user = model.objects.filter(**{model.USERNAME_FIELD: name}).first()
    return name if user is None or _uecda_only(user) else None


def _uecda_only(user) -> bool:
    """A user nobody logs in as and the server does not play: made by a UECda match or an
    imported log (no usable password), neither staff nor a house bot, not disabled. A
    client naming any other user must not play (and, ``--rated``, be rated) as it."""
    return (
        user.is_active
        and not user.is_staff
        and not user.is_superuser
        and not user.has_usable_password()
        and not HouseBot.objects.filter(user=user).exists()
    )


def check_clock(time_limit: float | None, time_bank: float) -> None:
    """A TCP match's time limit per move (None: none, as tndhms) and bank per game, as
    a place's: ``INVALID_PLACE`` out of bounds."""
    problems = timing_problems(None, DEFAULT_LIMIT if time_limit is None else time_limit, time_bank)
    if time_limit is None and time_bank:
        problems.append("a time bank needs a time limit")
    if problems:
        raise errors.Refused(errors.INVALID_PLACE, "; ".join(problems))


def open_match(
    title: str,
    games: int,
    seed: str,
    names: Sequence[str],
    rated: bool,
    time_limit: float | None = None,
    time_bank: float = 0.0,
    variant: str = "",
) -> int:
    """A running ``uecda`` place (of the rules ``variant``, checked by the caller) for a
    match whose five players connected, by number; returns its id. ``INVALID_PLACE`` for a title, game count, seed or clock out of
    bounds. With no time limit the place keeps the default one, which nothing uses.

    The place is this process's (``Place.driver``) on a lease that :func:`renew_match`
    keeps: when the process dies, the lease runs out and :func:`abort_orphaned_matches`
    (or a dealer taking the place over) aborts it, its games before stay."""
    check_clock(time_limit, time_bank)
    problems = _setting_problems(title, games, None, DEFAULT_LIMIT, seed)
    if problems:
        raise errors.Refused(errors.INVALID_PLACE, "; ".join(problems))
    now = timezone.now()
    clock = {"time_bank": time_bank}
    if time_limit is not None:
        clock["time_limit"] = time_limit
    with transaction.atomic():
        place, _ = _new_place(
            title, games, seed, rated, _match_users(names),
            state=Place.State.RUNNING, started_at=now, driver=DRIVER_ID,
            lease_until=now + lease_length(), variant=variant, **clock,
        )  # fmt: skip
    return place.id


def renew_match(place_id: int) -> None:
    """This process still plays the match: its lease on the place runs on."""
    Place.objects.filter(pk=place_id, driver=DRIVER_ID, state=Place.State.RUNNING).update(
        lease_until=timezone.now() + lease_length()
    )


def abort_orphaned_matches() -> list[int]:
    """Abort every running ``uecda`` place whose process is gone (its lease ran out): a
    TCP match lives as long as its five connections, so nobody can play it on. Its
    finished games stay; the game in play was never written. Returns their ids."""
    from places.services.lifecycle import stop_place

    gone = Place.objects.filter(state=Place.State.RUNNING, rules=UECDA_NAME).filter(
        Q(lease_until__isnull=True) | Q(lease_until__lt=timezone.now())
    )
    aborted = []
    for place_id in gone.values_list("id", flat=True):
        try:
            stop_place(place_id)
        except errors.Refused:  # over already: another process got there first
            continue
        aborted.append(place_id)
    return aborted


def store_match_games(
    place_id: int,
    records: Sequence[dict],
    over: bool,
    players: Sequence[Player] | None = None,
    count: bool = True,
    judged: Mapping[int, Sequence[UecdaTurn]] | None = None,
) -> list[Player]:
    """Write finished games of a TCP match in one transaction (the place row locked);
    ``over``: the last game of the match is among them, the place is finished.
    ``ALREADY_OVER`` when the place is not running any more (staff stopped it): its
    match must stop, and nothing is written. ``players``: the place's, by number, as
    the call before returned them (a match's seats do not change); None: read here.
    ``count``: the players' profiles count every game stored so far, these included
    (:func:`profiles.count_place_games`); else a later write counts them (the last
    always does), or the abort of a match cut short. ``judged``: the judged submissions
    (``facts.judged_turns``) by game number of these games and of those stored before and
    not counted yet, as the match refereed them; a game not in it is played again from its
    record.

    On PostgreSQL the writes after the totals are read go with the COMMIT, in one
    round trip (``rows.together``)."""
    now = timezone.now()
    with transaction.atomic(), rows.together(commit=True):
        place = rows.lock(Place, place_id, WRITE_READS)
        if place.state != Place.State.RUNNING:
            raise errors.Refused(
                errors.ALREADY_OVER, f"place {place_id} is {place.state}: its games are not stored"
            )
        if players is None:
            players = list(Player.objects.filter(place=place).order_by("seat"))
        finished = ("state", "finished_at") if over else ()
        if over:
            place.state = Place.State.FINISHED
            place.finished_at = now
        store_finished_games(place, players, records, now, over, finished, judged)
        if count or over:
            profiles.count_place_games(place_id, judged)
    return players
