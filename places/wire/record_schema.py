"""The game record's JSON Schema (``docs/record.schema.json``), the documented format,
and the one validator that reads it: the command that verifies records and the tests."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from jsonschema import Draft202012Validator

SCHEMA_PATH = Path(__file__).resolve().parents[2] / "docs" / "record.schema.json"


@cache
def validator() -> Draft202012Validator:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)


def schema_errors(record: object) -> list[str]:
    """What makes ``record`` no record of format version 1, each as ``where: what``; [] if valid."""
    return [f"{e.json_path}: {e.message}" for e in validator().iter_errors(record)]
