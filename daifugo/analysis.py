"""A finished game's analysis: what each decision of its record was worth (``docs/analysis.md``).

The record is played again with the engine's own functions (as its replay does:
:mod:`.replay` for version 1, :mod:`.uecda` for version 2); at each turn where the
player to move had more than one legal move, the evaluator (:mod:`.evaluate`)
values every candidate from that player's information set alone
(:func:`.infoset.observe`: its own hand, what was played, the hand counts and what
it gave in the exchange), never from the other hands the record shows.

A decision's **loss** is what the best candidate is worth more than the move played,
**measured on other deals than those that chose it** (:func:`held_out_loss`): the
deals are split in two halves; the best move of each half is valued against the move
played on the other half, deal by deal, and the two differences are averaged. The
best of many noisy values is biased upwards (its noise chose it); measured on deals
that did not choose it, it is not, and a move as good as the best loses nothing on
average. The loss's **error** is the standard error of those paired differences: the
candidates share their deals, so their difference is far less noisy than each value.
A loss is **marked** only where it is beyond that noise, more than
:data:`NOISE_ERRORS` errors, and at least :data:`MARKS`' thresholds: ``?!`` from 0.2
points, ``?`` from 0.5, ``??`` from 1.0.
A player's **accuracy** is the share (in %) of its judged decisions without a mark;
``mean_loss`` the expected points it lost a judged decision, ``total_loss`` their
sum over the game. A miss or a timeout (2011) is listed but not judged: the
evaluator values legal moves only.

Pure: no Django. Seeded: each decision is evaluated with its turn number as seed,
so the same record and playouts give the same document.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass

from . import uecda as u
from .cards import format_card, parse_card, sorted_ids
from .evaluate import (
    Candidate,
    candidates,
    default_policy,
    evaluate,
    paired_difference,
    paths_of,
)
from .game import OVER, act, advance, new_game, time_out
from .infoset import InfoSet, exchange_seen, observe
from .replay import TIMEOUT, starting_hands
from .uecda_record import mask_of_written, record_rules, written

FORMAT = "daihinmin-analysis"
VERSION = 1
#: A loss is beyond the noise when it is more than this many standard errors of the difference.
NOISE_ERRORS = 3.0
#: The marks, the largest first: a loss beyond the noise of at least so many points.
MARKS = (("??", 1.0), ("?", 0.5), ("?!", 0.2))
#: Playouts a decision by default, shared by its candidates.
DEFAULT_PLAYOUTS = 1000
#: Playouts a candidate at least, whatever the share: two deals in each half, for a
#: held-out loss with an error (:func:`held_out_loss`).
MIN_PLAYOUTS = 4
#: The share of a decision's playouts kept for the candidates that could still be best
#: (:func:`.evaluate.contenders`): a best move told apart from the next, not only from
#: the move played.
FOCUS = 0.5
#: What made the document (``evaluator``): version 2 measures each loss on held-out deals
#: with its paired error; a document without it was made by version 1 (the best's
#: value less the move played's on the same deals, the errors combined as independent).
EVALUATOR_VERSION = 2


@dataclass(frozen=True, slots=True)
class Decision:
    """One turn of the record, as its player saw it."""

    turn: int
    player: int  # the seat (2011) or the player's number (uecda)
    info: InfoSet
    played: object  # the move as the evaluator names it: a mask, a uecda Move, None (a pass)
    judged: bool  # False for a miss or a timeout: no legal move was played


def _uecda(record: Mapping) -> bool:
    """A record of the UECda rules (its version 2 format)."""
    return record.get("version") == 2


def decisions(record: Mapping) -> Iterator[Decision]:
    """Every turn of a finished game's record with its player's information set."""
    if _uecda(record):
        yield from _decisions_uecda(record)
    else:
        yield from _decisions_2011(record)


def _decisions_2011(record: Mapping) -> Iterator[Decision]:
    dealt, hands, first = starting_hands(record)
    given: list[list[tuple[int, int]]] = [[] for _ in hands]
    for m in record["exchange"]:
        giver = m["from"]
        given[giver].append((m["to"], dealt[giver] & ~hands[giver]))
    state = new_game(record["game"], hands, first)
    played = 0
    for action in record["actions"]:
        state, _ = advance(state)
        if state.phase == OVER:
            return
        seat = state.turn
        info = observe(state, seat, played, given[seat])
        if action["verdict"] == TIMEOUT:
            after, result, _ = time_out(state, seat)
        else:
            after, result, _ = act(state, seat, [parse_card(c) for c in action["cards"]])
        laid = state.hands[seat] & ~after.hands[seat]
        judged = result.reason is None
        yield Decision(action["turn"], seat, info, laid or None, judged)
        played |= laid
        state = after


def _decisions_uecda(record: Mapping) -> Iterator[Decision]:
    rules = record_rules(record)
    hands = tuple(mask_of_written(h) for h in record["hands"])
    given, paid = exchange_seen(
        len(hands),
        ((x["from"], x["to"], mask_of_written(x["cards"])) for x in record["exchange"]),
        record["ranks_before"] if record["exchange"] else None,
    )
    g = u.new_game(rules, hands, record["seats"])
    played = 0
    for action in record["actions"]:
        if g.phase != u.TURN:
            return
        p = g.turn
        info = observe(g, p, played, given[p], paid[p])
        move = u.move_of_text(action["table"])
        g, out = u.submit(g, p, move)
        # a table tndhms refuses is a pass, as the engine judged it
        yield Decision(action["turn"], p, info, out.move if out.accepted else None, True)
        if out.accepted:
            played |= out.move.cards


def _same(a: object, b: object) -> bool:
    if isinstance(a, u.Move) and isinstance(b, u.Move):
        return (a.ones, a.twos) == (b.ones, b.twos)
    return a == b


def move_json(move: object) -> dict:
    """A move as the document writes it: its cards, weakest first (none: a pass); a
    uecda move also as its table in the log's notation (where the joker stands)."""
    if isinstance(move, u.Move):
        return {"cards": written(move.cards), "table": u.cells_text(move.ones, move.twos)}
    if move is None:
        return {"cards": []}
    return {"cards": [format_card(c) for c in sorted_ids(move)]}


