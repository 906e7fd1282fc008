"""The profile read as it was before the aggregates (issue 28, item 5): every rank and every
turn of the user's finished games, read on each request. Kept as the oracle the aggregates
must agree with, document for document (tests/places/test_profile_aggregates.py)."""

from __future__ import annotations

from collections import Counter, defaultdict

from django.contrib.auth import get_user_model

from daifugo.cards import mask_of
from daifugo.place import points_for
from daifugo.plays import read_play
from daifugo.rules import PROFILES
from places.models import Game, HouseBot, Place, Player, Rank, Rating, Turn
from places.reads.profiles import BookRating, Opponent, PlacePlayed, Profile, percentile
from places.reads.ratings import history


def profile(name: str) -> Profile | None:
    """The profile of the player named ``name``, or None when there is no such user or it
    never had a seat (the rule of ``places.reads.profiles``: only players have a profile)."""
    user = get_user_model().objects.filter(username=name).values("id", "username").first()
    if user is None:
        return None
    seats = dict(Player.objects.filter(user_id=user["id"]).values_list("id", "place_id"))
    if not seats:
        return None
    house = HouseBot.objects.filter(user_id=user["id"]).values_list("strategy", flat=True).first()
    found = Profile(name=user["username"], house=house)
    found.ratings = [
        BookRating(r.rules, r, history(user["id"], r.rules))
        for r in sorted(
            Rating.objects.filter(user_id=user["id"]), key=lambda r: list(PROFILES).index(r.rules)
        )
    ]
    _read_games(found, user["id"], seats)
    _read_turns(found, list(seats))
    return found


def _read_games(found: Profile, user_id: int, seats: dict[int, int]) -> None:
    """Ranks, points, places and head to head: every rank of the games the user finished."""
    rows = Rank.objects.filter(
        game__place_id__in=set(seats.values()), game__status=Game.FINISHED
    ).values_list("game_id", "game__place_id", "player_id", "player__user__username", "rank")
    by_game: dict[int, list[tuple[int, str, int]]] = defaultdict(list)
    place_of: dict[int, int] = {}
    for game_id, place_id, player_id, username, rank in rows:
        by_game[game_id].append((player_id, username, rank))
        place_of[game_id] = place_id
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
