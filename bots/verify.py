"""``daihinmin-verify FILE``: check game records (format version 1, or 2 for the uecda rules)
against their schema, then replay each game through the engine: ``ok: game N, ranks …`` or
the first divergence of each. The server's ``manage.py verify_record`` is this, so that a
bot author checks a downloaded ``records.jsonl`` with the installed client alone."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TextIO

from daifugo.record_schema import record_version, schema_errors
from daifugo.replay import Diverged
from daifugo.uecda_record import replay_any

#: Files read as one record a line; any other is one JSON record.
LINES_SUFFIXES = (".jsonl", ".ndjson")
#: Schema errors told per record: the first few say what is wrong.
ERRORS_SHOWN = 3


class Unreadable(Exception):
    """The file cannot be read as records at all."""


class Verifier:
    """Checks a file's records; ``ok`` gets each replayed game, ``fail`` each failure."""

    def __init__(self, ok: Callable[[str], None], fail: Callable[[str], None]):
        self.ok, self._fail = ok, fail
        self.checked = self.failed = 0

    def fail(self, message: str) -> None:
        self.failed += 1
        self._fail(message)

    def check(self, file: str) -> None:
        """Every record of ``file``; :class:`Unreadable` when there is none to check."""
        path = Path(file)
        try:
            f = path.open(encoding="utf-8")
        except OSError as e:
            raise Unreadable(f"cannot read {file}: {e.strerror}") from None
        with f:
            for outcome in replay_any(self._valid(f, path.suffix in LINES_SUFFIXES)):
                if isinstance(outcome, Diverged):
                    self.fail(str(outcome))
                else:
                    self.ok(str(outcome))
        if self.checked == 0:
            raise Unreadable(f"no records in {file}")

    def _valid(self, f: TextIO, by_line: bool) -> Iterator[dict]:
        """The records of the file that fit the schema, in order; the others told as failures."""
        for where, text in _texts(f, by_line):
            self.checked += 1
            try:
                record = json.loads(text)
            except (ValueError, RecursionError) as e:
                self.fail(f"{where}: not JSON ({e})")
                continue
            problems = schema_errors(record)
            if problems:
                game = record.get("game") if isinstance(record, dict) else None
                named = f"{where} (game {game})" if isinstance(game, int) else where
                shown = "; ".join(problems[:ERRORS_SHOWN])
                more = len(problems) - ERRORS_SHOWN
                self.fail(
                    f"{named}: not a record of format version {record_version(record)}: {shown}"
                    + (f"; and {more} more" if more > 0 else "")
                )
                continue
            yield record


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
        raise Unreadable(f"{f.name} is not UTF-8 text") from None


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="daihinmin-verify",
        description="Verify game records (a .json record or a .jsonl file of them): their "
        "schema, then a replay of every game through the engine. Exits 1 on any failure.",
    )
    parser.add_argument("file", help="a .json record, or a .jsonl file of records")
    args = parser.parse_args(argv)
    verifier = Verifier(print, lambda m: print(m, file=sys.stderr))
    try:
        verifier.check(args.file)
    except Unreadable as e:
        raise SystemExit(f"daihinmin-verify: {e}") from None
    if verifier.failed:
        raise SystemExit(f"{verifier.failed} of {verifier.checked} records fail")


if __name__ == "__main__":
    main()
