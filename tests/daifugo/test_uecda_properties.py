"""Property tests of the UECda game: random legal players, random choices of the rich,
now and then a malformed table, and the invariants of UECDA.md §6."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from daifugo import uecda as u
from daifugo.rules import UECDA
from daifugo.uecda_legal import LONE_JOKER, legal_moves, single

SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
PASS = u.analyze(0, 0)
#: A guard against a game that never ends. Each play is answered by at most 4
#: passes before the trick ends, but a refused lead (a malformed table) is a pass
#: that may come back to the same player, so without the 20-pass draw there is no
#: hard bound: this one is far above any game of these players.
MAX_TURNS = 2_000


def random_table(rng: random.Random, hand: int) -> u.Move:
    """Any table made of some of the hand's cells, the joker in a random cell or not."""
    ones = 0
    for cid in u.DECK[:-1]:
        if hand >> cid & 1 and rng.random() < 0.2:
            ones |= 1 << u.CELL_OF_CARD[cid]
    twos = 0
    if hand & u.JOKER_BIT and rng.random() < 0.5:
        twos = 1 << u.cell(rng.randrange(5), rng.randrange(15))
        ones &= ~twos
    return u.analyze(ones, twos)


def check_cards(g: u.UecdaGame, played: int) -> None:
    seen = played
    for h in g.hands:
        assert not seen & h, "a card in two places"
        seen |= h
    assert seen == u.DECK_MASK, "a card lost or made up"


def play_match(seed: int, games: int, rules=UECDA) -> list[u.UecdaGame]:
    rng = random.Random(seed)
    match = u.UecdaMatch(rules)
    ended = []
    for _ in range(games):
        deal = u.deal_game(match, rng)
        check_cards(u.new_game(rules, deal.dealt, deal.seats), 0)
        choices: list[int | None] = [None, None]
        if deal.exchange_ranks is not None:
            paid, _ = u.tribute(deal.dealt, deal.exchange_ranks)
            for i, (rank, n) in enumerate(((1, 2), (2, 1))):
                hand = paid[deal.exchange_ranks.index(rank)]
                ids = [c for c in u.DECK if hand >> c & 1]
                pick = rng.sample(ids, n) if rng.random() < 0.8 else rng.sample(u.DECK, n)
                choices[i] = sum(1 << c for c in pick)
        g, _ = u.start_game(deal, rules, *choices)
        check_cards(g, 0)
        played = 0
        turns = 0
        while g.phase == u.TURN:
            player = g.turn
            roll = rng.random()
            if roll < 0.03:  # a malformed or illegal table: judged a pass
                move = random_table(rng, g.hands[player])
            else:
                options = legal_moves(g, player)
                i = rng.randrange(len(options) + 1)
                move = options[i] if i < len(options) else PASS
            before = g.hands[player]
            g, out = u.submit(g, player, move)
            if out.accepted:
                played |= before & ~g.hands[player]
            else:
                assert g.hands[player] == before
            check_cards(g, played)
            turns += 1
            assert turns <= MAX_TURNS
        if g.phase == u.DRAW:
            g = u.settle_draw(g, u.draw_order(g, rng))
        assert g.phase == u.OVER
        assert sorted(g.ranks) == [1, 2, 3, 4, 5]
        match = u.finish_game(match, deal, g)
        ended.append(g)
    assert sum(match.points) == 15 * games
    return ended


@settings(max_examples=40, deadline=None)
@given(SEEDS)
def test_every_game_keeps_the_53_cards_and_ends_with_five_ranks(seed):
    play_match(seed, games=3)


@settings(max_examples=10, deadline=None)
@given(SEEDS)
def test_a_match_across_rank_and_seat_periods_keeps_its_invariants(seed):
    rules = UECDA.but(rank_period=3, seat_shuffle_period=2)
    play_match(seed, games=7, rules=rules)


def test_some_random_games_end_in_the_20_pass_draw():
    rules = UECDA
    drawn = 0
    for seed in range(60):
        rng = random.Random(seed)
        g, _ = u.start_game(u.deal_game(u.UecdaMatch(rules), rng), rules)
        while g.phase == u.TURN:
            # a player who only ever submits malformed tables once two are out
            if g.out >= 2 and g.turn == min(p for p, h in enumerate(g.hands) if h):
                move = u.move_of_text("S3S4")
            else:
                options = legal_moves(g, g.turn)
                move = options[rng.randrange(len(options))] if options else PASS
            g, _ = u.submit(g, g.turn, move)
        drawn += g.phase == u.DRAW
    assert drawn > 0


@settings(max_examples=60, deadline=None)
@given(SEEDS)
def test_the_listing_of_legal_moves_is_what_the_judge_accepts(seed):
    rng = random.Random(seed)
    deal = u.deal_game(u.UecdaMatch(UECDA), rng)
    g, _ = u.start_game(deal, UECDA)
    while g.phase == u.TURN:
        player = g.turn
        options = legal_moves(g, player)
        listed = set(options)
        for m in options:
            assert u.judge(g, player, m)[0], m
            assert not m.cards & ~g.hands[player]
        for _ in range(30):
            m = random_table(rng, g.hands[player])
            accepted = u.judge(g, player, m)[0]
            if accepted and g.joker_single:
                # tndhms's ♠3 check reads only the lowest column: any table whose
                # lowest column is the ♠3 alone passes it (and gives all its cards)
                assert (m.low, m.size, m.suit) == (1, 1, 1) and single(u.SPADE_3) in listed
            elif accepted and m.kind != u.JOKER_SINGLE:
                assert m in listed, m
            if m.kind == u.JOKER_SINGLE and accepted:
                assert LONE_JOKER in listed
        i = rng.randrange(len(options) + 1)
        g, _ = u.submit(g, player, options[i] if i < len(options) else PASS)


SWITCHES = st.fixed_dictionaries(
    {
        "lock": st.booleans(),
        "spade3_return": st.booleans(),
        "stair_revolution": st.booleans(),
        "eight_cut_in_stairs": st.booleans(),
        "joker_stands_in": st.booleans(),
        "exchange_by_choice": st.booleans(),
        "deal_from_daifugo": st.booleans(),
        "seat_shuffle_period": st.integers(0, 3),
        "rank_period": st.integers(0, 3),
        "pass_draw": st.sampled_from([0, 20]),
        "trick_end": st.sampled_from(["tndhms", "everyone"]),
        "revolution": st.booleans(),
        "stairs": st.booleans(),
        "exchange": st.booleans(),
        "eight_cut": st.booleans(),
        "six_reverse": st.booleans(),
        "eleven_back": st.booleans(),
    }
)


@settings(max_examples=25, deadline=None)
@given(SEEDS, SWITCHES)
def test_every_mix_of_the_switches_keeps_the_invariants(seed, switches):
    play_match(seed, games=4, rules=UECDA.but(**switches))
