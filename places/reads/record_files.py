"""A finished place's or tournament's ``records.jsonl``, made once as a file and served
from it (``docs/records.md``).

Reading and writing a 600-game place's records costs the server over a second (its
reads on the one thread every view shares): done for each download, a dozen at once
held every other request for seconds. Once the reader's records of a place are all
it will ever have (``PlaceHead.final``: the place over, nothing held back from this
reader), they are what the file holds, whoever asks again.

A file is named by what its lines depend on: the heads of its places as the reader
reads them (the title, the players' names, the seed if shown, the games; the time
each place was made, so that a place of another database with the same id is
another) and :data:`MAKING`. A reader whose head differs (a seed still hidden, a title changed)
reads another file; the name is the answer's ``ETag`` too, known before the file
is made. A file is written beside its name and renamed to it whole, so a reader,
or another process, never sees it half made. The folder is ``RECORDS_CACHE_DIR``;
files of heads no longer read are left there (a few a place at most: delete them
any time).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings

from places.reads.records import PlaceHead, lines_of, record_chunks

#: What the lines hold and how they are written: a change of either changes it, so that
#: no file of the old making is served.
MAKING = 1

#: Held while a file is made.
_making = threading.Lock()


@dataclass(frozen=True, slots=True)
class RecordFile:
    """The file of some places' records, as one reader reads them (made or not yet)."""

    name: str
    heads: tuple[PlaceHead, ...]
    digest: str

    @property
    def path(self) -> Path:
        return Path(settings.RECORDS_CACHE_DIR) / f"{self.name}-{self.digest}.jsonl"

    @property
    def etag(self) -> str:
        return f'"{self.digest}"'

    def made(self) -> Path:
        """The file's path, made first if it is not there: on this thread (the reads are
        Django's), one file at a time in the process, so that a dozen readers of a file
        not made yet make it once."""
        path = self.path
        if path.exists():
            return path
        with _making:
            if not path.exists():
                _make(path, self.heads)
        return path


def _make(path: Path, heads: tuple[PlaceHead, ...]) -> None:
    """Write the records of ``heads`` beside ``path`` and rename the file to it, whole."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, part = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            for head in heads:
                for batch in record_chunks(head):
                    out.write(lines_of(batch))
        os.replace(part, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(part)
        raise


def record_file(name: str, heads: Sequence[PlaceHead]) -> RecordFile | None:
    """The file of ``heads``' records, in order, once every one is final; else None (they
    are read afresh for each answer)."""
    if not heads or not all(head.final for head in heads):
        return None
    digest = hashlib.sha256(repr((MAKING, name, *heads)).encode()).hexdigest()[:32]
    return RecordFile(name, tuple(heads), digest)
