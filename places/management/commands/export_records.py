"""``export_records ID [--out FILE] [--staff]``: a place's game records as JSON Lines
(docs/records.md): what ``records.jsonl`` shows anyone, or with ``--staff`` what staff
read (every finished game, and the seed)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from django.core.management.base import CommandError

from places.management.base import OneLineCommand, place_id
from places.management.progress import Progress
from places.reads.records import place_head, record_chunks
from places.wire.codec import compact


class Command(OneLineCommand):
    help = (
        "Write the record of every finished game of a place, one JSON object a line, as "
        "anyone may read them (the seed only once the place is over; a deal other places "
        "still have to play held back); --staff: every finished game and the seed."
    )

    def add_arguments(self, parser):
        parser.add_argument("id", help="the place's id")
        parser.add_argument("--out", metavar="FILE", help="write to FILE instead of stdout")
        parser.add_argument(
            "--staff",
            action="store_true",
            help="staff's view: held-back games and the seed too (not for publishing)",
        )

    def handle(self, *args, id, out: str | None, staff: bool, **options):
        self.progress_stream = options.get("stderr") or sys.stderr
        pk = place_id(id)
        head = place_head(pk, staff=staff)  # read once: the count and the records agree
        if head is None:
            raise CommandError(f"no place {pk}")
        records = (record for batch in record_chunks(head) for record in batch)
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
