"""The engine's behaviour pinned: many seeded places, every event, result and state.

A change made for speed must not change what the engine does. The digest below
was computed with the engine of main at ``0d55534`` (before the copies written out
for speed); a change of behaviour, however small, changes it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import random

from bots.strategies import STRATEGIES
from daifugo import place as pl
from daifugo.cards import DECK_MASK
from daifugo.deal import game_rng
from daifugo.legal import legal_plays
from daifugo.view import answer_2011

#: sha256 of every event, result and state of :func:`play_all`, from the engine at 0d55534.
GOLDEN = "31ff82589dca038fb37cc5d7e19c2c9187b876a56f5a9265d94c45a9ad2b3ae4"


def _event(e) -> list:
    return [type(e).__name__, *(getattr(e, f.name) for f in dataclasses.fields(e))]


def play_all(places: int = 12, games: int = 12) -> str:
    digest = hashlib.sha256()

    def note(thing: object) -> None:
        digest.update(json.dumps(thing, sort_keys=True, default=list).encode())

    for no in range(places):
        chooser = random.Random(no)
        samples = [
            STRATEGIES[name](no * 5 + s)
            for s, name in enumerate(["greedy", "shedder", "random", "greedy", "shedder"])
        ]
        state = pl.new_place(games)
        while state.phase != pl.OVER:
            if not state.needs_action:
                state, events, deal = pl.step(state, lambda g, no=no: game_rng(f"golden:{no}", g))
                note([_event(e) for e in events])
                if deal is not None:
                    note(
                        [
                            deal.dealt,
                            deal.hands,
                            [dataclasses.astuple(x) for x in deal.exchanges],
                            deal.first,
                        ]
                    )
            else:
                game = state.game
                seat = game.turn
                hand = game.hands[seat]
                roll = chooser.random()
                if roll < 0.01:
                    state, result, events = pl.time_out(state, seat)
                elif roll < 0.02:  # cards not held
                    state, result, events = pl.play_mask(
                        state, seat, DECK_MASK & ~hand & -(DECK_MASK & ~hand)
                    )
                elif roll < 0.03:  # written cards, a pass on a lead among them
                    state, result, events = pl.act(state, seat, ())
                elif roll < 0.5:
                    choice = answer_2011(samples[seat], hand, game.table, game.revolution)
                    state, result, events = (
                        pl.act(state, seat, ())
                        if choice is None
                        else pl.play_mask(state, seat, choice)
                    )
                else:
                    options = legal_plays(hand, game.table, game.revolution)
                    n = len(options) + (game.table is not None)
                    i = chooser.randrange(n) if n else -1
                    if i < 0:
                        state, result, events = pl.play_mask(state, seat, hand)
                    elif i == len(options):
                        state, result, events = pl.act(state, seat, ())
                    else:
                        state, result, events = pl.play_mask(state, seat, options[i].mask)
                note(dataclasses.astuple(result))
                note([_event(e) for e in events])
            note(state.to_dict())
            assert pl.PlaceState.from_dict(state.to_dict()) == state
    return digest.hexdigest()


def test_the_engine_plays_exactly_as_it_did():
    assert play_all() == GOLDEN
