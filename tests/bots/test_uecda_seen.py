"""A UECda client's record of the tables adds up to the arena's information set.

Seeded matches are played in the engine; each player's :class:`SeenGame` is fed the
tables the server sends it (the delivery table, every turn table, every field table,
made by ``daifugo.uecda_wire`` as ``manage.py uecda_match`` makes them), and on each of
its turns its information set is compared with what :func:`observe` makes of the real
game: the same counts, unseen cards, known cards and public position.
"""

from __future__ import annotations

import random

import pytest

from bots.strategies import resolve
from bots.uecda_seen import SeenGame
from daifugo import uecda as u
from daifugo import uecda_wire as w
from daifugo.infoset import InfoSet, exchange_seen, observe
from daifugo.rules import UECDA, Rules, rules_named
from daifugo.view import BOOK_UECDA, view_uecda

#: The public position's fields the evaluator plays out from.
FIELDS = (
    "turn", "stage", "revolution", "back", "backwards", "locked", "joker_single", "passed",
    "passes_in_row", "last_player", "ranks", "out", "next_of", "prev_of", "phase",
)  # fmt: skip


def _same(seen: InfoSet, real: InfoSet) -> None:
    assert (seen.seat, seen.hand, seen.counts) == (real.seat, real.hand, real.counts)
    assert seen.unseen == real.unseen
    assert seen.known == real.known
    for name in FIELDS:
        assert getattr(seen.position, name) == getattr(real.position, name), name


def play_match(seed: int, games: int, players: str, rules: Rules = UECDA) -> tuple[int, int]:
    """Play ``games`` games, checking every turn; how many turns, how many had known cards."""
    rng = random.Random(seed)
    match = u.UecdaMatch(rules)
    strategies = [resolve(name, seed * 5 + p, BOOK_UECDA) for p, name in enumerate(players.split())]
    turns = with_known = 0
    for _ in range(games):
        deal = u.deal_game(match, rng)
        rank_of = None if deal.ranks is None else [r - 1 for r in deal.ranks]
        counts = [h.bit_count() for h in deal.dealt]
        shown, to_give = list(deal.dealt), [0] * u.PLAYERS
        choices: list[int | None] = [None, None]
        if deal.exchange_ranks is not None:
            paid_hands, _ = u.tribute(deal.dealt, deal.exchange_ranks)
            for p, r in enumerate(deal.exchange_ranks):
                to_give[p] = 3 - r
                if r <= 2:
                    shown[p] = paid_hands[p]
        seen = [
            SeenGame(p, rules, w.delivery_table(shown[p], to_give[p], counts, rank_of, deal.seats))
            for p in range(u.PLAYERS)
        ]
        if deal.exchange_ranks is not None:
            for i, n in enumerate((2, 1)):
                rich = deal.exchange_ranks.index(i + 1)
                choices[i] = u.weakest(shown[rich], n)
                seen[rich].gave(choices[i])
        g, exchanges = u.start_game(deal, rules, *choices)
        given, _ = exchange_seen(
            u.PLAYERS, ((x.giver, x.receiver, x.cards) for x in exchanges), deal.exchange_ranks
        )
        played = 0
        while g.phase == u.TURN:
            tables = w.turn_tables(g, None, deal.seats)
            for p in range(u.PLAYERS):
                seen[p].turn(tables[p])
            p = g.turn
            info = seen[p].info(tables[p])
            assert info is not None, f"game {deal.game_no}, turn {g.turn_no}"
            _same(info, observe(g, p, played, given[p]))
            turns += 1
            with_known += any(info.known)
            view = view_uecda(g, p, info)
            move = strategies[p](view)
            before = g
            g, done = u.submit(g, p, u.analyze(0, 0) if move is None else move)
            if done.accepted:
                played |= done.move.cards
            field = w.field_table(before, g, done, rank_of, deal.seats)
            for q in range(u.PLAYERS):
                seen[q].field(field)
        if g.phase == u.DRAW:
            g = u.settle_draw(g, u.draw_order(g, rng))
        match = u.finish_game(match, deal, g)
    return turns, with_known


@pytest.mark.parametrize(
    ("seed", "players", "rules"),
    [
        (1, "stock stock stock stock stock", "uecda"),
        (2, "random greedy stock random shedder", "uecda"),
        (3, "random greedy stock random shedder", "uecda+6reverse+11back"),
    ],
)
def test_the_tables_add_up_to_the_information_set(seed: int, players: str, rules: str) -> None:
    turns, with_known = play_match(seed, 12, players, rules_named(rules))
    assert turns > 500
    assert with_known > 50  # the exchange's cards were known on some turns


def test_a_record_that_does_not_add_up_gives_no_information_set() -> None:
    deal = u.deal_game(u.UecdaMatch(UECDA), random.Random(3))
    counts = [h.bit_count() for h in deal.dealt]
    g, _ = u.start_game(deal, UECDA)
    seen = SeenGame(g.turn, UECDA, w.delivery_table(g.hands[g.turn], 0, counts, None, deal.seats))
    tables = w.turn_tables(g, None, deal.seats)
    seen.turn(tables[g.turn])
    assert seen.info(tables[g.turn]) is not None
    seen.played |= 1 << next(c for c in u.DECK if not g.hands[g.turn] >> c & 1)  # a card missed
    assert seen.info(tables[g.turn]) is None
