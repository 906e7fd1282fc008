"""Replay a place from its database record with the engine, for checking the record."""

from __future__ import annotations

import json

from daifugo import place as engine
from daifugo.cards import parse_card, sorted_ids
from daifugo.deal import game_rng
from places.models import Game, Hand, Place, PlaceEvent, Turn


def wire_projection(message: dict) -> tuple:
    """What a wire event says about the game (ids and timestamps aside)."""
    op = message["operation"]
    if op in ("start_turn",):
        cards = [c["card"]["id"] for c in message["place_cards"]]
        return (op, message["player"], cards, message["place_info"])
    if op == "end_turn":
        cards = [c["card"]["id"] for c in message["turn_cards"]]
        return (op, message["player"], cards, message["reset_place"])
    if op == "end_player":
        return (op, message["player"], message["rank"]["rank"]["rank"])
    if op in ("start_game", "end_game"):
        return (op, message["game"]["no"], message["game"]["status"])
    return (op,)


def replay(place_id: int) -> list[tuple]:
    """The engine's events for the place's recorded actions, projected like the wire.

    Needs a seeded place. Also checks that the recorded deals are the seed's,
    the hands rows what the engine dealt, and the points the engine's.
    """
    place = Place.objects.get(pk=place_id)
    names = [p.user.username for p in place.players.order_by("seat").select_related("user")]
    turns = {g.no: list(Turn.objects.filter(game=g).order_by("no")) for g in place.games.all()}
    state = engine.new_place(place.game_count, len(names))
    out: list[tuple] = []
    seed = place.seed or None

    def emit(events):
        for e in events:
            op = e.operation
            if op == "start_turn":
                out.append(
                    (op, names[e.seat], list(e.table), "Revolution" if e.revolution else "Nomal")
                )
            elif op == "end_turn":
                out.append((op, names[e.seat], list(e.cards), e.reset))
            elif op == "end_player":
                out.append((op, names[e.seat], e.rank))
            elif op == "start_game":
                out.append((op, e.game_no, 0))
            elif op == "end_game":
                out.append((op, e.game_no, 1))
            else:
                out.append((op,))

    while state.phase != engine.OVER:
        if state.needs_action:
            game = state.game
            turn = turns[game.game_no][game.turn_no - 1]
            assert turn.player.seat == game.turn
            if turn.outcome == Turn.Outcome.TIMEOUT:
                state, _, events = engine.time_out(state, game.turn)
            else:
                tokens = [parse_card(c) for c in turn.submitted]
                state, _, events = engine.act(state, game.turn, tokens)
        else:
            state, events, deal = engine.step(state, lambda no: game_rng(seed, no))
            if deal is not None:
                game_row = Game.objects.get(place=place, no=state.game_no)
                hands = Hand.objects.filter(game=game_row).order_by("player__seat")
                assert [h.dealt for h in hands] == [sorted_ids(d) for d in deal.dealt]
                assert [h.after_exchange for h in hands] == [sorted_ids(d) for d in deal.hands]
        emit(events)
    assert state.points == tuple(place.engine_state["place"]["points"])
    return out


def logged(place_id: int) -> list[tuple]:
    return [
        wire_projection(json.loads(m))
        for m in PlaceEvent.objects.filter(place_id=place_id)
        .order_by("seq")
        .values_list("message", flat=True)
    ]
