"""The exact solver of two-player endings as the evaluator's oracle (issue 37, item 2).

Endings come from seeded random games, stopped when two players are left and the
seat to move can know both hands (every other card was seen played). The
evaluator, which sees only the seat's information set, must pick a move the
solver values as the best, wherever their values differ by more than three
standard errors of the evaluator.

The UECda endings are played without the 20-pass draw (``pass_draw=0``, every
other rule tndhms's): with it, a losing player on lead can pass twenty times for
a drawn game, half a point, which the solver finds and the playouts' policy does
not look for (their endings of at most ``EXACT_CARDS`` cards are solved exactly,
draws included).
"""

from __future__ import annotations

import math
import random

import pytest

from daifugo import place as pl
from daifugo import uecda as u
from daifugo.deal import game_rng
from daifugo.evaluate import EXACT_CARDS, best, evaluate
from daifugo.infoset import observe
from daifugo.rules import UECDA
from daifugo.solve import apply, holders, is_open, moves, solve

ENDINGS = 100  # per profile
PLAYOUTS = 150
#: Endings this large are played out by the policy before the solver takes over.
MAX_CARDS = EXACT_CARDS + 4
NO_DRAW = UECDA.but(pass_draw=0)


def _start(profile: str, seed: int):
    if profile == "2011":
        state = pl.new_place(1)
        while not state.needs_action:
            state, _, _ = pl.step(state, lambda no: game_rng(f"oracle:{seed}", no))
        return state.game
    deal = u.deal_game(u.UecdaMatch(NO_DRAW), random.Random(seed))
    return u.start_game(deal, NO_DRAW)[0]


def endings(profile: str, count: int):
    """(position, seat, played) of ``count`` perfect-information endings, seeded."""
    found = []
    seed = 0
    while len(found) < count:
        seed += 1
        rng = random.Random(seed)
        state = _start(profile, seed)
        played = 0
        while is_open(state):
            left = holders(state)
            seat = state.turn
            if len(left) == 2:
                unseen = state.hands[left[0] if left[1] == seat else left[1]]
                cards = sum(h.bit_count() for h in state.hands)
                if (
                    EXACT_CARDS < cards <= MAX_CARDS
                    and observe(state, seat, played).unseen == unseen
                ):
                    found.append((state, seat, played))
                    break
            move = rng.choice(moves(state, seat))
            after = apply(state, seat, move)
            if move is not None:
                played |= state.hands[seat] & ~after.hands[seat]
            state = after
    return found


@pytest.mark.parametrize("profile", ["2011", "uecda"])
def test_the_evaluators_best_move_is_the_solvers_beyond_the_noise(profile: str) -> None:
    agree = differ_within_noise = 0
    wrong = []
    for i, (state, seat, played) in enumerate(endings(profile, ENDINGS)):
        exact = dict((repr(m), v) for m, v in solve(state, seat))
        found = evaluate(observe(state, seat, played), playouts=PLAYOUTS, seed=i)
        assert sorted(repr(c.move) for c in found) == sorted(exact)
        pick = best(found)
        top = max(found, key=lambda c: exact[repr(c.move)])
        loss = exact[repr(top.move)] - exact[repr(pick.move)]
        noise = 3 * math.hypot(pick.points_se, top.points_se)
        if loss == 0:
            agree += 1
        elif loss <= noise:
            differ_within_noise += 1
        else:
            wrong.append((i, pick.move, top.move, loss, noise))
    print(f"{profile}: {agree} agree, {differ_within_noise} within 3 SE, {len(wrong)} wrong")
    assert wrong == []
