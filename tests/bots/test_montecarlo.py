"""The montecarlo strategy: legal moves in both profiles, and stronger than random."""

from __future__ import annotations

import pytest

from bots import strategies
from bots.arena import Run, play_place, play_uecda_place
from bots.strategies import (
    MONTECARLO_WIDE,
    STRATEGIES,
    Budget,
    decide_by_playouts,
    give_loose,
    names_for,
    plausible,
    resolve,
)
from daifugo import evaluate as ev
from daifugo import uecda as u
from daifugo.infoset import observe
from daifugo.legal import legal_plays
from daifugo.rules import UECDA, UECDA_NAME
from daifugo.uecda_legal import leads
from daifugo.view import BOOK_2011, BOOK_UECDA, View, answer_2011
from tests.daifugo.test_evaluate import midgame_uecda

FAST = "montecarlo@40"  # 40 playouts a decision: repeatable, quick


def test_montecarlo_is_a_house_strategy_of_both_profiles_with_a_budget() -> None:
    assert "montecarlo" in STRATEGIES and "montecarlo" in names_for(BOOK_UECDA)
    assert callable(resolve(FAST, 1)) and callable(resolve("montecarlo@50ms", 1, BOOK_UECDA))
    assert Budget.parse("500") == Budget(playouts=500)
    assert Budget.parse("100ms") == Budget(ms=100.0)
    for bad in ("0", "-3", "fast", "ms", "0ms"):
        with pytest.raises(ValueError, match="budget"):
            resolve(f"montecarlo@{bad}", 1)


def test_it_answers_only_moves_tndhms_accepts_and_respects_the_lock() -> None:
    seen: list = []
    mc = resolve(FAST, 3, BOOK_UECDA)

    def watched(view: View):
        answer = mc(view)
        seen.append((view, answer))
        return answer

    strategies = [watched, *(resolve("random", i, BOOK_UECDA) for i in range(4))]
    ranks: list = []
    rejected = play_uecda_place(strategies, 4, "mc-legal", ranks.append, pytest.fail)
    assert len(ranks) == 4 and rejected[0].total() == 0
    assert seen and all(v.info is not None for v, _ in seen)
    for view, answer in seen:
        assert answer is None or answer in view.moves
        if answer is not None and view.locked and answer.kind != u.JOKER_SINGLE:
            assert u.lock_suit(UECDA, answer) == u.lock_suit(UECDA, view.stage)


def test_it_plays_legal_2011_moves_and_misses_only_with_nothing_legal() -> None:
    mc = resolve(FAST, 5)
    calls: list = []

    def watched(view: View):
        answer = BOOK_2011.answer(view, mc(view))
        calls.append((view.hand, view.table, view.revolution, view.info, answer))
        return answer

    watched.wants_info = True  # type: ignore[attr-defined]
    strategies = [watched, *(resolve("random", i) for i in range(4))]
    ranks: list = []
    misses = play_place(strategies, 3, "mc-legal", ranks.append, pytest.fail)
    assert len(ranks) == 3 and calls and all(c[3] is not None for c in calls)
    for hand, table, revolution, _, answer in calls:
        plays = [p.mask for p in legal_plays(hand, table, revolution)]
        if answer is None:
            assert table is not None
        elif plays:
            assert answer in plays
        else:
            assert answer == hand and table is None  # nothing legal to lead: a miss
    assert set(misses[0]) <= {"FORBIDDEN_FINISH"}


def test_without_an_information_set_it_guesses_one_and_still_plays_legally() -> None:
    mc = resolve(FAST, 2, BOOK_UECDA)
    hand = u.parse_hand("S3H3D9SAJ3")
    stage = u.move_of_text("C5")
    view = View(BOOK_UECDA, hand, stage, False, [u.move_of_text("D9"), u.move_of_text("SA")])
    assert mc(view) in (None, *view.moves)
    mc2011 = resolve(FAST, 2)
    hand = 1 << 3 | 1 << 20  # ♠3, ♥7
    assert answer_2011(mc2011, hand, None, False) in (1 << 3, 1 << 20)


@pytest.mark.parametrize("rules", ["daihinmin-2011", UECDA_NAME])
def test_it_beats_random_players_over_a_seeded_set(rules: str) -> None:
    run = Run([FAST, "random", "random", "random", "random"], games=10, seed=2, rules=rules)
    run.games_per_place = 5
    mc, *randoms = run.play()
    mean_random = sum(sum(e.points) for e in randoms) / sum(e.games for e in randoms)
    assert mc.interval().mean > mean_random + 1


