"""The rows the 2011 server sent, as dicts in its column order: cards, places, games.

Key order is part of the contract (PROTOCOL.md): every dict is built in wire order.
"""

from __future__ import annotations

from daifugo.cards import MARK, NUMBER
from places.wire.codec import timestamp

#: The 2011 server's card rows carried timestamps; ours are fixed, as the cards are.
CARD_TIMESTAMP = "2011-04-20T13:32:09Z"
#: The order in force as ``place_info`` names it (sic: "Nomal" is the wire's spelling).
NORMAL, REVOLUTION = "Nomal", "Revolution"
ORDERS = (NORMAL, REVOLUTION)


def order_name(revolution: bool) -> str:
    return REVOLUTION if revolution else NORMAL


def event_card(cid: int) -> dict:
    """A card inside an event: every column of the 2011 card row, in column order."""
    return {
        "card": {
            "created_at": CARD_TIMESTAMP,
            "id": cid,
            "joker": cid >= 53,
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
