"""``verify_record FILE``: check game records (format version 1, or 2 for the uecda rules)
against their schema, then replay each game through the engine: ``ok: game N, ranks …``
or the first divergence of each."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

from django.core.management.base import CommandError

from places.engine.replay import Diverged
from places.engine.uecda_record import replay_any
from places.management.base import OneLineCommand
from places.wire.record_schema import record_version, schema_errors

#: Files read as one record a line; any other is one JSON record.
LINES_SUFFIXES = (".jsonl", ".ndjson")
#: Schema errors told per record: the first few say what is wrong.
ERRORS_SHOWN = 3


class Command(OneLineCommand):
    help = (
        "Verify game records (a .json record or a .jsonl file of them): their schema, then "
        "a replay of every game through the engine. Exits non-zero on any failure."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="a .json record, or a .jsonl file of records")

    def handle(self, *args, file: str, **options):
        path = Path(file)
        try:
            f = path.open(encoding="utf-8")
        except OSError as e:
            raise CommandError(f"cannot read {file}: {e.strerror}") from None
        self.checked = self.failed = 0
        with f:
            for outcome in replay_any(self._valid(f, path.suffix in LINES_SUFFIXES)):
                if isinstance(outcome, Diverged):
                    self._fail(str(outcome))
                else:
                    self.stdout.write(str(outcome))
        if self.checked == 0:
            raise CommandError(f"no records in {file}")
        if self.failed:
            raise CommandError(f"{self.failed} of {self.checked} records fail")

    def _valid(self, f: TextIO, by_line: bool) -> Iterator[dict]:
        """The records of the file that fit the schema, in order; the others told as failures."""
        for where, text in _texts(f, by_line):
            self.checked += 1
            try:
                record = json.loads(text)
            except (ValueError, RecursionError) as e:
                self._fail(f"{where}: not JSON ({e})")
                continue
            problems = schema_errors(record)
            if problems:
                game = record.get("game") if isinstance(record, dict) else None
                named = f"{where} (game {game})" if isinstance(game, int) else where
                shown = "; ".join(problems[:ERRORS_SHOWN])
                more = len(problems) - ERRORS_SHOWN
                self._fail(
                    f"{named}: not a record of format version {record_version(record)}: {shown}"
                    + (f"; and {more} more" if more > 0 else "")
                )
                continue
            yield record

    def _fail(self, message: str) -> None:
        self.failed += 1
        self.stderr.write(message)


def _texts(f: TextIO, by_line: bool) -> Iterator[tuple[str, str]]:
    """``(where, JSON text)`` of each record: each non-blank line, or the whole file."""
    try:
        if not by_line:
            yield "the record", f.read()
            return
        for no, line in enumerate(f, 1):
            if line.strip():
                yield f"line {no}", line
    except UnicodeDecodeError:
        raise CommandError(f"{f.name} is not UTF-8 text") from None
