"""The game record's JSON Schema (``docs/record.schema.json``), the documented format,
and the one validator that reads it: the command that verifies records and the tests.
The replay page's script checks a record read from a file against the same schema
(``static/js/schema.js``), sent in the page's config."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from jsonschema import Draft202012Validator

SCHEMA_PATH = Path(__file__).resolve().parents[2] / "docs" / "record.schema.json"


@cache
def _schema_text() -> str:
    return SCHEMA_PATH.read_text(encoding="utf-8")


def schema() -> dict:
    """The schema as data (a fresh copy): the replay page checks dropped records against it."""
    return json.loads(_schema_text())


@cache
def validator() -> Draft202012Validator:
    document = schema()
    Draft202012Validator.check_schema(document)
    return Draft202012Validator(document, format_checker=Draft202012Validator.FORMAT_CHECKER)


def schema_errors(record: object) -> list[str]:
    """What makes ``record`` no record of format version 1, each as ``where: what``; [] if valid."""
    return [f"{e.json_path}: {e.message}" for e in validator().iter_errors(record)]
