"""The game record's JSON Schema (docs/record.schema.json): it describes every field, takes
the records the engine makes, and refuses what is no record of format version 1."""

from __future__ import annotations

import copy
import json

import pytest
from jsonschema import Draft202012Validator

from daifugo.plays import Miss
from daifugo.record_schema import DOCS, schema_errors
from tests.daifugo.recorded import play_place


@pytest.fixture(scope="module")
def true_records() -> list[dict]:
    return play_place("fixed", games=3, rng_seed=2)


@pytest.fixture
def record(true_records) -> dict:
    return copy.deepcopy(true_records[1])


def schema() -> dict:
    return json.loads((DOCS / "record.schema.json").read_text(encoding="utf-8"))


def described(node: object, where: str = "$") -> list[str]:
    """Where a field of the schema has no description (the conditions of ``allOf`` are no
    fields: they narrow fields described already)."""
    missing = []
    if isinstance(node, dict):
        for name, sub in node.get("properties", {}).items():
            if "description" not in sub:
                missing.append(f"{where}.{name}")
        for key, sub in node.items():
            if key != "allOf":
                missing += described(sub, f"{where}.{key}")
    elif isinstance(node, list):
        for i, sub in enumerate(node):
            missing += described(sub, f"{where}[{i}]")
    return missing


def test_the_schema_is_draft_2020_12_with_an_id_and_a_description_on_every_field():
    doc = schema()
    Draft202012Validator.check_schema(doc)
    assert doc["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert doc["$id"]
    assert described(doc) == []


def test_the_schema_names_every_miss_of_the_engine_and_nothing_else():
    reasons = schema()["$defs"]["action"]["properties"]["reason"]["enum"]
    assert sorted(r for r in reasons if r is not None) == sorted(Miss.ALL)


def test_records_of_games_played_by_the_engine_fit_the_schema(true_records):
    assert [schema_errors(r) for r in true_records] == [[]] * len(true_records)


@pytest.mark.parametrize(
    ("corrupt", "path"),
    [
        (lambda r: r.pop("ranks"), "$"),
        (lambda r: r.update(version=3), "$.version"),
        (lambda r: r.update(extra=1), "$"),
        (lambda r: r["actions"][0].update(verdict="plays"), "$.actions[0].verdict"),
        (lambda r: r["actions"][0].update(verdict="miss", reason=None), "$.actions[0].reason"),
        (lambda r: r["actions"][0].update(verdict="timeout", reason=None), "$.actions[0].reason"),
        (lambda r: r["actions"][0].update(ms=-1), "$.actions[0].ms"),
        (lambda r: r["dealt"][0].__setitem__(0, "5-1"), "$.dealt[0][0]"),
        (lambda r: r["dealt"][0].__setitem__(0, "JOKER"), "$.dealt[0][0]"),
        (lambda r: r["hands"].pop(), "$.hands"),
        (lambda r: r.update(ranks=[1, 1, 2, 3, 4]), "$.ranks"),
        (lambda r: r.update(order="Nomal"), "$.order"),
        (lambda r: r["players"][0].update(seat=5), "$.players[0].seat"),
        (lambda r: r["exchange"][0].update(cards=[]), "$.exchange[0].cards"),
    ],
)
def test_the_schema_refuses_what_is_no_record(record, corrupt, path):
    corrupt(record)
    errors = schema_errors(record)
    assert errors and errors[0].startswith(f"{path}: ")


def test_a_player_may_write_the_joker_in_any_case(record):
    play = next(a for a in record["actions"] if a["verdict"] == "play")
    play["cards"] = ["JoKeR"]  # the server forgives the case (cards.parse_card)
    assert schema_errors(record) == []


def test_something_that_is_no_object_is_no_record():
    assert schema_errors([1, 2]) == ["$: [1, 2] is not of type 'object'"]
