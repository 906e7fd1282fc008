"""The live page's starting point: a place as of one event number.

Which hands a reader may see is decided here and nowhere else: a spectator or a
player sees how many cards each seat holds; staff see the cards.
"""

from __future__ import annotations

from datetime import UTC, datetime

from django.utils import timezone

from daifugo import place as engine
from daifugo.cards import sort_key
from daifugo.game import OVER
from places.models import PLAYERS_PER_PLACE, Hand, Place
from places.reads.position import Position, every_hand, finished_games, table_ids
from places.reads.seats import seats_of
from places.reads.standings import points, rank_counts
from places.wire.records import order_name


def _iso(dt: datetime | None) -> str | None:
    """ISO 8601 with milliseconds, for a countdown (the wire's format has whole seconds)."""
    if dt is None:
        return None
    return dt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def snapshot(place_id: int, *, staff: bool = False) -> dict | None:
    """The place as of event ``last_seq``; None if no such place.

    Public: seats, card counts, the table, whose turn, standings. ``hands``
    (every seat's cards) and ``dealt_hands`` only when ``staff`` is true.
    """
    place = Place.objects.filter(pk=place_id).first()  # one row: state and seq agree
    if place is None:
        return None
    position = Position.decode(place.engine_state)
    state = position.state
    game = state.game if state else None
    seats = seats_of(place.id)
    counts = rank_counts(place.id, finished_games(state))
    pts = points(state, len(seats))
    open_turn = state is not None and state.needs_action
    # after the exchange, at the start of this game: a page that saw start_game
    # counts down from here with the events that follow
    dealt = (
        dict(
            Hand.objects.filter(game_id=position.game_id).values_list("player_id", "after_exchange")
        )
        if game is not None and position.game_id is not None
        else {}
    )
    passed = {s for s in range(len(game.hands)) if game.passed >> s & 1} if game else set()
    table = table_ids(state)
    doc = {
        "place": {
            "id": place.id,
            "title": place.title,
            "state": place.state,
            "game_count": place.game_count,
            "pace": place.pace,
            "time_limit": place.time_limit,
            "time_bank": place.time_bank,
        },
        "last_seq": place.event_seq,
        "server_time": _iso(timezone.now()),
        "phase": state.phase if state else engine.NEW,
        "game_no": state.game_no if state else 0,
        "games_finished": finished_games(state),
        "game_over": bool(game is not None and game.phase == OVER),
        "order": order_name(game.revolution if game else False),
        "pending_revolution": bool(game and game.trick_revolutions % 2),
        "table": table,
        "table_player": (
            seats[game.last_player].name
            if game is not None and table and 0 <= game.last_player < len(seats)
            else None
        ),
        "turn": seats[game.turn].name if open_turn and game.turn < len(seats) else None,
        "turn_deadline": _iso(place.turn_deadline) if open_turn else None,
        "seats": [
            {
                "seat": s.no,
                "name": s.name,
                "cards": game.hands[s.no].bit_count() if game else 0,
                "dealt": len(dealt.get(s.player_id, ())),
                "passed": s.no in passed,
                "rank": (game.ranks[s.no] or None) if game else None,
                "last_rank": state.last_ranks[s.no] if state and state.last_ranks else None,
                "points": pts[s.no],
                "rank_counts": counts.get(s.player_id, [0] * PLAYERS_PER_PLACE),
                # the time bank left in this game (None: the place has none)
                "bank": round(position.banks[s.no], 3) if position.banks is not None else None,
            }
            for s in seats
        ],
        "staff": staff,
    }
    if staff:
        doc["hands"] = every_hand(state, len(seats))
        doc["dealt_hands"] = [sorted(dealt.get(s.player_id, ()), key=sort_key) for s in seats]
    return doc
