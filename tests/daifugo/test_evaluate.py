"""The evaluator: information sets, consistent deals, seeded and hidden-hand-blind answers."""

from __future__ import annotations

import dataclasses
import itertools
import math
import random
import time
from concurrent.futures import ProcessPoolExecutor

import pytest

from daifugo import game as g
from daifugo import place as pl
from daifugo import uecda as u
from daifugo.cards import ids_of
from daifugo.deal import game_rng
from daifugo.evaluate import (
    DEEPEST,
    RACE_FROM,
    Deadline,
    best,
    candidates,
    contenders,
    default_policy,
    evaluate,
    paths_of,
)
from daifugo.infoset import InconsistentInfo, deal_hidden, exchange_seen, observe
from daifugo.rules import UECDA
from daifugo.solve import apply, is_open, moves
from daifugo.uecda_legal import single


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
    assert [c.by_deal for c in shared] == [c.by_deal for c in alone]  # deal by deal, in order
    assert all(len(c.by_deal) == 8 for c in alone)


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


def exchanged_game(seed: int) -> tuple[u.UecdaGame, list[u.Exchange], tuple[int, ...]]:
    """The second game of a seeded match, after its exchange, and the ranks it followed."""
    rng = random.Random(seed)
    match = u.UecdaMatch(UECDA)
    deal = u.deal_game(match, rng)
    game, _ = u.start_game(deal, UECDA)
    while game.phase == u.TURN:
        game = apply(game, game.turn, rng.choice(moves(game, game.turn)))
    if game.phase == u.DRAW:
        game = u.settle_draw(game, u.draw_order(game, rng))
    match = u.finish_game(match, deal, game)
    deal = u.deal_game(match, rng)
    game, exchanges = u.start_game(deal, UECDA)
    assert deal.exchange_ranks is not None
    return game, exchanges, deal.exchange_ranks


def test_stronger_than_is_what_a_tribute_shows_its_giver_did_not_hold() -> None:
    joker, spade_2, heart_2, spade_a = u.JOKER, u.card_of(0, 13), u.card_of(1, 13), u.card_of(0, 12)
    assert u.stronger_than(1 << joker) == 0
    assert u.stronger_than(1 << spade_2) == 1 << joker
    # ♠2 and ♠A given: the giver held no joker and no other 2
    others_2 = sum(1 << u.card_of(r, 13) for r in (1, 2, 3))
    assert u.stronger_than(1 << spade_2 | 1 << spade_a) == 1 << joker | others_2
    assert not u.stronger_than(1 << heart_2) & (1 << heart_2 | 1 << spade_a)


@pytest.mark.parametrize("seed", range(6))
def test_a_tribute_received_bars_stronger_cards_from_its_givers_dealt_hands(seed: int) -> None:
    game, exchanges, ranks = exchanged_game(seed)
    given, paid = exchange_seen(5, ((x.giver, x.receiver, x.cards) for x in exchanges), ranks)
    daifugo, daihinmin = ranks.index(1), ranks.index(5)
    assert [g for g, _ in paid[daifugo]] == [daihinmin]
    assert not any(paid[p] for p in range(5) if ranks[p] > 2)  # only the rich receive tribute
    info = observe(game, daifugo, 0, given[daifugo], paid[daifugo])
    barred = info.barred[daihinmin]
    tribute = paid[daifugo][0][1]
    assert barred == u.stronger_than(tribute) & info.unseen & ~info.known[daihinmin]
    assert not barred & game.hands[daihinmin]  # true of the real hand: a sound inference
    for i in range(40):
        hands = deal_hidden(info, random.Random(i))
        assert not hands[daihinmin] & barred
        assert [h.bit_count() for h in hands] == [h.bit_count() for h in game.hands]
    # without the tribute the same seeds deal as before: nothing barred, nothing moved
    blind = observe(game, daifugo, 0, given[daifugo])
    assert blind.barred == ()
    assert deal_hidden(blind, random.Random(3)) == deal_hidden(
        dataclasses.replace(info, barred=()), random.Random(3)
    )


def test_each_profile_has_its_default_policy_and_stock_is_uecdas_alone() -> None:
    assert default_policy(uecda=True) == "stock" and default_policy(uecda=False) == "greedy"
    uecda_position, played = midgame_uecda(3, 4)
    info = observe(uecda_position, uecda_position.turn, played)
    assert evaluate(info, playouts=6, seed=2) == evaluate(info, playouts=6, seed=2, policy="stock")
    assert evaluate(info, playouts=6, seed=2) != evaluate(info, playouts=6, seed=2, policy="greedy")
    position, played = midgame_2011(3, 4)
    with pytest.raises(ValueError, match="stock"):
        evaluate(observe(position, position.turn, played), playouts=2, policy="stock")


def test_a_racing_decision_leaves_the_candidates_behind_and_picks_among_the_most_played() -> None:
    position, played = midgame_uecda(2, 0)  # a lead of a whole hand: many candidates
    info = observe(position, position.turn, played)
    found = evaluate(info, 60, seed=1, race=True)
    assert evaluate(info, 60, seed=1, race=True) == found  # seeded, as without a race
    counts = [c.playouts for c in found]
    assert len(found) > 5 and min(counts) >= RACE_FROM and max(counts) == 60
    assert min(counts) < 60  # those clearly behind were left
    chosen = best(found)
    assert chosen.playouts == 60
    assert chosen == max((c for c in found if c.playouts == 60), key=lambda c: c.points)
    # without a race every candidate has every playout, and a deadline races nothing
    assert {c.playouts for c in evaluate(info, 8, seed=1)} == {8}
    timed = evaluate(info, 8, seed=1, deadline=Deadline.after(60))
    assert timed == evaluate(info, 8, seed=1)


