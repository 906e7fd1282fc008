"""Property tests: random seeds, random legal players, and the invariants of RULES.md."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field

from hypothesis import given, settings
from hypothesis import strategies as st

from daifugo import game as g
from daifugo import place as pl
from daifugo.cards import DECK_MASK, JOKER_MASK, format_card, ids_of, parse_card, sorted_ids
from daifugo.deal import game_rng
from daifugo.events import EndGame
from daifugo.game import GameState
from daifugo.legal import legal_plays
from daifugo.place import PlaceState
from daifugo.plays import Miss, judge, read_play

from .helpers import typed

SEEDS = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789", min_size=1, max_size=10)
CHOICES = st.integers(min_value=0, max_value=2**32 - 1)
#: No game can take more turns: each trick has at most 4 passes per play or miss,
#: and there are at most 54 plays and 5 misses.
MAX_TURNS_PER_GAME = (54 + 5) * 5


def random_subset(rng: random.Random, mask: int) -> int:
    ids = ids_of(mask)
    return sum(1 << c for c in ids if rng.random() < 0.5)


@dataclass
class Run:
    """Everything a run of a place produced, to compare runs."""

    actions: list[tuple[str, int, int]] = field(default_factory=list)
    states: list[dict] = field(default_factory=list)
    events: list[object] = field(default_factory=list)


class Referee:
    """Drives a place with random players and checks the invariants at every step."""

    def __init__(self, seed: str, games: int, choices: random.Random, miss_rate: float):
        self.seed = seed
        self.games = games
        self.rng = choices
        self.miss_rate = miss_rate
        self.state = pl.new_place(games)
        self.run = Run()
        self.played = 0  # cards played in the current game
        self.discarded = 0  # hands thrown away by misses and at the end of the current game

    # -- checks --

    def check_cards(self, game: GameState) -> None:
        union = 0
        for h in game.hands:
            assert not union & h, "a card is in two hands"
            union |= h
        assert not union & self.played and not union & self.discarded
        assert not self.played & self.discarded
        assert union | self.played | self.discarded == DECK_MASK
        assert union.bit_count() + self.played.bit_count() + self.discarded.bit_count() == 54

    def check_round_trip(self) -> None:
        s = self.state
        back = PlaceState.from_dict(json.loads(json.dumps(s.to_dict())))
        assert back.to_dict() == s.to_dict()
        if s.game is not None:
            game_back = GameState.from_dict(json.loads(json.dumps(s.game.to_dict())))
            assert game_back == s.game
            assert back.game == s.game
            if s.game.table is not None:
                assert game_back.table == s.game.table
                assert game_back.table.size == s.game.table.size

    def check_turn(self, game: GameState, legal: list) -> None:
        seat = game.turn
        hand = game.hands[seat]
        legal_masks = {p.mask for p in legal}
        for p in legal:  # no listed play is a miss
            got, miss = judge(p.mask, hand, game.table, game.revolution)
            assert miss is None and got == p, (p, miss)
        for _ in range(4):  # random other subsets of the hand always are
            m = random_subset(self.rng, hand)
            if m and m not in legal_masks:
                got, miss = judge(m, hand, game.table, game.revolution)
                assert got is None and miss in Miss.ALL
                _, result, _ = g.play_mask(game, seat, m)
                assert result.outcome == "miss"
        outside = DECK_MASK & ~hand
        if outside:
            stranger = 1 << self.rng.choice(ids_of(outside))
            m = random_subset(self.rng, hand) | stranger
            _, result, _ = g.play_mask(game, seat, m)
            assert (result.outcome, result.reason) == ("miss", Miss.CARD_NOT_HELD)
            # written, a joker not held may name the joker held: name a marked card instead
            marked = outside & ~JOKER_MASK
            if marked:
                m = random_subset(self.rng, hand) | 1 << self.rng.choice(ids_of(marked))
                written = [parse_card(format_card(c)) for c in sorted_ids(m)]
                _, result, _ = g.act(game, seat, written)
                assert (result.outcome, result.reason) == ("miss", Miss.CARD_NOT_HELD)

    # -- the players --

    def choose(self, game: GameState, legal: list) -> tuple[str, int]:
        hand = game.hands[game.turn]
        if self.rng.random() < self.miss_rate:
            if self.rng.random() < 0.5:
                return "timeout", 0
            m = random_subset(self.rng, hand)
            if m and m not in {p.mask for p in legal}:
                return "play", m
        if game.table is not None and (not legal or self.rng.random() < 0.25):
            return "pass", 0
        if legal:
            # a shape first, then a play of it: big groups (revolutions) and stairs come often
            shapes = sorted({(p.kind, p.size) for p in legal})
            shape = self.rng.choice(shapes)
            hoard = [p for p in legal if (p.kind, p.size) == shape]
            if self.rng.random() < 0.5:  # keep jokers and the strongest cards when possible
                weak = [p for p in hoard if p.strength < 10]
                hoard = weak or hoard
            return "play", self.rng.choice(hoard).mask
        return "forced", hand  # no legal lead (a lone joker or 2, say): any play is a miss

    # -- the loop --

    def act(self) -> None:
        game = self.state.game
        assert game is not None
        seat = game.turn
        hand = game.hands[seat]
        legal = legal_plays(hand, game.table, game.revolution)
        self.check_turn(game, legal)
        what, mask = self.choose(game, legal)
        self.run.actions.append((what, seat, mask))
        if what == "pass":
            self.state, result, events = pl.act(self.state, seat, [])
            assert result.outcome == "pass"
        elif what == "timeout":
            self.state, result, events = pl.time_out(self.state, seat)
            assert (result.outcome, result.reason) == ("miss", Miss.TIMEOUT)
        else:
            self.state, result, events = pl.play_mask(self.state, seat, mask)
            legal_masks = {p.mask for p in legal}
            assert (result.outcome == "play") == (mask in legal_masks), (what, result)
            if what == "forced":
                assert result.outcome == "miss"
        if result.outcome == "play":
            assert result.cards == tuple(sorted_ids(mask))
            self.played |= mask
        elif result.outcome == "miss":
            self.discarded |= hand
        self.run.events.extend(events)

    def step(self) -> None:
        before = self.state
        self.state, events, d = pl.step(self.state, lambda n: game_rng(self.seed, n))
        self.run.events.extend(events)
        if d is not None:
            self.played = self.discarded = 0
        ended = [e for e in events if isinstance(e, EndGame)]
        if ended:
            assert before.game is not None
            for h in before.game.hands:
                self.discarded |= h
            (end,) = ended
            assert sorted(end.ranks) == [1, 2, 3, 4, 5]
            assert self.state.game.ranks == end.ranks
            assert sum(self.state.points) - sum(before.points) == 10
            assert tuple(b + 5 - r for b, r in zip(before.points, end.ranks, strict=True)) == (
                self.state.points
            )

    def play_place(self) -> Run:
        for _ in range(self.games * (MAX_TURNS_PER_GAME * 2 + 10) + 10):
            self.check_round_trip()
            self.run.states.append(self.state.to_dict())
            if self.state.phase == pl.OVER:
                assert sum(self.state.points) == 10 * self.games
                return self.run
            if self.state.game is not None and self.state.phase == pl.IN_GAME:
                assert self.state.game.turn_no <= MAX_TURNS_PER_GAME
                self.check_cards(self.state.game)
            if self.state.needs_action:
                self.act()
            else:
                self.step()
        raise AssertionError("the place did not end within the bound")


@settings(max_examples=20, deadline=None)
@given(seed=SEEDS, choices=CHOICES)
def test_random_legal_players_keep_every_invariant(seed: str, choices: int) -> None:
    Referee(seed, 2, random.Random(choices), miss_rate=0.0).play_place()


@settings(max_examples=25, deadline=None)
@given(seed=SEEDS, choices=CHOICES)
def test_players_who_sometimes_miss_keep_every_invariant(seed: str, choices: int) -> None:
    Referee(seed, 2, random.Random(choices), miss_rate=0.05).play_place()


@settings(max_examples=15, deadline=None)
@given(seed=SEEDS, choices=CHOICES)
def test_the_same_seed_and_actions_replay_to_the_same_states_and_events(
    seed: str, choices: int
) -> None:
    first = Referee(seed, 2, random.Random(choices), miss_rate=0.03).play_place()
    # replay the recorded actions on a fresh place with the same seed
    s = pl.new_place(2)
    states: list[dict] = []
    events: list[object] = []
    actions = iter(first.actions)
    while True:
        states.append(s.to_dict())
        if s.phase == pl.OVER:
            break
        if s.needs_action:
            what, seat, mask = next(actions)
            assert seat == s.game.turn
            if what == "pass":
                s, _, evs = pl.act(s, seat, [])
            elif what == "timeout":
                s, _, evs = pl.time_out(s, seat)
            else:
                s, _, evs = pl.play_mask(s, seat, mask)
        else:
            s, evs, _ = pl.step(s, lambda n: game_rng(seed, n))
        events.extend(evs)
    assert next(actions, None) is None
    assert states == first.states
    assert typed(events) == typed(first.events)


# -- the listing against judge, on random hands and tables --

CARDS = st.integers(min_value=1, max_value=54)


@settings(max_examples=150, deadline=None)
@given(
    hand_ids=st.sets(CARDS, min_size=1, max_size=9),
    other_ids=st.sets(CARDS, min_size=1, max_size=8),
    pick=st.integers(min_value=0),
    revolution=st.booleans(),
    lead=st.booleans(),
)
def test_the_listing_equals_what_judge_accepts_on_random_hands(
    hand_ids: set[int], other_ids: set[int], pick: int, revolution: bool, lead: bool
) -> None:
    hand = sum(1 << c for c in hand_ids)
    other = sum(1 << c for c in other_ids - hand_ids)
    table = None
    if not lead and other:
        # every reading of every lead of another hand: tables of each kind and size
        candidates = [
            r for p in legal_plays(other, None, revolution) for r in read_play(p.mask, revolution)
        ]
        if candidates:
            table = candidates[pick % len(candidates)]
    accepted = {}
    s = hand
    while s:
        p, miss = judge(s, hand, table, revolution)
        if p is not None:
            accepted[s] = (p.kind, p.size, p.strength)
        else:
            assert miss in Miss.ALL
        s = (s - 1) & hand
    listed = {p.mask: (p.kind, p.size, p.strength) for p in legal_plays(hand, table, revolution)}
    assert listed == accepted
