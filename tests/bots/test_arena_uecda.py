"""The sample strategies by the uecda rules, and ``python -m bots.arena --rules uecda``."""

from __future__ import annotations

import pytest

from bots.arena import Run, main, play_uecda_place
from bots.strategies import give, names_for, resolve
from daifugo import uecda as u
from daifugo.rules import UECDA, UECDA_NAME
from daifugo.view import BOOK_UECDA, View

SAMPLES = ["greedy", "shedder", "random", "random", "greedy"]


def watched(strategy, seen: list):
    """The strategy, noting each view it was shown and what it answered."""

    def choose(view: View):
        answer = strategy(view)
        seen.append((view, answer))
        return answer

    return choose


#: The cheap samples play 30 games here; montecarlo, slower, is held to the same in
#: tests/bots/test_montecarlo.py over fewer games.
CHEAP = sorted(set(names_for(BOOK_UECDA)) - {"montecarlo"})


@pytest.mark.parametrize("name", CHEAP)
def test_each_sample_answers_only_moves_tndhms_accepts_and_respects_the_lock(name):
    seen: list = []
    strategies = [watched(resolve(name, i, BOOK_UECDA), seen) for i in range(5)]
    ranks: list = []
    rejected = play_uecda_place(strategies, 30, "lock", ranks.append, pytest.fail)
    assert len(ranks) == 30 and all(sorted(r) == [1, 2, 3, 4, 5] for r in ranks)
    assert [r.total() for r in rejected] == [0] * 5  # never a submission tndhms refuses
    locked = [(v, a) for v, a in seen if v.locked and a is not None]
    assert locked, "no locked trick was played on in 30 games"
    for view, answer in locked:
        assert answer in view.moves
        if answer.kind != u.JOKER_SINGLE:
            assert u.lock_suit(UECDA, answer) == u.lock_suit(UECDA, view.stage)


def test_the_rich_give_their_weakest_cards_unless_the_strategy_says_otherwise():
    hand = u.parse_hand("S3H3D9SAJ3")  # ♠3 ♥3 ♦9 ♠A and the joker
    greedy = resolve("greedy", 0, BOOK_UECDA)
    assert give(greedy, hand, 2) == u.weakest(hand, 2)
    asked: list = []

    def generous(view):
        return greedy(view)

    def strongest(hand: int, n: int) -> int:
        asked.append(n)
        return u.strongest(hand, n)

    generous.give = strongest
    assert give(generous, hand, 1) == u.strongest(hand, 1)
    asked.clear()
    strategies = [generous] * 5
    play_uecda_place(strategies, 3, "give", lambda ranks: None, pytest.fail)
    assert sorted(asked) == [1, 1, 2, 2]  # games 2 and 3: the daifugo 2, the fugo 1


def test_a_uecda_run_scores_five_to_one_points_a_game():
    entrants = Run(SAMPLES, 40, seed=3, games_per_place=20, rules=UECDA_NAME).play()
    for e in entrants:
        assert e.games == 40 and set(e.points) <= {1, 2, 3, 4, 5}
    assert sum(sum(e.points) for e in entrants) == 40 * 15


def test_the_same_seed_gives_the_same_uecda_games():
    def points(seed: int) -> list[list[int]]:
        return [e.points for e in Run(SAMPLES, 20, seed, rules=UECDA_NAME).play()]

    assert points(5) == points(5) and points(5) != points(6)


def test_the_command_plays_the_uecda_rules(capsys):
    main([*(a for s in SAMPLES for a in ("--player", s)), "--games", "20", "--seed", "1",
          "--rules", "uecda", "--quiet"])  # fmt: skip
    out = capsys.readouterr().out
    assert out.startswith("20 games in 1 places of up to 50, seed 1")
    assert "points: 5 for 1st … 1 for 5th (the uecda rules), par 3.00" in out
    assert "4 for 大富豪" not in out  # the 2011 points are not the ones these games scored


def test_an_unknown_rules_name_is_refused():
    with pytest.raises(SystemExit):
        main([*(a for s in SAMPLES for a in ("--player", s)), "--rules", "nosuch"])
