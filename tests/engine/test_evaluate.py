"""The evaluator: information sets, consistent deals, seeded and hidden-hand-blind answers."""

from __future__ import annotations

import random
from concurrent.futures import ProcessPoolExecutor

import pytest

from places.engine import game as g
from places.engine import place as pl
from places.engine import uecda as u
from places.engine.cards import ids_of
from places.engine.deal import game_rng
from places.engine.evaluate import candidates, evaluate
from places.engine.infoset import InconsistentInfo, deal_hidden, observe
from places.engine.rules import UECDA
from places.engine.solve import apply, is_open, moves


def midgame_2011(seed: int, plies: int) -> tuple[g.GameState, int]:
    """A 2011 game after ``plies`` random moves, and the cards played so far."""
    state = pl.new_place(1)
    while not state.needs_action:
        state, _, _ = pl.step(state, lambda no: game_rng(f"eval:{seed}", no))
    game = state.game
    return _advance(game, seed, plies)


def midgame_uecda(seed: int, plies: int, game_no: int = 1) -> tuple[u.UecdaGame, int]:
    rng = random.Random(seed)
    match = u.UecdaMatch(UECDA)
    for _ in range(game_no - 1):
        deal = u.deal_game(match, rng)
        played, _ = u.start_game(deal, UECDA)
        while played.phase == u.TURN:
            ms = moves(played, played.turn)
            played = apply(played, played.turn, rng.choice(ms))
        if played.phase == u.DRAW:
            played = u.settle_draw(played, u.draw_order(played, rng))
        match = u.finish_game(match, deal, played)
    deal = u.deal_game(match, rng)
    game, _ = u.start_game(deal, UECDA)
    return _advance(game, seed, plies)


def _advance(game, seed: int, plies: int):
    rng = random.Random(seed)
    played = 0
    for _ in range(plies):
        seat = game.turn
        options = moves(game, seat)
        move = rng.choice(options)
        after = apply(game, seat, move)
        if not is_open(after):
            break
        if move is not None:
            played |= game.hands[seat] & ~after.hands[seat]
        game = after
    return game, played


def shuffled_unseen(position, seat: int, seed: int):
    """The same position with the cards the seat cannot see dealt differently (same counts)."""
    others = [s for s in range(len(position.hands)) if s != seat]
    pool = [c for s in others for c in ids_of(position.hands[s])]
    random.Random(seed).shuffle(pool)
    hands = list(position.hands)
    at = 0
    for s in others:
        n = hands[s].bit_count()
        hands[s] = sum(1 << c for c in pool[at : at + n])
        at += n
    if isinstance(position, u.UecdaGame):
        new = position.copy()
        new.hands = tuple(hands)
        return new
    return position.replace(hands=tuple(hands))


@pytest.mark.parametrize("profile", ["2011", "uecda"])
def test_positions_differing_only_in_unseen_cards_get_identical_answers(profile: str) -> None:
    make = midgame_2011 if profile == "2011" else midgame_uecda
    position, played = make(7, 9)
    seat = position.turn
    other = shuffled_unseen(position, seat, 99)
    assert other.hands != position.hands and other.hands[seat] == position.hands[seat]
    a = evaluate(observe(position, seat, played), playouts=12, seed=5)
    b = evaluate(observe(other, seat, played), playouts=12, seed=5)
    assert a == b
    assert len(a) >= 2


@pytest.mark.parametrize("profile", ["2011", "uecda"])
def test_the_same_seed_gives_the_same_numbers_another_seed_others(profile: str) -> None:
    make = midgame_2011 if profile == "2011" else midgame_uecda
    position, played = make(3, 4)
    info = observe(position, position.turn, played)
    first = evaluate(info, playouts=10, seed=1)
    assert evaluate(info, playouts=10, seed=1) == first
    assert evaluate(info, playouts=10, seed=2) != first
    assert all(c.playouts == 10 for c in first)
    assert [c.move for c in first] == candidates(info)


def test_worker_processes_give_the_same_numbers() -> None:
    position, played = midgame_uecda(11, 6)
    info = observe(position, position.turn, played)
    alone = evaluate(info, playouts=8, seed=4)
    with ProcessPoolExecutor(2) as pool:
        shared = evaluate(info, playouts=8, seed=4, pool=pool, workers=2)
    assert shared == alone


def test_candidates_are_the_referees_legal_moves_and_the_pass() -> None:
    position, played = midgame_uecda(5, 12)
    info = observe(position, position.turn, played)
    assert candidates(info) == moves(position, position.turn)
    assert candidates(info)[-1] is None


@pytest.mark.parametrize("profile", ["2011", "uecda"])
def test_dealt_hands_keep_the_counts_the_seat_own_hand_and_played_cards_out(profile: str) -> None:
    make = midgame_2011 if profile == "2011" else midgame_uecda
    position, played = make(21, 15)
    seat = position.turn
    info = observe(position, seat, played)
    for i in range(50):
        hands = deal_hidden(info, random.Random(i))
        assert hands[seat] == position.hands[seat]
        assert [h.bit_count() for h in hands] == [h.bit_count() for h in position.hands]
        union = 0
        for h in hands:
            assert not union & h
            union |= h
        assert not union & played


def test_cards_given_in_the_exchange_stay_with_the_receiver_until_played() -> None:
    position, played = midgame_uecda(8, 0, game_no=2)
    seat = position.turn
    receiver = (seat + 1) % 5
    given = position.hands[receiver] & -position.hands[receiver]  # one card it holds
    info = observe(position, seat, played, given=[(receiver, given)])
    assert all(deal_hidden(info, random.Random(i))[receiver] & given for i in range(30))
    gone = observe(position, seat, played | given, given=[(receiver, given)])
    assert gone.known[receiver] == 0


def test_known_cards_that_cannot_fit_are_refused() -> None:
    position, played = midgame_uecda(8, 0)
    seat = position.turn
    receiver = (seat + 1) % 5
    too_many = position.hands[(seat + 2) % 5] | position.hands[receiver]
    info = observe(position, seat, played, given=[(receiver, too_many)])
    with pytest.raises(InconsistentInfo):
        deal_hidden(info, random.Random(0))


def test_a_decision_not_at_the_seats_turn_is_refused() -> None:
    position, played = midgame_2011(3, 2)
    info = observe(position, (position.turn + 1) % 5, played)
    with pytest.raises(ValueError, match="turn"):
        evaluate(info, playouts=2)
