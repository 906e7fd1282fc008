"""Game records, format version 2 (the uecda rules): made from the refereed games of
the fixture log, they fit docs/record-v2.schema.json, round-trip through JSON and
replay through the engine; an altered record is named where it parts."""

from __future__ import annotations

import copy
import itertools
import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from daifugo.facts import judged_turns, uecda_turns
from daifugo.replay import Diverged, Replayed
from daifugo.uecda_log import Refereed, parse_log, referee
from daifugo.uecda_record import record_of_logged, replay_game, replay_records

from .test_uecda_log import fixture_lines

DOCS = Path(__file__).resolve().parents[2] / "docs"
PLACE = {"id": None, "title": "tndhms fixture", "games": 250}


def validator(name: str) -> Draft202012Validator:
    schema = json.loads((DOCS / name).read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


@pytest.fixture(scope="module")
def records() -> list[dict]:
    log = parse_log(fixture_lines())
    done = list(referee(log))
    assert all(isinstance(d, Refereed) for d in done)
    return [record_of_logged(log, d, PLACE) for d in done]


def test_records_of_the_logged_games_fit_the_version_2_schema(records):
    v2 = validator("record-v2.schema.json")
    assert [list(v2.iter_errors(r)) for r in records] == [[]] * 250
    v1 = validator("record.schema.json")  # and not the first version's
    assert list(v1.iter_errors(records[0]))


def test_records_round_trip_through_json_and_replay_as_logged(records):
    again = [json.loads(json.dumps(r)) for r in records]
    assert again == records
    replayed = list(replay_records(again))
    assert all(isinstance(r, Replayed) for r in replayed), next(
        str(r) for r in replayed if isinstance(r, Diverged)
    )
    assert [list(r.ranks) for r in replayed] == [r["ranks"] for r in records]


def test_a_record_keeps_the_draw_and_the_rich_choices(records):
    drawn = [r for r in records if r["end"] == "draw"]
    assert len(drawn) == 8
    later = records[1]
    assert later["ranks_before"] is not None and later["choices"] is not None
    assert [x["cards"] for x in later["exchange"][2:]] == [
        later["choices"]["daifugo"],
        later["choices"]["fugo"],
    ]
    assert records[0]["choices"] is None and records[100]["choices"] is None


def _first_play(record: dict) -> int:
    return next(i for i, a in enumerate(record["actions"]) if a["verdict"] == "play")


@pytest.mark.parametrize(
    ("alter", "where"),
    [
        (lambda r: r["actions"][_first_play(r)].update(verdict="rejected"), "turn"),
        (lambda r: r["actions"][0].update(player=(r["actions"][0]["player"] + 1) % 5), "turn 1"),
        (lambda r: r.update(deal_from=(r["deal_from"] + 1) % 5), "deal"),
        (lambda r: r["choices"].update(fugo=["joker", "1-3"]), "exchange"),
        (lambda r: r.update(ranks=r["ranks"][::-1]), "end"),
        (lambda r: r.update(order="Revolution" if r["order"] == "Normal" else "Normal"), "end"),
        (lambda r: r["actions"].pop(), "end"),
        (lambda r: r["actions"][_first_play(r)].update(late=True), "turn"),  # late: a pass
    ],
)
def test_an_altered_record_is_named_where_it_parts(records, alter, where):
    record = copy.deepcopy(records[1])
    alter(record)
    with pytest.raises(Diverged) as e:
        replay_game(record, records[0]["ranks"])
    assert e.value.game == 2 and e.value.where.startswith(where)
    assert str(e.value).startswith(f"game 2, {where}")


def test_a_late_move_is_marked_beside_its_pass_and_old_records_stay_valid(records):
    """``late`` (a move past the time limit, uecda_match) is optional: the 250 records
    without it fit the schema (test above); one with it on a pass fits and replays."""
    head = {"id": 1, "title": "t", "games": 250}
    log = parse_log(fixture_lines())
    done = next(itertools.islice(referee(log), 1, None))  # game 2 (the log's 00001)
    passes = [n for n, a in enumerate(records[1]["actions"], start=1) if a["verdict"] == "pass"]
    record = record_of_logged(log, done, head, late=passes[:1])
    marked = [a for a in record["actions"] if "late" in a]
    assert [(a["turn"], a["late"], a["table"]) for a in marked] == [(passes[0], True, "")]
    assert list(validator("record-v2.schema.json").iter_errors(record)) == []
    assert isinstance(replay_game(record, records[0]["ranks"]), Replayed)
    record["actions"][passes[0] - 1]["late"] = False  # only true is written
    assert list(validator("record-v2.schema.json").iter_errors(record))


def test_a_drawn_game_must_end_in_a_draw(records):
    record = copy.deepcopy(next(r for r in records if r["end"] == "draw"))
    record["end"] = "out"
    with pytest.raises(Diverged, match="recorded out, the engine says draw"):
        replay_game(record)


def test_a_game_after_one_is_checked_against_its_ranks(records):
    record = copy.deepcopy(records[2])
    before = copy.deepcopy(records[1])
    before["ranks"] = before["ranks"][::-1]
    before["points"] = [6 - r for r in before["ranks"]]
    results = list(replay_records([before, record]))
    assert isinstance(results[0], Diverged)  # its ranks are not the engine's
    assert isinstance(results[1], Replayed)  # and so game 3 is told its ranks by itself
    results = list(replay_records([records[1], record]))
    assert all(isinstance(r, Replayed) for r in results)


def test_ranks_before_that_are_not_the_game_befores_are_named(records):
    record = copy.deepcopy(records[2])
    record["ranks_before"] = record["ranks_before"][::-1]
    results = list(replay_records([records[1], record]))
    assert isinstance(results[1], Diverged) and results[1].where == "ranks_before"


def test_each_game_s_judged_submissions_are_what_its_record_played_again_judges(records):
    log = parse_log(fixture_lines())
    judged = [judged_turns(r, d.outcomes) for r, d in zip(records, referee(log), strict=True)]
    assert judged == [uecda_turns(r) for r in records]
    assert sum(bool(t.drawn) for turns in judged for t in turns) == 8  # each draw's players
    assert sum(t.locks for turns in judged for t in turns) > 0
