"""``verify_record FILE``: check game records (format version 1, or 2 for the uecda rules)
against their schema, then replay each game through the engine: ``ok: game N, ranks …``
or the first divergence of each. The installed client's ``daihinmin-verify`` (``bots/verify.py``)
does the same checks."""

from __future__ import annotations

from django.core.management.base import CommandError

from bots.verify import Unreadable, Verifier
from places.management.base import OneLineCommand


class Command(OneLineCommand):
    help = (
        "Verify game records (a .json record or a .jsonl file of them): their schema, then "
        "a replay of every game through the engine. Exits non-zero on any failure."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="a .json record, or a .jsonl file of records")

    def handle(self, *args, file: str, **options):
        verifier = Verifier(self.stdout.write, self.stderr.write)
        try:
            verifier.check(file)
        except Unreadable as e:
            raise CommandError(str(e)) from None
        if verifier.failed:
            raise CommandError(f"{verifier.failed} of {verifier.checked} records fail")