def cards(*cells: tuple[int, int]) -> int:
    """A mask of real cards by (row, column): row 0 ♠ … 3 ♣, column 1 the 3s … 13 the 2s."""
    return sum(1 << u.card_of(row, col) for row, col in cells)


def test_a_rich_montecarlo_gives_back_loose_weak_cards_and_keeps_its_shape() -> None:
    give = resolve(FAST, 1, BOOK_UECDA).give  # type: ignore[attr-defined]
    assert give is give_loose
    pair_of_3s = cards((0, 1), (1, 1))
    stair = cards((2, 3), (2, 4), (2, 5))  # ♦5 ♦6 ♦7
    eight, loose_9, loose_10, king = cards((0, 6)), cards((1, 7)), cards((3, 8)), cards((0, 11))
    hand = pair_of_3s | stair | eight | loose_9 | loose_10 | king | u.JOKER_BIT
    assert give(hand, 2) == loose_9 | loose_10  # not the 3s, the stair or the 8
    assert give(hand, 1) == loose_9
    # no loose card up to the 10s: its weakest, as tndhms's fallback would choose
    tight = pair_of_3s | stair | eight | king | u.JOKER_BIT
    assert give(tight, 2) == u.weakest(tight, 2) == pair_of_3s
    # one loose card: it, then the weakest of the rest
    assert give(tight | loose_10, 2) == loose_10 | u.weakest(tight, 1)


def test_a_wide_decision_leaves_out_the_joker_in_combinations_but_a_finish() -> None:
    hand = cards((0, 1), (1, 2), (2, 3), (3, 4), (0, 5), (1, 7), (2, 9)) | u.JOKER_BIT
    moves = leads(hand)
    assert len(moves) > MONTECARLO_WIDE
    kept = plausible(moves, hand)
    assert kept and all(not m.twos or m.kind == u.JOKER_SINGLE for m in kept)
    assert [m for m in moves if m not in kept] == [
        m for m in moves if m.twos and m.kind in (u.GROUP, u.STAIR)
    ]
    # a finish is kept, and a narrow decision keeps every candidate
    pair = cards((0, 1)) | u.JOKER_BIT
    assert plausible(leads(pair), pair) == list(leads(pair))
    assert plausible(moves[:MONTECARLO_WIDE], hand) == list(moves[:MONTECARLO_WIDE])


def test_the_policys_own_move_stands_unless_another_is_clearly_better(monkeypatch) -> None:
    position, played = midgame_uecda(4, 3)
    info = observe(position, position.turn, played)
    found = ev.evaluate(info, 30, 9)
    top = ev.best(found)
    worse = [c for c in found if c.move != top.move]
    assert worse
    default = min(worse, key=lambda c: c.points).move  # the worst of them
    budget = Budget(playouts=30 * len(found))
    monkeypatch.setattr(strategies, "MONTECARLO_DEVIATE_Z", 0.0)
    assert decide_by_playouts(info, budget, 9, default) == top.move
    monkeypatch.setattr(strategies, "MONTECARLO_DEVIATE_Z", 1e9)  # never clearly better
    assert decide_by_playouts(info, budget, 9, default) == default
    # a pass is a default like any other; no default: the best
    assert decide_by_playouts(info, budget, 9, None) in (None, top.move)
    assert decide_by_playouts(info, budget, 9) == top.move


def test_a_time_budget_plays_its_floor_of_deals_however_slow_the_machine(monkeypatch) -> None:
    position, played = midgame_uecda(7, 2)
    info = observe(position, position.turn, played)
    seen: list = []
    evaluate = ev.evaluate

    def watched(*args, **kwargs):
        seen.append(evaluate(*args, **kwargs))
        return seen[-1]

    monkeypatch.setattr(ev, "evaluate", watched)
    cpu = iter(range(10**9))  # a second of CPU between two looks at the clock
    monkeypatch.setattr(ev.time, "thread_time", lambda: float(next(cpu)))
    decide_by_playouts(info, Budget(ms=0.001), 5)
    (found,) = seen
    assert max(c.playouts for c in found) == strategies.MONTECARLO_FLOOR_DEALS
