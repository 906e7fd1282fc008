"""The WebSocket event format of PROTOCOL.md §4, byte-compatible with 2011.

Key order is part of the contract: every message is built as a dict in wire
order, ``operation`` and ``place`` last, and encoded once, compactly.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

from places.engine.cards import MARK, NUMBER

#: The 2011 server's card rows carried timestamps; ours are fixed, as the cards are.
CARD_TIMESTAMP = "2011-04-20T13:32:09Z"


def timestamp(dt: datetime | None) -> str | None:
    """UTC, ``YYYY-MM-DDTHH:MM:SSZ`` (Rails' JSON format)."""
    if dt is None:
        return None
    return dt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def event_card(cid: int) -> dict:
    """A card as the 2011 card row: every column, in column order."""
    joker = cid >= 53
    return {
        "card": {
            "created_at": CARD_TIMESTAMP,
            "id": cid,
            "joker": joker,
            "mark": MARK[cid],
            "number": NUMBER[cid],
            "updated_at": CARD_TIMESTAMP,
        }
    }


def api_card(cid: int) -> dict:
    """A card as get_hand serves it (no timestamps)."""
    return {"card": {"id": cid, "joker": cid >= 53, "mark": MARK[cid], "number": NUMBER[cid]}}


def place_row(place) -> dict:
    return {
        "created_at": timestamp(place.created_at),
        "game_count": place.game_count,
        "id": place.id,
        "title": place.title,
        "updated_at": timestamp(place.updated_at),
    }


def game_row(game) -> dict:
    return {
        "created_at": timestamp(game.created_at),
        "id": game.id,
        "no": game.no,
        "place_id": game.place_id,
        "place_info": game.place_info,
        "status": game.status,
        "updated_at": timestamp(game.updated_at),
    }


def order_name(revolution: bool) -> str:
    return "Revolution" if revolution else "Nomal"


def start_place(place) -> dict:
    return {"place_info": place_row(place), "operation": "start_place", "place": place.id}


def end_place(place) -> dict:
    return {"place_info": place_row(place), "operation": "end_place", "place": place.id}


def start_game(game) -> dict:
    return {"game": game_row(game), "operation": "start_game", "place": game.place_id}


def end_game(game) -> dict:
    return {"game": game_row(game), "operation": "end_game", "place": game.place_id}


def start_turn(place_id: int, name: str, table: tuple[int, ...], revolution: bool) -> dict:
    return {
        "player": name,
        "place_cards": [event_card(c) for c in table],
        "place_info": order_name(revolution),
        "operation": "start_turn",
        "place": place_id,
    }


def end_player(place_id: int, name: str, game_id: int, player_id: int, rank: int) -> dict:
    return {
        "player": name,
        "rank": {
            "rank": {
                "created_at": None,
                "game_id": game_id,
                "player_id": player_id,
                "rank": rank,
                "updated_at": None,
            }
        },
        "operation": "end_player",
        "place": place_id,
    }


def end_turn(place_id: int, name: str, cards: tuple[int, ...], reset: bool) -> dict:
    return {
        "player": name,
        "turn_cards": [event_card(c) for c in cards],
        "reset_place": reset,
        "operation": "end_turn",
        "place": place_id,
    }


def encode(message: dict) -> str:
    """Compact JSON, as Rails sent it; non-ASCII kept as UTF-8."""
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False)
