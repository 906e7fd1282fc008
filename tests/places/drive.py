"""Drive a place through the service layer with players that choose legal plays."""

from __future__ import annotations

import random

from daifugo.cards import format_card, sorted_ids
from daifugo.legal import legal_plays
from daifugo.place import PlaceState
from places import services
from places.models import Place
from places.reads import seats


def engine_state(place_id: int) -> PlaceState:
    return PlaceState.from_dict(Place.objects.get(pk=place_id).engine_state["place"])


def choose(state: PlaceState, rng: random.Random) -> list[str]:
    """Written cards of a random legal action (a pass is [])."""
    game = state.game
    hand = game.hands[game.turn]
    options = legal_plays(hand, game.table, game.revolution)
    n = len(options) + (game.table is not None)
    if n == 0:
        return [format_card(c) for c in sorted_ids(hand)]  # nothing legal: a miss
    i = rng.randrange(n)
    if i == len(options):
        return []
    return [format_card(c) for c in sorted_ids(options[i].mask)]


def play_out(place_id: int, seed: int = 0, max_turns: int = 10_000) -> int:
    """Post legal actions for whoever's turn it is until the place is over."""
    rng = random.Random(seed)
    user_ids = [s.user_id for s in seats.seats_of(place_id)]
    turns = 0
    while Place.objects.get(pk=place_id).state == Place.State.RUNNING and turns < max_turns:
        state = engine_state(place_id)
        if not state.needs_action:
            services.next_turn(place_id)
            continue
        services.post_cards(place_id, user_ids[state.game.turn], choose(state, rng))
        turns += 1
    return turns
