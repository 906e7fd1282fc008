"""``export_records ID [--out FILE]``: a place's game records as JSON Lines (docs/records.md)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from django.core.management.base import CommandError

from places.management.base import OneLineCommand, place_id
from places.management.progress import Progress
from places.reads.records import place_head, place_records
from places.wire.codec import compact


class Command(OneLineCommand):
    help = (
        "Write the record of every finished game of a place, one JSON object a line "
        "(the seed only once the place is over)."
    )

    def add_arguments(self, parser):
        parser.add_argument("id", help="the place's id")
        parser.add_argument("--out", metavar="FILE", help="write to FILE instead of stdout")

    def handle(self, *args, id, out: str | None, **options):
        self.progress_stream = options.get("stderr") or sys.stderr
        pk = place_id(id)
        records = place_records(pk)
        head = place_head(pk)
        if records is None or head is None:
            raise CommandError(f"no place {pk}")
        if out is None:
            progress = self._progress(head.finished) if self.progress_stream.isatty() else None
            for count, record in enumerate(records, 1):
                self.stdout.write(compact(record), ending="\n")
                if progress:
                    progress.update(count)
            if progress:
                progress.finish()
            return
        progress = self._progress(head.finished)
        # written aside and moved in place: a failed export leaves no half a file
        target = Path(out)
        partial = target.with_name(target.name + ".partial")
        count = 0
        try:
            with partial.open("w", encoding="utf-8") as f:
                for record in records:
                    f.write(compact(record) + "\n")
                    count += 1
                    progress.update(count)
            os.replace(partial, target)
            progress.finish()
        except OSError as e:
            partial.unlink(missing_ok=True)
            raise CommandError(f"cannot write {out}: {e.strerror}") from None
        self.stdout.write(f"{count} records of place {pk} written to {out}")

    def _progress(self, total: int) -> Progress:
        """On stderr: stdout may be the records themselves."""
        return Progress(self.progress_stream, "export_records", total, unit="games")
