"""Builders shared by the engine tests: hands from written cards, plays, positions.

Everything here goes through the engine's public functions (``parse_card``,
``read_play``, ``GameState``), so a test reads like the rule it checks:
``hand("1-3", "2-3", "joker")``, ``play("1-5", "1-6", "1-7")``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from daifugo import game as g
from daifugo.cards import JOKER_IDS, JOKER_TOKEN, parse_card
from daifugo.game import GameState, TurnResult
from daifugo.plays import Kind, Play, read_play

PLAYERS = 5
#: Numbers from the weakest to the strongest in the normal order.
NORMAL_ORDER = (3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 1, 2)


def hand(*written: str) -> int:
    """The mask of the written cards; ``"joker"`` once is joker 53, twice both jokers."""
    mask = 0
    jokers = list(JOKER_IDS)
    for w in written:
        cid = parse_card(w)
        if cid == JOKER_TOKEN:
            cid = jokers.pop(0)
        assert not mask >> cid & 1, f"{w} written twice"
        mask |= 1 << cid
    return mask


cards = hand  # a play's cards are written the same way


def tokens(*written: str) -> list[int]:
    """What the server hands to ``game.act`` for these written cards."""
    return [parse_card(w) for w in written]


def play(*written: str, revolution: bool = False, kind: Kind | None = None) -> Play:
    """The reading of the written cards (the first one, or the one of ``kind``)."""
    readings = read_play(hand(*written), revolution)
    assert readings, f"{written} is no play"
    if kind is None:
        return readings[0]
    return next(p for p in readings if p.kind == kind)


def position(
    hands: Sequence[int],
    turn: int,
    *,
    table: Sequence[str] | None = None,
    table_kind: Kind | None = None,
    last_player: int = -1,
    revolution: bool = False,
    trick_revolutions: int = 0,
    passed: Iterable[int] = (),
    ranks: Sequence[int] | None = None,
    phase: str = g.TURN_OPEN,
    game_no: int = 1,
) -> GameState:
    """A game position with ``turn`` to act (a turn open unless ``phase`` says otherwise).

    ``table`` is written cards, read under the order in force.
    """
    table_play = None
    if table is not None:
        table_play = play(*table, revolution=revolution, kind=table_kind)
        assert last_player >= 0, "a table needs the seat that played it"
    return GameState(
        game_no=game_no,
        hands=tuple(hands),
        phase=phase,
        turn=turn,
        table=table_play,
        revolution=revolution,
        trick_revolutions=trick_revolutions,
        passed=sum(1 << s for s in passed),
        last_player=last_player,
        ranks=tuple(ranks) if ranks is not None else None,
    )


def act(state: GameState, seat: int, *written: str) -> tuple[GameState, TurnResult, list]:
    """``seat`` plays the written cards (none: a pass), as a request would."""
    return g.act(state, seat, tokens(*written))


def opened(state: GameState) -> GameState:
    """The state with the next turn open (``advance`` from READY)."""
    new, events = g.advance(state)
    assert new.phase == g.TURN_OPEN, events
    return new


def submasks(mask: int) -> list[int]:
    """Every non-empty subset of a mask."""
    out = []
    s = mask
    while s:
        out.append(s)
        s = (s - 1) & mask
    return out


def snapshot(state: object) -> dict:
    """A deep, comparable picture of a state (GameState or PlaceState)."""
    d = state.to_dict()  # type: ignore[attr-defined]
    table = getattr(state, "table", None)
    if table is not None:
        d["_table_strength"] = table.strength
    return d


# -- driving a whole place --


def weakest_bot(state: GameState, rng: object = None) -> tuple[str, int]:
    """Play the weakest legal play, pass when nothing beats the table; a forced miss otherwise."""
    from daifugo.legal import legal_plays

    hand_mask = state.hands[state.turn]
    plays = legal_plays(hand_mask, state.table, state.revolution)
    if plays:
        best = min(plays, key=lambda p: (p.strength, -p.size, p.mask))
        return "play", best.mask
    if state.table is not None:
        return "pass", 0
    return "play", hand_mask  # nothing can lead: whatever is played is a miss


def drive_place(place_state, seed: str, choose=weakest_bot, max_steps: int = 100_000):
    """Run a place to its end; returns (final state, events, deals, turn results)."""
    from daifugo import place as pl
    from daifugo.deal import game_rng

    events: list = []
    deals: list = []
    results: list = []
    s = place_state
    for _ in range(max_steps):
        if s.phase == pl.OVER:
            return s, events, deals, results
        if s.needs_action:
            seat = s.game.turn
            what, mask = choose(s.game, None)
            if what == "pass":
                s, result, evs = pl.act(s, seat, [])
            elif what == "timeout":
                s, result, evs = pl.time_out(s, seat)
            else:
                s, result, evs = pl.play_mask(s, seat, mask)
            results.append(result)
        else:
            s, evs, d = pl.step(s, lambda n: game_rng(seed, n))
            if d is not None:
                deals.append(d)
        events.extend(evs)
    raise AssertionError("the place did not end")


def typed(events: Iterable[object]) -> list[tuple[type, object]]:
    """Events paired with their class, so that events of two kinds that hold the same
    values (``StartTurn(1, (), False)`` and ``EndTurn(1, (), False)``) never compare equal,
    whether the engine makes them dataclasses or named tuples."""
    return [(type(e), e) for e in events]
