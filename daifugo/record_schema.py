"""The game record's JSON Schemas (``docs/record.schema.json`` for format version 1,
``docs/record-v2.schema.json`` for version 2, the uecda rules), the documented formats,
and the one validator that reads them: the command that verifies records and the tests.
The replay page's script checks a record read from a file against the same schema
(``static/js/schema.js``), sent in the page's config."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

from jsonschema import Draft202012Validator

#: The documents' folder of a clone, where the schemas are kept and documented.
DOCS = Path(__file__).resolve().parents[1] / "docs"
#: The same files in the installed client (pyproject.toml ships ``docs/*.schema.json`` as
#: this package's data: ``daihinmin-verify`` checks records without a clone).
INSTALLED = "daihinmin_schemas"


def schema_file(name: str) -> Path | Traversable:
    """A schema of ``docs/``: the clone's file, else the installed client's copy of it."""
    path = DOCS / name
    return path if path.is_file() else resources.files(INSTALLED) / name


def schema(version: int = 1) -> dict:
    """The schema of a format version as data (a fresh copy): the replay page checks
    dropped records against it."""
    name = "record-v2.schema.json" if version == 2 else "record.schema.json"
    return json.loads(schema_file(name).read_text(encoding="utf-8"))


@cache
def validator(version: int = 1) -> Draft202012Validator:
    document = schema(version)
    Draft202012Validator.check_schema(document)
    return Draft202012Validator(document, format_checker=Draft202012Validator.FORMAT_CHECKER)


def record_version(record: object) -> int:
    """The format version a record is judged by: 2 if it says so, else 1."""
    return 2 if isinstance(record, dict) and record.get("version") == 2 else 1


def schema_errors(record: object) -> list[str]:
    """What makes ``record`` no record of its format version (:func:`record_version`),
    each as ``where: what``; [] if valid."""
    found = validator(record_version(record)).iter_errors(record)
    return [f"{e.json_path}: {e.message}" for e in found]


@cache
def analysis_validator() -> Draft202012Validator:
    """The validator of ``docs/analysis.schema.json``: a game's analysis document."""
    document = json.loads(schema_file("analysis.schema.json").read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(document)
    return Draft202012Validator(document)


def analysis_errors(document: object) -> list[str]:
    """What makes ``document`` no analysis (``docs/analysis.schema.json``); [] if valid."""
    return [f"{e.json_path}: {e.message}" for e in analysis_validator().iter_errors(document)]
