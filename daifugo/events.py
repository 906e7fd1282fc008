"""What the engine announces, in the order PROTOCOL.md §4 gives.

These are facts about seats and card ids; turning them into the wire format
(user names, database ids, timestamps) is the server's business.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class StartPlace:
    operation = "start_place"


@dataclass(frozen=True, slots=True)
class StartGame:
    game_no: int
    operation = "start_game"


@dataclass(frozen=True, slots=True)
class StartTurn:
    seat: int
    table: tuple[int, ...]  # card ids on the table, weakest first; () when empty
    revolution: bool
    operation = "start_turn"


@dataclass(frozen=True, slots=True)
class EndPlayer:
    seat: int
    rank: int
    operation = "end_player"


@dataclass(frozen=True, slots=True)
class EndTurn:
    seat: int
    cards: tuple[int, ...]  # cards played, weakest first; () for a pass, a miss or a timeout
    reset: bool
    operation = "end_turn"


@dataclass(frozen=True, slots=True)
class EndGame:
    game_no: int
    revolution: bool
    ranks: tuple[int, ...]  # rank of each seat, 1 best
    operation = "end_game"


@dataclass(frozen=True, slots=True)
class EndPlace:
    operation = "end_place"


Event = StartPlace | StartGame | StartTurn | EndPlayer | EndTurn | EndGame | EndPlace
