"""``export_records`` and ``verify_record``: a seeded place played to its end is exported,
verified and replayed to the database's ranks; a corrupted record fails, naming where."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from places import services
from places.models import Place
from places.reads.records import game_record, place_records
from places.wire.codec import compact

from .drive import play_out
from .test_commands import manage
from .test_records import ranks_in_the_database


def run(*args: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def failing(*args: str) -> tuple[str, str, str]:
    """(stdout, stderr, the one-line error) of a command that fails."""
    out, err = StringIO(), StringIO()
    with pytest.raises(CommandError) as e:
        call_command(*args, stdout=out, stderr=err)
    assert "\n" not in str(e.value)
    return out.getvalue(), err.getvalue(), str(e.value)


@pytest.fixture
def finished(make_place) -> Place:
    place = make_place(game_count=4)
    services.start_place(place.id)
    play_out(place.id)
    return place


@pytest.fixture
def exported(finished, tmp_path) -> Path:
    path = tmp_path / "records.jsonl"
    run("export_records", str(finished.id), "--out", str(path))
    return path


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def write(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(compact(r) + "\n" for r in records), encoding="utf-8")
    return path


# -- export_records ---------------------------------------------------------------------------


def test_export_records_writes_a_line_per_finished_game_to_stdout(finished):
    out, _ = run("export_records", str(finished.id))
    assert out.splitlines() == [compact(r) for r in place_records(finished.id)]


def test_export_records_writes_a_file_and_says_so(finished, exported):
    assert lines(exported) == list(place_records(finished.id))
    assert not exported.with_name("records.jsonl.partial").exists()


def test_export_records_refuses_an_unknown_place(db):
    assert failing("export_records", "999")[2] == "no place 999"


def test_export_records_refuses_a_file_it_cannot_write(finished, tmp_path):
    target = tmp_path / "missing" / "records.jsonl"
    message = failing("export_records", str(finished.id), "--out", str(target))[2]
    assert message.startswith(f"cannot write {target}")


# -- verify_record ----------------------------------------------------------------------------


def test_an_exported_place_verifies_and_replays_to_the_ranks_in_the_database(finished, exported):
    out, err = run("verify_record", str(exported))
    database = ranks_in_the_database(finished.id)
    assert out.splitlines() == [
        f"ok: game {no}, ranks {' '.join(map(str, database[no]))}" for no in (1, 2, 3, 4)
    ]
    assert err == ""


def test_one_record_in_a_json_file_verifies(finished, tmp_path):
    path = tmp_path / "game-3.json"
    path.write_text(json.dumps(game_record(finished.id, 3), indent=2), encoding="utf-8")
    out, _ = run("verify_record", str(path))
    assert out.startswith("ok: game 3, ranks ")


def test_a_card_changed_fails_naming_the_game_and_turn(exported):
    records = lines(exported)
    record = records[2]
    action = next(a for a in record["actions"][5:] if a["verdict"] == "play")
    seat = action["seat"]
    action["cards"] = [next(c for s, h in enumerate(record["hands"]) if s != seat for c in h[:1])]
    out, err, message = failing("verify_record", str(write(exported, records)))
    assert err.splitlines() == [
        f"game 3, turn {action['turn']}: recorded play, the engine says miss (CARD_NOT_HELD)"
    ]
    assert [line.split(",")[0] for line in out.splitlines()] == [
        "ok: game 1",
        "ok: game 2",
        "ok: game 4",
    ]
    assert message == "1 of 4 records fail"


def test_a_rank_changed_fails_at_the_end_of_its_game(exported):
    records = lines(exported)
    ranks = records[0]["ranks"]
    ranks[0], ranks[4] = ranks[4], ranks[0]
    _, err, _ = failing("verify_record", str(write(exported, records)))
    assert err.startswith(f"game 1, end: recorded ranks {ranks}, the engine says ")


def test_a_dealt_hand_altered_fails_at_the_deal(exported):
    records = lines(exported)
    dealt = records[1]["dealt"]
    dealt[0][-1], dealt[3][-1] = dealt[3][-1], dealt[0][-1]
    _, err, _ = failing("verify_record", str(write(exported, records)))
    assert err.splitlines()[0] == "game 2, deal: seat 0's dealt hand is not the seed's deal"


def test_a_schema_invalid_record_fails_naming_its_line_and_what_is_wrong(exported):
    records = lines(exported)
    records[1]["actions"][0]["verdict"] = "plays"
    del records[3]["order"]
    out, err, message = failing("verify_record", str(write(exported, records)))
    assert err.splitlines() == [
        "line 2 (game 2): not a record of format version 1: $.actions[0].verdict: "
        "'plays' is not one of ['play', 'pass', 'miss', 'timeout']",
        "line 4 (game 4): not a record of format version 1: $: 'order' is a required property",
    ]
    assert [line.split(",")[0] for line in out.splitlines()] == ["ok: game 1", "ok: game 3"]
    assert message == "2 of 4 records fail"


def test_a_line_that_is_not_json_fails(exported):
    with exported.open("a", encoding="utf-8") as f:
        f.write("{not json\n")
    _, err, _ = failing("verify_record", str(exported))
    assert err.startswith("line 5: not JSON (")


def test_an_empty_file_has_no_records(tmp_path):
    path = tmp_path / "empty.jsonl"
    path.write_text("\n", encoding="utf-8")
    assert failing("verify_record", str(path))[2] == f"no records in {path}"


def test_a_missing_file_is_refused(tmp_path):
    message = failing("verify_record", str(tmp_path / "none.jsonl"))[2]
    assert message.startswith(f"cannot read {tmp_path / 'none.jsonl'}")


def test_from_a_shell_a_failing_verification_exits_non_zero(exported, tmp_path):
    records = lines(exported)
    records[0]["actions"][0]["seat"] = (records[0]["actions"][0]["seat"] + 1) % 5
    bad = write(tmp_path / "bad.jsonl", records)
    good = tmp_path / "good.jsonl"
    good.write_text(exported.read_text(encoding="utf-8"), encoding="utf-8")
    db = tmp_path / "unused.sqlite3"  # verify_record reads no database
    assert manage("verify_record", str(good), db=db).returncode == 0
    done = manage("verify_record", str(bad), db=db)
    assert done.returncode != 0
    assert "game 1, turn 1: recorded seat" in done.stderr
    assert "Traceback" not in done.stderr
