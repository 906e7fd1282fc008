"""What happened in a finished game, by whom, first at which turn: the facts the game search
(``/games.json``, ``places/reads/games.py``) finds.

One source for both rule books: a 2011 game's facts are read from its turns (the order in
force and the cards of each), a ``uecda`` game's from its version 2 record, played again
by the engine (the lock, the ♠3 return and the 20-pass draw are the engine's to say).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from daifugo import uecda as u
from daifugo.cards import mask_of
from daifugo.plays import read_play
from daifugo.uecda_record import REJECTED as REJECTED_VERDICT
from daifugo.uecda_record import mask_of_written, record_rules

REVOLUTION = "revolution"
LOCK = "lock"
EIGHT_CUT = "eight_cut"
SPADE3_RETURN = "spade3_return"
DRAW = "draw"
TIMEOUT = "timeout"
MISS = "miss"
#: Every kind of fact, as ``has=`` names it.
KINDS = (REVOLUTION, LOCK, EIGHT_CUT, SPADE3_RETURN, DRAW, TIMEOUT, MISS)
#: A ``uecda`` game's miss: a table the rules refused (judged a pass); its only code.
REJECTED = "REJECTED"


@dataclass(frozen=True, order=True)
class Fact:
    """``seat`` (a ``uecda`` place: the player's number) did ``kind`` (a miss: of ``code``;
    "" the row of any code) first at turn ``turn``."""

    seat: int
    kind: str
    code: str
    turn: int


def play_marks(cards: Iterable[int], revolution: bool) -> tuple[bool, bool]:
    """Whether a 2011 play of ``cards`` (ids) under the order in force is a revolution, and
    whether it holds an 8 (an 8-cut): what the profiles count too."""
    readings = read_play(mask_of(cards), revolution)
    return any(p.is_revolution for p in readings), any(p.has_eight for p in readings)


def facts_2011(turns: Iterable[tuple[int, int, str, str, list[int], bool]]) -> list[Fact]:
    """A 2011 game's facts from its settled turns: ``(seat, turn no, outcome, reason, cards,
    revolution in force)`` each."""
    found = []
    for seat, no, outcome, reason, cards, revolution in turns:
        if outcome == "timeout":
            found.append(Fact(seat, TIMEOUT, "", no))
        elif outcome == "miss":
            found.append(Fact(seat, MISS, reason, no))
        elif outcome == "play":
            flips, eight = play_marks(cards, revolution)
            if flips:
                found.append(Fact(seat, REVOLUTION, "", no))
            if eight:
                found.append(Fact(seat, EIGHT_CUT, "", no))
    return first_of_each(found)


@dataclass(frozen=True)
class UecdaTurn:
    """One submission of a ``uecda`` game as the engine judged it: what the profiles count
    (``places/services/profiles.py``) and the facts are read from."""

    player: int
    turn: int
    #: ``play``, ``pass``, ``miss`` (a table the rules refused) or ``timeout`` (late).
    outcome: str
    cards: int  # cards played
    revolution: bool
    eight_cut: bool
    locks: bool
    spade3: bool
    #: The players still in when this submission began the 20-pass draw.
    drawn: tuple[int, ...]
    #: Its think time in ms, when the record keeps it (a game played over the UECda port).
    ms: float | None = None


def uecda_turns(record: Mapping) -> list[UecdaTurn]:
    """Each submission of a ``uecda`` game's version 2 record, played again by the engine
    (a stored record was refereed when it was written): for a game whose engine verdicts
    are gone (a stored record read back); a game just played or imported has them
    (:func:`judged_turns`)."""
    hands = [mask_of_written(h) for h in record["hands"]]
    g = u.new_game(record_rules(record), hands, record["seats"])
    outcomes = []
    for action in record["actions"]:
        g, done = u.submit(g, action["player"], u.move_of_text(action["table"]))
        outcomes.append(done)
    return judged_turns(record, outcomes)


def judged_turns(record: Mapping, outcomes: Sequence[u.Outcome]) -> list[UecdaTurn]:
    """Each submission of a ``uecda`` game's version 2 record with the engine's verdict on
    it (``outcomes``, one a submission, as the match or the importer refereed them): the one
    reading of a verdict into what the profiles and the facts count."""
    gone: set[int] = set()  # the players out so far: ranks are only taken by going out
    turns = []
    for action, done in zip(record["actions"], outcomes, strict=True):
        if action.get("late"):
            outcome = TIMEOUT
        elif action["verdict"] == REJECTED_VERDICT:
            outcome = MISS
        else:
            outcome = "play" if done.accepted else "pass"
        if done.rank:
            gone.add(done.player)
        turns.append(
            UecdaTurn(
                done.player,
                action["turn"],
                outcome,
                done.move.cards.bit_count() if done.accepted else 0,
                done.revolution,
                done.eight_cut,
                done.locks,
                done.spade3,
                tuple(p for p in range(len(record["hands"])) if p not in gone) if done.draw else (),
                action.get("ms"),
            )
        )
    return turns


def facts_uecda(record: Mapping, turns: Sequence[UecdaTurn] | None = None) -> list[Fact]:
    """A ``uecda`` game's facts from its version 2 record (``turns``: its judged turns, when
    known; else the record is played again)."""
    found = []
    for t in uecda_turns(record) if turns is None else turns:
        if t.outcome == MISS:
            found.append(Fact(t.player, MISS, REJECTED, t.turn))
        elif t.outcome == TIMEOUT:  # a move past the time limit (over the UECda port)
            found.append(Fact(t.player, TIMEOUT, "", t.turn))
        if t.locks:
            found.append(Fact(t.player, LOCK, "", t.turn))
        if t.revolution:
            found.append(Fact(t.player, REVOLUTION, "", t.turn))
        if t.eight_cut:
            found.append(Fact(t.player, EIGHT_CUT, "", t.turn))
        if t.spade3:
            found.append(Fact(t.player, SPADE3_RETURN, "", t.turn))
        found += [Fact(p, DRAW, "", t.turn) for p in t.drawn]
    return first_of_each(found)


def first_of_each(found: Iterable[Fact]) -> list[Fact]:
    """Each seat's first fact of each kind and code, and for misses also a row of any code."""
    first: dict[tuple[int, str, str], int] = {}
    for f in found:
        keys = [(f.seat, f.kind, f.code)] + (
            [(f.seat, MISS, "")] if f.kind == MISS and f.code else []
        )
        for key in keys:
            first[key] = min(first.get(key, f.turn), f.turn)
    return sorted(Fact(seat, kind, code, turn) for (seat, kind, code), turn in first.items())
