"""``verify_record`` on records of format version 2 (the uecda rules), alone and mixed
with version 1 records in one file: each is judged by its own schema and replay."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from daifugo.uecda_log import parse_log, referee
from daifugo.uecda_record import record_of_logged
from tests.daifugo.recorded import play_place
from tests.daifugo.test_uecda_log import fixture_lines

from .test_record_commands import failing, run

PLACE = {"id": None, "title": "tndhms fixture", "games": 250}


@pytest.fixture(scope="module")
def uecda_records() -> list[dict]:
    log = parse_log(fixture_lines())
    return [record_of_logged(log, done, PLACE) for done in list(referee(log))[:12]]


def write(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_version_2_records_verify_and_replay(uecda_records, tmp_path):
    out, err = run("verify_record", str(write(tmp_path / "u.jsonl", uecda_records)))
    assert err == ""
    lines = out.splitlines()
    assert len(lines) == 12 and lines[0].startswith("ok: game 1, ranks ")


def test_both_versions_verify_in_one_file(uecda_records, tmp_path):
    mixed = [*play_place("mixed", games=2, rng_seed=3), *uecda_records[:3]]
    out, err = run("verify_record", str(write(tmp_path / "both.jsonl", mixed)))
    assert err == "" and len(out.splitlines()) == 5


def test_an_altered_version_2_record_fails_naming_the_game_and_turn(uecda_records, tmp_path):
    records = json.loads(json.dumps(uecda_records))
    action = next(a for a in records[1]["actions"] if a["verdict"] == "play")
    action["verdict"] = "rejected"
    _, err, message = failing("verify_record", str(write(tmp_path / "bad.jsonl", records)))
    assert err.startswith(f"game 2, turn {action['turn']}: recorded rejected")
    assert message == "1 of 12 records fail"


def test_a_version_2_record_out_of_its_schema_is_named_by_its_version(uecda_records, tmp_path):
    records = json.loads(json.dumps(uecda_records[:2]))
    records[1]["end"] = "tie"
    _, err, _ = failing("verify_record", str(write(tmp_path / "bad.jsonl", records)))
    assert err.startswith("line 2 (game 2): not a record of format version 2: $.end: 'tie'")