def test_some_candidates_alone_are_evaluated_as_among_all() -> None:
    position, played = midgame_uecda(5, 12)
    info = observe(position, position.turn, played)
    every = evaluate(info, playouts=6, seed=3)
    some = evaluate(info, playouts=6, seed=3, among=candidates(info)[:2])
    assert some == every[:2]  # the same deals and choices for each
    not_held = next(c for c in range(1, u.JOKER) if not info.hand >> c & 1)
    for bad in ([], [single(not_held)]):
        with pytest.raises(ValueError, match="among"):
            evaluate(info, playouts=2, among=bad)


@pytest.mark.parametrize("workers", [1, 2])
def test_a_focus_goes_to_the_contenders_and_the_move_judged_on_the_deals_that_follow(workers):
    position, played = midgame_uecda(8, 2)  # no move keeps the lead: a path a candidate
    info = observe(position, position.turn, played)
    first = evaluate(info, playouts=12, seed=3)
    ahead = contenders([c.by_deal for c in first])
    behind = [c for c in range(len(first)) if c not in ahead]
    assert len(ahead) >= 1 and behind  # a decision with moves clearly behind
    judged = first[behind[0]].move
    with ProcessPoolExecutor(2) as pool:
        focused = evaluate(
            info, playouts=12, seed=3, focus=60, also=(judged,), pool=pool, workers=workers
        )
    more = -(-60 // (len(ahead) + 1))
    for c, (before, after) in enumerate(zip(first, focused, strict=True)):
        extra = more if c in ahead or c == behind[0] else 0
        assert after.playouts == len(after.by_deal) == 12 + extra
        assert after.by_deal[:12] == before.by_deal  # the same first deals, then others


def test_a_deadline_past_still_plays_its_floor_of_deals() -> None:
    position, played = midgame_uecda(7, 2)
    info = observe(position, position.turn, played)
    gone = Deadline(at=0.0, floor=5)  # its clock (CPU) is past it from the start
    assert {c.playouts for c in evaluate(info, 1000, seed=1, deadline=gone)} == {5}
    assert {c.playouts for c in evaluate(info, 3, seed=1, deadline=gone)} == {3}


def test_a_time_budget_counts_the_cpu_of_its_thread_not_the_wall_clock(monkeypatch) -> None:
    """A machine so busy that a whole second of wall time passes between two looks at the
    clock: the decision still gets its CPU time's playouts."""
    wall = iter(range(0, 10**9, 1))
    monkeypatch.setattr(time, "perf_counter", lambda: float(next(wall)))
    monkeypatch.setattr(time, "monotonic", lambda: float(next(wall)))
    position, played = midgame_uecda(7, 2)
    info = observe(position, position.turn, played)
    found = evaluate(info, 10**6, seed=1, deadline=Deadline.after(0.05))
    assert min(c.playouts for c in found) > 1  # as many as 50 ms of CPU allow


def keeps_the_lead_somewhere(info) -> tuple | None:
    """A move of the decision that keeps the lead, when its paths stop short of
    ``DEEPEST`` (played out as far as the decision after it would be)."""
    paths = paths_of(info, candidates(info))
    deeper = [p for p in paths if len(p) > 1]
    return deeper[0][0] if deeper and max(map(len, paths)) < DEEPEST else None


@pytest.mark.parametrize("profile", ["2011", "uecda"])
def test_a_move_that_keeps_the_lead_is_worth_the_best_of_the_decision_that_follows(profile):
    """The one-move-deeper rule, on random positions: an 8-cut leaves its player to lead
    again knowing what it knew, so it is worth the best move of that next decision, valued
    on the same deals."""
    make = midgame_2011 if profile == "2011" else midgame_uecda
    checked = 0
    for seed, plies in itertools.product(range(40), (0, 8)):
        if checked == 6:
            break
        position, played = make(seed, plies)
        seat = position.turn
        info = observe(position, seat, played)
        move = keeps_the_lead_somewhere(info)
        if move is None:
            continue
        after = apply(position, seat, move)
        cards = move.cards if isinstance(move, u.Move) else move
        value = {c.move: c.points for c in evaluate(info, 6, seed=5)}[move]
        following = evaluate(observe(after, seat, played | cards), 6, seed=5)
        assert value == max(c.points for c in following)
        checked += 1
    assert checked == 6


def test_the_eight_cut_that_leads_to_a_sure_win_is_worth_more_than_the_two() -> None:
    """Issue 46's position: a player holding ♣8 ♣J ♠2 leads ♣8 (an 8-cut), then ♠2, then
    ♣J to go out first. Valued as the stock policy would follow ♣8, it lost a point to ♠2
    first; searched one move deeper it is worth at least as much."""
    mine = sum(u.move_of_text(t).cards for t in ("C8", "CJ", "S2"))
    rng = random.Random(46)
    rest = [1 << c for c in range(53) if not mine >> c & 1 and (1 << c) != u.JOKER_BIT]
    rng.shuffle(rest)
    others = [sum(rest[k * 6 : k * 6 + 6]) for k in range(4)]  # the joker played already
    game = u.opening(UECDA, (mine, *others), *u.play_order(range(5)), 0)
    played = (1 << 53) - 1 & ~mine & ~sum(others)  # every other card is out
    info = observe(game, 0, played)
    found = {
        c.move.text() if c.move is not None else "pass": c for c in evaluate(info, 200, seed=1)
    }
    eight, two = found["C8"], found["S2"]
    assert eight.points >= two.points - 2 * math.hypot(eight.points_se, two.points_se)
    assert eight.points > 4.5  # ♠2 next is unbeatable (no joker left), then ♣J: out first
