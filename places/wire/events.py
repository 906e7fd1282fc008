"""The WebSocket events of PROTOCOL.md §4, byte-compatible with 2011.

Every message is a dict in wire order, ``operation`` and ``place`` last, encoded
once (``places.wire.codec.compact``) where the change that makes it is saved.
"""

from __future__ import annotations

from places.wire.records import event_card, game_row, order_name, place_row


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
