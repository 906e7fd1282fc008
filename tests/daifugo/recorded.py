"""Records (format version 1) of places played by the engine alone, for the replay tests.

The players choose at random among legal plays and passes, and now and then miss
(a card not held, a card written twice, a pass on an empty table), let the time
run out, or write a joker in capitals, so that the records hold every kind of turn.
"""

from __future__ import annotations

import random

from daifugo import place as engine
from daifugo.cards import format_card, parse_card, sorted_ids
from daifugo.deal import game_rng
from daifugo.legal import legal_plays
from daifugo.place import PlaceState
from daifugo.plays import Miss
from daifugo.replay import FORMAT, RULES, VERSION, order_name

NAMES = ("alice", "bob", "charlie", "dave", "eve")


def written(mask: int) -> list[str]:
    return [format_card(c) for c in sorted_ids(mask)]


def choose(state: PlaceState, rng: random.Random) -> list[str] | None:
    """What the seat to act writes; None: it lets the time run out."""
    game = state.game
    hand = game.hands[game.turn]
    roll = rng.random()
    if roll < 0.02:
        return None
    if roll < 0.04:
        others = [c for s, h in enumerate(game.hands) if s != game.turn for c in sorted_ids(h)]
        return [format_card(rng.choice(others))]  # CARD_NOT_HELD
    if roll < 0.05:
        card = format_card(sorted_ids(hand)[0])
        return [card, card]  # DUPLICATE_CARD, or CARD_NOT_HELD for two jokers of one
    if roll < 0.06 and game.table is None:
        return []  # PASS_ON_LEAD
    options = legal_plays(hand, game.table, game.revolution)
    n = len(options) + (game.table is not None)
    if n == 0:
        return written(hand)  # nothing legal: a miss
    i = rng.randrange(n)
    if i == len(options):
        return []
    cards = written(options[i].mask)
    return ["JOKER" if c == "joker" and rng.random() < 0.5 else c for c in cards]


def play_place(seed: str | None, games: int, rng_seed: int = 0) -> list[dict]:
    """Every game's record of a place the engine plays to its end."""
    rng = random.Random(rng_seed)
    state = engine.new_place(games)
    records: list[dict] = []
    record: dict = {}
    while state.phase != engine.OVER:
        if state.needs_action:
            seat, turn = state.game.turn, state.game.turn_no
            cards = choose(state, rng)
            if cards is None:
                state, result, _ = engine.time_out(state, seat)
            else:
                state, result, _ = engine.act(state, seat, [parse_card(c) for c in cards])
            timed_out = result.reason == Miss.TIMEOUT
            record["actions"].append(
                {
                    "turn": turn,
                    "seat": seat,
                    "cards": [] if cards is None else cards,
                    "verdict": "timeout" if timed_out else result.outcome,
                    "reason": result.reason,
                    "ms": rng.randrange(10_000),
                    "reset": result.reset,
                }
            )
            continue
        state, _, deal = engine.step(state, lambda no: game_rng(seed, no))
        if deal is not None:
            record = {
                "format": FORMAT,
                "version": VERSION,
                "rules": RULES,
                "place": {"id": 1, "title": "engine", "games": games},
                "game": state.game_no,
                "seed": seed,
                "players": [{"seat": s, "name": n} for s, n in enumerate(NAMES)],
                "dealt": [written(h) for h in deal.dealt],
                "exchange": [
                    {"from": m.giver, "to": m.receiver, "cards": [format_card(c) for c in m.cards]}
                    for m in deal.exchanges
                ],
                "hands": [written(h) for h in deal.hands],
                "actions": [],
            }
        elif state.phase == engine.BETWEEN_GAMES and state.game is not None and record:
            ranks = list(state.game.ranks)
            record.update(
                ranks=ranks,
                points=[engine.points_for(r, len(ranks)) for r in ranks],
                order=order_name(state.game.revolution),
            )
            records.append(record)
            record = {}
    return records
