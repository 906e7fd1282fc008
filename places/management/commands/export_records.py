"""``export_records ID [--out FILE] [--staff]``: a place's game records as JSON Lines
(docs/records.md): what ``records.jsonl`` shows anyone, or with ``--staff`` what staff
read (every finished game, and the seed)."""

from __future__ import annotations

import os
from pathlib import Path

from django.core.management.base import CommandError

from places.management.base import OneLineCommand, place_id
from places.reads.records import place_records
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
        pk = place_id(id)
        records = place_records(pk, staff=staff)
        if records is None:
            raise CommandError(f"no place {pk}")
        if out is None:
            for record in records:
                self.stdout.write(compact(record), ending="\n")
            return
        # written aside and moved in place: a failed export leaves no half a file
        target = Path(out)
        partial = target.with_name(target.name + ".partial")
        count = 0
        try:
            with partial.open("w", encoding="utf-8") as f:
                for record in records:
                    f.write(compact(record) + "\n")
                    count += 1
            os.replace(partial, target)
        except OSError as e:
            partial.unlink(missing_ok=True)
            raise CommandError(f"cannot write {out}: {e.strerror}") from None
        self.stdout.write(f"{count} records of place {pk} written to {out}")
