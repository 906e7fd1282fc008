"""Tournaments: made with all their places, started, and moved on by the dealer.

A tournament's places are made when it is created, one per table of its schedule
(``daifugo.schedule``), through ``create_place`` like any other, so the
schedule can be read before it starts. Once started, :func:`advance` starts the
waiting places in schedule order, at most ``max_running`` at a time and never two
at once that share an entrant (a bot plays one place at a time), with
``schedule_start``: the dealer of whichever server process claims a place drives
it, as it drives any place. Each server's dealer calls :func:`advance_running`
every round, so a place that ends lets the next one start within a round.

In a duplicate tournament, the five rotations of a deal set share one seed and
play with ``duplicate_deals``: the same hands, seat by seat, in every rotation (a
``uecda`` place's seat being its player number: ``places.uecda.match.play_match``).

A table's seed is a keyed hash of the tournament's seed and the table's deals
(:func:`table_seed`): a finished table publishes its own seed with its records, and
from it nobody without the server's key can tell the seed of another table, nor the
tournament's.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Sequence

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Count
from django.utils import timezone

from daifugo import schedule
from daifugo.rules import DAIHINMIN_2011_NAME, UECDA_NAME, UnknownRules, profile_and_variant
from places import errors
from places.models import TITLE_MAX_LENGTH, Place, Player, Tournament
from places.services.lifecycle import schedule_start
from places.services.setup import create_place, seed_problems, timing_problems
from places.services.uecda_seats import give_entrant_codes

TOURNAMENT_TITLE_MAX_LENGTH = 60
MIN_ENTRANTS = schedule.PLAYERS
MAX_ENTRANTS = 100
MAX_GAMES_PER_TABLE = 10_000
MAX_RUNNING = 100
SEED_MAX_LENGTH = 32
FORMATS = {
    Tournament.Format.ROUND_ROBIN: schedule.round_robin,
    Tournament.Format.DUPLICATE: schedule.duplicate,
}


def _problems(
    title: str,
    usernames: Sequence[str],
    format: str,
    game_count: int,
    pace: float | None,
    time_limit: float,
    time_bank: float,
    seed: str,
    max_running: int,
    rules: str = DAIHINMIN_2011_NAME,
) -> list[str]:
    problems = []
    try:
        rules = profile_and_variant(rules)[0]
    except UnknownRules as e:
        problems.append(str(e))
    if not title or len(title) > TOURNAMENT_TITLE_MAX_LENGTH:
        problems.append(f"the title must have 1 to {TOURNAMENT_TITLE_MAX_LENGTH} characters")
    if not MIN_ENTRANTS <= len(usernames) <= MAX_ENTRANTS:
        problems.append(f"a tournament has {MIN_ENTRANTS} to {MAX_ENTRANTS} entrants")
    if len(set(usernames)) != len(usernames):
        problems.append("a user enters a tournament only once")
    if format not in FORMATS:
        problems.append(f"the format is one of {', '.join(FORMATS)}")
    if not 1 <= game_count <= MAX_GAMES_PER_TABLE:
        problems.append(f"a table plays 1 to {MAX_GAMES_PER_TABLE} games")
    if pace is None:  # the dealer must be able to run its places alone
        problems.append("a tournament's pace is a number of seconds, not manual")
    else:
        problems.extend(timing_problems(pace, time_limit, time_bank))
    problems.extend(f"the seed has {rule}" for rule in seed_problems(seed, SEED_MAX_LENGTH))
    if not 1 <= max_running <= MAX_RUNNING:
        problems.append(f"1 to {MAX_RUNNING} places run at once")
    return problems


def table_seed(seed: str, deals: int) -> str:
    """The seed of the tables that deal ``deals`` (a table's number, or a duplicate set's):
    HMAC-SHA256 of the tournament's seed and ``deals`` under ``settings.SEED_KEY``, 32 hex
    digits. The same tournament seed and key always give the same tables' deals."""
    message = f"daihinmin-table:{seed}:{deals}".encode()
    return hmac.new(settings.SEED_KEY.encode(), message, hashlib.sha256).hexdigest()[:32]


def _table_title(title: str, no: int, tables: int) -> str:
    suffix = f" {no + 1}/{tables}"
    return title[: TITLE_MAX_LENGTH - len(suffix)].rstrip() + suffix


