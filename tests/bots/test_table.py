"""What a bot knows of the table, from the public events alone (``bots/table.py``)."""

from __future__ import annotations

from bots.table import TableView
from daifugo.cards import parse_card
from daifugo.plays import Kind
from places.wire.records import event_card


def ids(*written: str) -> list[int]:
    """Card ids of written cards ("joker" is the first joker)."""
    return [parse_card(c) or 53 for c in written]


def start_turn(player: str, *cards: str, revolution: bool = False) -> dict:
    return {
        "player": player,
        "place_cards": [event_card(c) for c in ids(*cards)],
        "place_info": "Revolution" if revolution else "Nomal",
        "operation": "start_turn",
        "place": 1,
    }


def end_turn(player: str, *cards: str, reset: bool = False) -> dict:
    return {
        "player": player,
        "turn_cards": [event_card(c) for c in ids(*cards)],
        "reset_place": reset,
        "operation": "end_turn",
        "place": 1,
    }


def test_a_bot_that_joins_mid_trick_reads_the_table_from_start_turn():
    view = TableView(place_id=1, me="alice")
    view.on_event(start_turn("alice", "1-4", "1-5", "1-6"))  # the first event it sees
    assert view.table is not None
    assert view.table.kind == Kind.STAIR and view.table.size == 3


def test_start_turn_with_an_empty_table_clears_it():
    view = TableView(place_id=1, me="alice")
    view.on_event(start_turn("bob", "2-9"))
    view.on_event(start_turn("alice"))
    assert view.table is None


def test_a_table_followed_from_the_events_keeps_its_kind():
    view = TableView(place_id=1, me="alice")
    view.on_event(start_turn("bob"))
    view.on_event(end_turn("bob", "1-4", "1-5", "1-6"))
    view.on_event(start_turn("carol", "1-4", "1-5", "1-6"))
    view.on_event(end_turn("carol", "2-7", "joker", "2-9"))  # a stair with a joker
    view.on_event(start_turn("alice", "2-7", "joker", "2-9"))
    assert view.table.kind == Kind.STAIR
