"""Check a stream of wire events against the engine, from the events and the seed alone.

A seeded place deals the same cards every time, so the engine can replay it
from what any spectator saw: each ``end_turn`` says what was played (cards, a
pass, or with an ``end_player`` before it and no cards, a miss). Every event
the server sent must be the one the engine produces at that point.
"""

from __future__ import annotations

from daifugo import place as engine
from daifugo.cards import mask_of
from daifugo.deal import game_rng


def _project_engine(e, names: list[str]) -> tuple:
    op = e.operation
    if op == "start_turn":
        return (op, names[e.seat], list(e.table), "Revolution" if e.revolution else "Nomal")
    if op == "end_turn":
        return (op, names[e.seat], list(e.cards), e.reset)
    if op == "end_player":
        return (op, names[e.seat], e.rank)
    if op in ("start_game", "end_game"):
        return (op, e.game_no)
    return (op,)


def _project_wire(m: dict) -> tuple:
    op = m["operation"]
    if op == "start_turn":
        return (op, m["player"], [c["card"]["id"] for c in m["place_cards"]], m["place_info"])
    if op == "end_turn":
        return (op, m["player"], [c["card"]["id"] for c in m["turn_cards"]], m["reset_place"])
    if op == "end_player":
        return (op, m["player"], m["rank"]["rank"]["rank"])
    if op in ("start_game", "end_game"):
        return (op, m["game"]["no"])
    return (op,)


def check_stream(
    messages: list[dict], names: list[str], game_count: int, seed: str
) -> PlaceSummary:
    """Assert that ``messages`` (one place's events, in order) are the engine's; return a summary."""
    state = engine.new_place(game_count, len(names))
    seat_of = {n: i for i, n in enumerate(names)}
    i = 0
    turns = 0
    while state.phase != engine.OVER:
        if state.needs_action:
            # the player's action, read from the wire: the events up to end_turn
            j = i
            while messages[j]["operation"] != "end_turn":
                j += 1
            end_turn = messages[j]
            missed = any(m["operation"] == "end_player" for m in messages[i:j])
            seat = seat_of[end_turn["player"]]
            cards = mask_of(c["card"]["id"] for c in end_turn["turn_cards"])
            if cards:
                state, _, events = engine.play_mask(state, seat, cards)
            elif missed:
                state, _, events = engine.time_out(state, seat)  # same effect as any miss
            else:
                state, _, events = engine.act(state, seat, ())
            turns += 1
        else:
            state, events, _ = engine.step(state, lambda no: game_rng(seed, no))
        for e in events:
            expected = _project_engine(e, names)
            got = _project_wire(messages[i])
            assert got == expected, f"event {i}: server sent {got}, engine says {expected}"
            i += 1
    assert i == len(messages), f"{len(messages) - i} events after end_place"
    return PlaceSummary(turns=turns, points=state.points)


class PlaceSummary:
    def __init__(self, turns: int, points: tuple[int, ...]):
        self.turns = turns
        self.points = points