def mark_of(loss: float, error: float) -> str | None:
    """The mark of a loss with the standard error of the difference, None within the noise."""
    if loss <= NOISE_ERRORS * error:
        return None
    return next((mark for mark, least in MARKS if loss >= least), None)


def held_out_loss(found: Sequence[Candidate], mine: Candidate) -> tuple[float, float]:
    """The loss of ``mine`` and its standard error, measured on deals that did not choose
    the best move: each half of the deals (even, odd) chooses its best candidate, which is
    valued against ``mine`` on the other half, deal by deal, on the deals both were played
    out on (a candidate out of the running has fewer: :func:`.evaluate.contenders`); the
    two are averaged."""
    halves = (slice(0, None, 2), slice(1, None, 2))
    losses, errors = [], []
    for choose, measure in (halves, halves[::-1]):
        chosen = max(found, key=lambda c: statistics.fmean(c.by_deal[choose]))
        loss, error = paired_difference(chosen.by_deal[measure], mine.by_deal[measure])
        losses.append(loss)
        errors.append(error)
    return statistics.fmean(losses), math.hypot(*errors) / 2


def _judge(found: Sequence[Candidate], played: object) -> dict:
    ranked = sorted(found, key=lambda c: -c.points)
    top = ranked[0]
    mine = next((c for c in found if _same(c.move, played)), None)
    out: dict = {
        "best": move_json(top.move),
        "candidates": [
            {
                **move_json(c.move),
                "points": round(c.points, 4),
                "points_se": round(c.points_se, 4),
                "rank": round(c.rank, 4),
            }
            for c in ranked
        ],
    }
    if mine is None:
        return {**out, "points": None, "loss": None, "mark": None}
    loss, error = held_out_loss(found, mine)
    return {
        **out,
        "points": round(mine.points, 4),
        "loss": round(loss, 4),
        "loss_se": round(error, 4),
        "mark": mark_of(loss, error),
    }