def create_tournament(
    title: str,
    usernames: Sequence[str],
    *,
    format: str = Tournament.Format.ROUND_ROBIN,
    game_count: int = 10,
    pace: float = 0.0,
    time_limit: float = 10.0,
    time_bank: float = 0.0,
    seed: str = "",
    max_running: int = 4,
    rated: bool = True,
    rules: str = DAIHINMIN_2011_NAME,
) -> Tournament:
    """A waiting tournament of these users (entrant 0 first) with every place of its schedule.

    A ``uecda`` tournament's places are ``uecda`` places: each entrant's client plays its
    tables over the UECda port, in table order, with the entrant's one join code
    (``places/services/uecda_seats.py``); a table starts when its clients are connected,
    not by :func:`advance`.

    A duplicate tournament always has a seed (one is drawn when none is given): its
    rotations must deal alike. A round robin without one deals from the OS's source. A
    seed another tournament has is refused: it would deal that tournament's cards again.
    """
    problems = _problems(
        title, usernames, format, game_count, pace, time_limit, time_bank, seed, max_running, rules
    )
    users = {u.get_username(): u for u in get_user_model().objects.filter(username__in=usernames)}
    missing = [n for n in usernames if n not in users]
    if missing:
        problems.append("unknown user: " + ", ".join(missing))
    # asked only of a seed that is one (a NUL would be refused by PostgreSQL itself)
    asked = seed and not seed_problems(seed, SEED_MAX_LENGTH)
    used = asked and Tournament.objects.filter(seed=seed).values_list("id", flat=True).first()
    if used:
        # the same seed makes the same tables' seeds: one tournament's published records
        # would deal the other's games
        problems.append(f"the seed is tournament {used}'s: each tournament needs its own")
    if problems:
        raise errors.Refused(errors.INVALID_TOURNAMENT, "; ".join(problems))
    if format == Tournament.Format.DUPLICATE and not seed:
        seed = secrets.token_hex(8)
    tables = FORMATS[format](len(usernames))
    profile, variant = profile_and_variant(rules)
    with transaction.atomic():
        tournament = Tournament.objects.create(
            title=title,
            format=format,
            game_count=game_count,
            pace=pace,
            time_limit=time_limit,
            time_bank=time_bank,
            seed=seed,
            max_running=max_running,
            rated=rated,
            rules=profile,
            variant=variant,
        )
        tournament.entrants.bulk_create(
            tournament.entrants.model(tournament=tournament, user=users[name], no=no)
            for no, name in enumerate(usernames)
        )
        if profile == UECDA_NAME:
            give_entrant_codes(tournament)
        for table in tables:
            deals = table.deal if table.deal is not None else table.no
            create_place(
                _table_title(title, table.no, len(tables)),
                [usernames[e] for e in table.seats],
                game_count=game_count,
                pace=pace,
                time_limit=time_limit,
                time_bank=time_bank,
                seed=table_seed(seed, deals) if seed else "",
                rated=rated,
                tournament=tournament,
                table_no=table.no,
                duplicate_deals=table.deal is not None,
                rules=rules,
            )
    return tournament


def start_tournament(tournament_id: int) -> int:
    """Start a waiting tournament; returns how many of its places started at once."""
    with transaction.atomic():
        tournament = _locked(tournament_id)
        if tournament.state != Tournament.State.WAITING:
            raise errors.Refused(errors.ALREADY_STARTED, "the tournament has started")
        tournament.state = Tournament.State.RUNNING
        tournament.started_at = timezone.now()
        tournament.save(update_fields=["state", "started_at"])
    return advance(tournament_id)


def _locked(tournament_id: int) -> Tournament:
    try:
        return Tournament.objects.select_for_update().get(pk=tournament_id)
    except Tournament.DoesNotExist:
        raise errors.Refused(errors.NOT_FOUND, f"no tournament {tournament_id}") from None


def advance(tournament_id: int) -> int:
    """Start what may start now, finish the tournament when its places are over.

    Returns the number of places started. Safe from any process at any time: the
    tournament's row is locked, and each place is started under its own lock.
    """
    with transaction.atomic():
        tournament = _locked(tournament_id)
        if tournament.state != Tournament.State.RUNNING:
            return 0
        by_state = dict(tournament.places.values_list("state").annotate(n=Count("id")).order_by())
        running = by_state.get(Place.State.RUNNING, 0)
        if not by_state.get(Place.State.WAITING):
            if not running:
                tournament.state = Tournament.State.FINISHED
                tournament.finished_at = timezone.now()
                tournament.save(update_fields=["state", "finished_at"])
            return 0
        if running >= tournament.max_running or tournament.rules == UECDA_NAME:
            return 0  # a uecda table starts when its entrants' clients are connected
        seated: dict[int, set[int]] = {}
        for place_id, user_id in Player.objects.filter(
            place__tournament=tournament,
            place__state__in=[Place.State.WAITING, Place.State.RUNNING],
        ).values_list("place_id", "user_id"):
            seated.setdefault(place_id, set()).add(user_id)
        waiting = []
        busy: set[int] = set()
        for place_id, state in (
            tournament.places.filter(state__in=[Place.State.WAITING, Place.State.RUNNING])
            .order_by("table_no")
            .values_list("id", "state")
        ):
            if state == Place.State.RUNNING:
                busy |= seated[place_id]
            else:
                waiting.append(place_id)
        started = 0
        for place_id in waiting:
            if running + started >= tournament.max_running:
                break
            if seated[place_id] & busy:
                continue
            schedule_start(place_id)
            busy |= seated[place_id]
            started += 1
        return started


def advance_running() -> int:
    """:func:`advance` every running tournament (the dealer's round); places started."""
    return sum(
        advance(pk)
        for pk in Tournament.objects.filter(state=Tournament.State.RUNNING).values_list(
            "id", flat=True
        )
    )
