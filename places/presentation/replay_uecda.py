"""A UECda game's positions for the replay page, worked out by the engine from its record.

The 2011 replay (``static/js/replay.js``) works each position out in the browser;
the UECda rules (the lock and its suits, revolutions that flip at once, the ♠3
return, the 20-pass draw) are the engine's to say, so the page of a UECda game
(``static/js/replay-uecda.js``) draws the positions listed here, one per
submission, as :mod:`daifugo.uecda` plays them from the version 2 record.
"""

from __future__ import annotations

from collections.abc import Mapping

from daifugo import uecda as u
from daifugo.uecda_record import (
    mask_of_written,
    record_rules,
    replay_game,
    verdict,
    written,
)

#: The suits of a lock as the page names them: rows 0-3 of tndhms's table.
SUITS = ("S", "H", "D", "C")


def _table(m: u.Move | None) -> list[dict]:
    """The cards a move lays, cell by cell: each real card, or the joker and the card it
    stands for (only the cells set are visited: a live frame is made at every turn)."""
    if m is None:
        return []
    cells = []
    bits = m.ones | m.twos
    while bits:
        low = bits & -bits
        real = u.CARD_OF_CELL[low.bit_length() - 1]
        if m.ones & low:
            cells.append({"card": written(1 << real)[0], "stands_for": None})
        else:
            cells.append({"card": "joker", "stands_for": written(1 << real)[0] if real else None})
        bits ^= low
    return cells


def _suits(bits: int) -> list[str]:
    return [s for row, s in enumerate(SUITS) if bits >> row & 1]


def _players(bits: int, players: int) -> list[int]:
    return [p for p in range(players) if bits >> p & 1]


def at_deal(g: u.UecdaGame) -> dict:
    """The public table of a game as dealt (after the exchange): nothing lies on it."""
    return {
        "table": [],
        "owner": None,
        "lock": None,
        "revolution": False,
        "back": False,
        "backwards": False,
        "passed": [],
        "ranks": list(g.ranks),
        "turn": g.turn,
        "event": {},
    }


def after_submission(
    before: u.UecdaGame, player: int, move: u.Move, done: u.Outcome, g: u.UecdaGame
) -> dict:
    """The public table after ``player`` submitted ``move`` to ``before`` (giving ``g``), as
    it lay when the submission was judged (the trick it ended, if it ended one): what the
    replay page steps through and what a UECda live frame shows (``places/uecda/watch.py``)."""
    locked = u.judge(before, player, move)[1]
    lying = move if done.accepted else before.stage
    passed = before.passed | (0 if done.accepted else 1 << player)
    return {
        "table": _table(lying),
        "owner": (player if done.accepted else before.last_player) if lying is not None else None,
        "lock": _suits(u.lock_suit(g.rules, lying)) if locked and lying else None,
        "revolution": g.revolution,
        "back": done.back,
        "backwards": g.backwards,
        "passed": _players(passed, len(g.hands)),
        "ranks": list(g.ranks),
        "turn": g.turn if g.phase == u.TURN else None,
        "event": {
            "verdict": verdict(done),
            "cleared": done.cleared,
            "eight_cut": done.eight_cut,
            "revolution": done.revolution,
            "spade3": done.spade3,
            "rank": done.rank,
            "locks": locked and not before.locked,
            "draw": done.draw,
        },
    }


def positions(record: Mapping) -> list[dict]:
    """Position 0 (after the exchange), then one after each submission
    (:func:`after_submission`), each with every hand. The record is replayed first:
    one the engine does not replay raises ``Diverged``."""
    replay_game(record)
    hands = [mask_of_written(h) for h in record["hands"]]
    g = u.new_game(record_rules(record), hands, record["seats"])
    out = [{"action": None, "hands": [written(h) for h in g.hands], **at_deal(g)}]
    for i, action in enumerate(record["actions"]):
        before = g
        move = u.move_of_text(action["table"])
        g, done = u.submit(before, action["player"], move)
        out.append(
            {
                "action": i,
                "hands": [written(h) for h in g.hands],
                **after_submission(before, action["player"], move, done, g),
            }
        )
    out[-1]["ranks"] = list(record["ranks"])  # a draw's too
    out[-1]["event"]["end"] = record["end"]
    return out