#: Called after each decision evaluated: (done, total).
Progress = Callable[[int, int], None]


def _evaluated(info: InfoSet, playouts: int, seed: int, played: object) -> list[Candidate]:
    """A decision's candidates from ``playouts`` playouts: :data:`FOCUS` of them kept for
    the move played and the candidates that could still be best after the rest, shared
    among all (at least :data:`MIN_PLAYOUTS` each), have been played out."""
    n = len(paths_of(info, candidates(info)))  # a move that keeps the lead: one a follow-up
    each = max(MIN_PLAYOUTS, math.ceil(playouts * (1 - FOCUS) / n))
    return evaluate(info, each, seed, focus=max(0, playouts - each * n), also=(played,))


def analyse(
    record: Mapping,
    playouts: int = DEFAULT_PLAYOUTS,
    *,
    pool: Executor | None = None,
    progress: Progress | None = None,
    seed: int = 0,
) -> dict:
    """The analysis document of a finished game's record (``docs/analysis.schema.json``).

    ``playouts`` a decision are shared by its candidates; with ``pool`` the
    decisions are evaluated in its processes (the numbers are the same). ``seed``: each
    decision's deals are drawn from it and the turn's number (another seed, other deals:
    how stable the verdicts are, ``bench/analysis_stability.py``).
    """
    turns = list(decisions(record))
    busy = [d for d in turns if d.judged and len(candidates(d.info)) > 1]
    total = len(busy)
    found: dict[int, list[Candidate]] = {}
    if pool is None:
        for k, d in enumerate(busy, start=1):
            found[d.turn] = _evaluated(d.info, playouts, _seed_of(seed, d.turn), d.played)
            if progress:
                progress(k, total)
    else:
        futures = {
            d.turn: pool.submit(_evaluated, d.info, playouts, _seed_of(seed, d.turn), d.played)
            for d in busy
        }
        for k, (turn, f) in enumerate(futures.items(), start=1):
            found[turn] = f.result()
            if progress:
                progress(k, total)
    names = [p["name"] for p in record["players"]]
    rows = []
    for d in turns:
        row: dict = {"turn": d.turn, "player": d.player, "played": move_json(d.played)}
        if d.turn in found:
            row.update(_judge(found[d.turn], d.played))
        else:
            row["judged"] = False if not d.judged else None
        rows.append(_tidy(row))
    return {
        "format": FORMAT,
        "version": VERSION,
        "rules": record["rules"],
        **({"variant": record["variant"]} if "variant" in record else {}),
        "place": record["place"]["id"],
        "game": record["game"],
        "playouts": playouts,
        "policy": default_policy(_uecda(record)),
        "evaluator": {"version": EVALUATOR_VERSION, "inference": False, "seed": seed},
        "thresholds": {"noise_errors": NOISE_ERRORS, **{m: least for m, least in MARKS}},
        "decisions": rows,
        "players": _players(names, rows),
    }


def _seed_of(seed: int, turn: int) -> int:
    """A decision's seed: its turn's number under seed 0, as before seeds were chosen."""
    return seed * 100_003 + turn


def _tidy(row: dict) -> dict:
    """A decision without a choice says why: ``"forced"`` (one legal move) or
    ``"miss"`` (a miss or a timeout, not judged)."""
    if "judged" in row:
        row["note"] = "miss" if row.pop("judged") is False else "forced"
    return row


def _players(names: Sequence[str], rows: Sequence[dict]) -> list[dict]:
    out = []
    for player, name in enumerate(names):
        losses = [
            (r["loss"], r["mark"])
            for r in rows
            if r["player"] == player and r.get("loss") is not None
        ]
        judged = len(losses)
        total = sum(loss for loss, _ in losses)
        clean = sum(1 for _, mark in losses if mark is None)
        out.append(
            {
                "player": player,
                "name": name,
                "decisions": judged,
                "accuracy": round(100 * clean / judged, 1) if judged else None,
                "mean_loss": round(total / judged, 4) if judged else None,
                "total_loss": round(total, 4),
                "marks": {m: sum(1 for _, mark in losses if mark == m) for m, _ in MARKS},
            }
        )
    return out
