"""What a bot knows of the game, kept from the public events alone."""

from __future__ import annotations

from dataclasses import dataclass, field

from daifugo.cards import mask_of
from daifugo.plays import Play, read_play


def card_ids(cards: list[dict]) -> list[int]:
    """Card ids of the ``[{"card": {...}}]`` lists of events and get_hand."""
    return [c["card"]["id"] for c in cards]


@dataclass
class TableView:
    """The trick on the table, the order in force, and what has been played.

    The kind of one card with two jokers depends on how it was played (a group
    when it led, the table's kind when it followed), which the cards alone do
    not say: following the events keeps it.
    """

    place_id: int
    me: str
    table: Play | None = None
    revolution: bool = False
    played: int = 0  # every card played in this game, as a mask
    players: list[str] = field(default_factory=list)
    game_no: int = 0

    def on_event(self, event: dict) -> None:
        op = event.get("operation")
        if op == "start_game":
            self.table, self.revolution, self.played = None, False, 0
            self.game_no = event["game"]["no"]
        elif op == "start_turn":
            self.revolution = event["place_info"] == "Revolution"
            on_table = mask_of(card_ids(event["place_cards"]))
            if not on_table:
                self.table = None
            elif self.table is None or self.table.mask != on_table:
                # joined mid-trick, or missed an event: the table is what the event says
                self.table = self._read(on_table)
        elif op == "end_turn":
            cards = mask_of(card_ids(event["turn_cards"]))
            self.played |= cards
            if event["reset_place"]:
                self.table = None
            elif cards:
                self.table = self._read(cards)

    def _read(self, cards: int) -> Play | None:
        """The play these cards make on this table (following, the table's kind comes first)."""
        readings = read_play(cards, self.revolution)
        if self.table is not None:
            readings = tuple(p for p in readings if p.kind == self.table.kind) or readings
        return readings[0] if readings else None
