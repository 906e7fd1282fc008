"""The player's documents (PROTOCOL.md §3): what ``get_hand`` and the others answer.

Each returns the document's data in wire order; the player API writes it as
JSON or XML, the socket as its reply. A player sees their own cards and
everyone's count of cards, never another hand.
"""

from __future__ import annotations

from daifugo.cards import format_card, sort_key, sorted_ids
from daifugo.game import TURN_OPEN
from daifugo.legal import legal_plays as engine_legal_plays
from daifugo.place import IN_GAME
from places import errors, rows
from places.models import Hand, Place
from places.reads.position import state_of, table_ids
from places.reads.seats import seat_of, seats_of
from places.wire.records import api_card, order_name


def _place(place_id: int) -> Place:
    """The session's place; a place deleted since the login is a session that names none."""
    try:
        return rows.read(Place, place_id)
    except Place.DoesNotExist:
        raise errors.Refused(errors.NOT_LOGGED_IN, "log in first: no such place") from None


def _state(place_id: int):
    return state_of(_place(place_id))


def hand(place_id: int, user_id: int) -> list[dict]:
    """``get_hand``: the player's cards now, weakest first, jokers last."""
    return [api_card(c) for c in hand_ids(place_id, user_id)]


def hand_ids(place_id: int, user_id: int) -> list[int]:
    seat = seat_of(place_id, user_id)
    state = _state(place_id)
    if state is None or state.game is None:
        return []
    return sorted_ids(state.game.hands[seat.no])


def initial_hand(place_id: int, user_id: int) -> list[dict]:
    """``get_initial_hand``: the cards dealt in the current (or last) game, before the exchange."""
    seat = seat_of(place_id, user_id)
    dealt = (
        Hand.objects.filter(game__place_id=place_id, player_id=seat.player_id)
        .order_by("-game__no")
        .values_list("dealt", flat=True)
        .first()
    )
    return [api_card(c) for c in dealt or []]


def place_info(place_id: int) -> dict:
    """``get_place_info``: the contract's keys first, then what bots also want."""
    place = _place(place_id)
    state = state_of(place)
    seats = seats_of(place_id)
    game = state.game if state else None
    hands = game.hands if game else (0,) * len(seats)
    return {
        "game_count": place.game_count,
        "player_count": len(seats),
        "player_infos": [
            {"name": s.name, "has_card": h.bit_count()} for s, h in zip(seats, hands, strict=False)
        ],
        "game_no": state.game_no if state else 0,
        "turn_player": seats[game.turn].name if game is not None and state.needs_action else None,
        "place_info": order_name(game.revolution if game else False),
        "place_cards": [api_card(c) for c in table_ids(state)],
        "state": published_state(place.state),
    }


def published_state(state: str) -> str:
    """A place's state as ``get_place_info`` was published with it (waiting, running,
    finished): a place stopped by staff is over, ``finished`` there; the new documents
    (``state.json``, profiles, the staff endpoints) say ``aborted``."""
    return Place.State.FINISHED if state == Place.State.ABORTED else state


def ranks(place_id: int) -> dict:
    """``get_rank``: each player's rank in the current game and in the last finished one."""
    state = _state(place_id)
    seats = seats_of(place_id)
    game = state.game if state else None
    # while a game runs, last_ranks are the previous game's; once it is over, its own
    last = state.last_ranks if state else None
    return {
        "game_no": state.game_no if state else 0,
        "ranks": [
            {
                "name": s.name,
                "rank": (game.ranks[s.no] or None) if game else None,
                "last_rank": last[s.no] if last else None,
            }
            for s in seats
        ],
    }


def legal_plays(place_id: int, user_id: int) -> dict:
    """The player's hand and every legal play of it against the table now.

    Not one of the 2011 documents: the manual-play page's. Cards are written as
    in ``post_cards`` ("2-3", "joker"); plays are listed once per written form
    (with two jokers, a play that can use either is one entry), fewest cards
    first, then weakest first. ``can_pass`` is true when the table has cards.
    """
    seat = seat_of(place_id, user_id)
    state = _state(place_id)
    game = state.game if state else None
    if game is None or state.phase != IN_GAME:
        return {
            "game_no": state.game_no if state else 0,
            "my_turn": False,
            "turn_open": False,
            "order": order_name(False),
            "table": [],
            "hand": [],
            "can_pass": False,
            "plays": [],
        }
    held = game.hands[seat.no]
    found: dict[tuple[str, ...], tuple[int, ...]] = {}
    for p in engine_legal_plays(held, game.table, game.revolution):
        found.setdefault(tuple(format_card(c) for c in p.cards), p.cards)
    ordered = sorted(found.items(), key=lambda kv: (len(kv[1]), [sort_key(c) for c in kv[1]]))
    return {
        "game_no": state.game_no,
        "my_turn": game.phase == TURN_OPEN and game.turn == seat.no,
        "turn_open": game.phase == TURN_OPEN,
        "order": order_name(game.revolution),
        "table": [format_card(c) for c in table_ids(state)],
        "hand": [format_card(c) for c in sorted_ids(held)],
        "can_pass": game.table is not None,
        "plays": [list(written) for written, _cards in ordered],
    }
