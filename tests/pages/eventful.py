"""Play a place whose records hold what a replay must show: revolutions, a miss, a time out.

Random legal plays as ``tests.places.drive`` makes them, except that a legal
revolution is always played (else a stair of four or more: the long play that is
no revolution), one turn of game 2 is a miss (the same card twice)
and one turn of game 3 runs out of time. Run in the test's process or, through
``manage.py shell``, on an end-to-end server's database before it starts.
"""

from __future__ import annotations

import random
from datetime import timedelta

from daifugo.cards import format_card, sorted_ids
from daifugo.legal import legal_plays
from daifugo.plays import Kind
from places import services
from places.models import Place
from places.reads import seats
from tests.places.drive import choose, engine_state

#: The game and the turn that miss, and those that time out.
MISS_AT = (2, 3)
TIMEOUT_AT = (3, 5)


def play_out_eventfully(place_id: int, seed: int = 0) -> None:
    rng = random.Random(seed)
    user_ids = [s.user_id for s in seats.seats_of(place_id)]
    while (place := Place.objects.get(pk=place_id)).state == Place.State.RUNNING:
        state = engine_state(place_id)
        if not state.needs_action:
            services.next_turn(place_id)
            continue
        game = state.game
        at = (game.game_no, game.turn_no)
        if at == TIMEOUT_AT:
            services.run_due(place_id, now=place.turn_deadline + timedelta(seconds=1))
            continue
        hand = game.hands[game.turn]
        options = legal_plays(hand, game.table, game.revolution)
        long = [p for p in options if p.is_revolution] or [
            p for p in options if p.kind == Kind.STAIR and p.size >= 4
        ]
        if at == MISS_AT:
            held = format_card(sorted_ids(hand)[0])
            cards = [held, held]  # DUPLICATE_CARD
        elif long:
            cards = [format_card(c) for c in long[0].cards]
        else:
            cards = choose(state, rng)
        services.post_cards(place_id, user_ids[game.turn], cards)
