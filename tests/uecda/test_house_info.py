"""A house seat of a UECda match is given its seat's information set, as the arena
gives it: what ``montecarlo`` plays out there instead of a guess. Checked against the
real game at each of its turns: the unseen cards are exactly the others' hands, and
what it knows of another's hand from the exchange is in that hand."""

from __future__ import annotations

from functools import reduce

import pytest

from bots.strategies import resolve
from daifugo import uecda as u
from daifugo.facts import uecda_turns
from daifugo.infoset import InfoSet
from daifugo.rules import rules_named
from daifugo.view import BOOK_UECDA
from places.uecda.match import HouseSeat, play_match


class WatchedSeat(HouseSeat):
    """A house seat that keeps each game it was asked in, with the set it was given."""

    def __init__(self, name: str, seed: int):
        super().__init__(name, resolve("stock", seed, BOOK_UECDA))
        self.asked: list[tuple[u.UecdaGame, int, InfoSet | None]] = []

    def answer(self, g: u.UecdaGame, p: int, info: InfoSet | None = None) -> u.Move:
        self.asked.append((g, p, info))
        return super().answer(g, p, info)


async def test_a_house_seat_is_given_what_its_seat_saw() -> None:
    seats = [WatchedSeat(f"house-{p}", p) for p in range(u.PLAYERS)]
    await play_match(seats, 8, "house-info", {}, lambda game_no, record, judged: None)
    asked = [turn for seat in seats for turn in seat.asked]
    assert len(asked) > 300
    knowing = 0
    for g, p, info in asked:
        assert info is not None and info.seat == p and info.hand == g.hands[p]
        assert info.position.hands == (0,) * u.PLAYERS  # no hand in the public position
        others = reduce(int.__or__, (h for q, h in enumerate(g.hands) if q != p))
        assert info.unseen == others  # every card played is seen, no other
        assert info.counts == tuple(h.bit_count() for h in g.hands)
        for q, cards in enumerate(info.known):
            assert cards & ~g.hands[q] == 0
        for q, cards in enumerate(info.barred):
            assert cards & g.hands[q] == 0
        knowing += any(info.known)
    assert knowing > 20  # the exchange told the rich and the poor something


@pytest.mark.parametrize("rules", ["uecda", "uecda+11back+6reverse+no-lock", "uecda+5skip"])
async def test_a_match_s_judged_submissions_are_what_its_records_played_again_judge(rules) -> None:
    """What a match hands its store (counted and indexed without playing a game again) is
    what its stored record gives when it is played again, draws and variants included."""
    played: list[tuple[dict, list]] = []
    seats = [HouseSeat(f"house-{p}", resolve("greedy", p, BOOK_UECDA)) for p in range(u.PLAYERS)]
    await play_match(
        seats, 30, "judged", {}, lambda no, record, judged: played.append((record, judged)),
        rules=rules_named(rules),
    )  # fmt: skip
    assert len(played) == 30
    assert [judged for _, judged in played] == [uecda_turns(record) for record, _ in played]
