"""Game records over HTTP (``docs/records.md``): one finished game, or a place's every one.

Records are public as the event log is: they show the hands of finished games
only, the seed only once the place is over, and a deal played by other places too
(a duplicate deal's rotations) only once every one of them has played it; staff
read them all (``places.reads.disclosure``).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Iterator
from itertools import chain
from typing import BinaryIO, TypeVar

from django.db import connections
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.utils.cache import get_conditional_response

from api import downloads
from api.throttle import address_of
from places import errors
from places.models import Place, Tournament
from places.reads.record_files import record_file
from places.reads.records import PlaceHead, lines_of, place_head, record_chunks, record_of
from places.realtime import db_thread
from places.sessions import is_staff
from places.views import json_response, read_only, refusal

#: JSON Lines as most tools name it (``application/jsonl`` is not registered either).
JSONL_TYPE = "application/x-ndjson"

#: Bytes of a record file read and sent at a time (Django's ASGI handler sends 64 KiB parts).
FILE_PART = 1 << 16

T = TypeVar("T")


@read_only
def record(request: HttpRequest, place_id: str, game_no: str) -> HttpResponse:
    """``/places/ID/games/N/record.json``: the record of finished game N."""
    no = int(game_no)
    head = place_head(int(place_id), staff=is_staff(request))
    if head is not None and head.played >= no > head.finished:
        return refusal(
            errors.Refused(
                errors.HELD_BACK,
                f"game {no} of place {head.id} is held back until every place dealing "
                "its cards has played it",
            )
        )
    doc = None if head is None else record_of(head, no)
    if doc is None:
        return refusal(
            errors.Refused(errors.NOT_FOUND, f"no finished game {no} in place {place_id}")
        )
    return json_response(doc)


@read_only
def records(request: HttpRequest, place_id: str) -> HttpResponse:
    """``/places/ID/records.jsonl``: one record per finished game the reader may read, a line
    each (the held-back games are left out); a finished place's from its file."""
    head = place_head(int(place_id), staff=is_staff(request))
    if head is None:
        return refusal(errors.Refused(errors.NOT_FOUND, f"no place {place_id}"))
    return _download(request, f"place-{head.id}", [head])


@read_only
def tournament_records(request: HttpRequest, tournament_id: str) -> HttpResponse:
    """``/tournaments/ID/records.jsonl``: the records of every place of the tournament, in the
    order of its tables, as each place's ``records.jsonl`` gives them (the held-back games
    left out); a finished tournament's from its file."""
    tournament = Tournament.objects.filter(pk=int(tournament_id)).first()
    if tournament is None:
        return refusal(errors.Refused(errors.NOT_FOUND, f"no tournament {tournament_id}"))
    staff = is_staff(request)
    places = Place.objects.filter(tournament=tournament).order_by("table_no")
    heads = [place_head(pk, staff=staff) for pk in places.values_list("id", flat=True)]
    return _download(request, f"tournament-{tournament.id}", [h for h in heads if h])


def _download(request: HttpRequest, name: str, heads: list[PlaceHead]) -> HttpResponse:
    """The records of ``heads`` as ``NAME-records.jsonl``: from their file once they are
    final (``ETag``; ``304`` to a reader who has it), else read as they are sent; at most
    ``RECORDS_DOWNLOADS_PER_ADDRESS`` under way at once from an address (api/downloads.py)."""
    made = record_file(name, heads)
    if made is not None:
        not_modified = get_conditional_response(request, etag=made.etag)
        if not_modified is not None:
            return not_modified
    try:
        claim = downloads.claim(address_of(request))
    except errors.Refused as refused:
        return refusal(refused)
    try:
        if made is None:
            chunks = chain.from_iterable(record_chunks(head) for head in heads)
            response = StreamingHttpResponse(
                _released(_lines(chunks), claim), content_type=JSONL_TYPE
            )
        else:
            file = open(made.made(), "rb")  # noqa: SIM115 - closed by _file_parts
            response = StreamingHttpResponse(
                _released(_file_parts(file), claim), content_type=JSONL_TYPE
            )
            response["Content-Length"] = str(os.fstat(file.fileno()).st_size)
            response["ETag"] = made.etag
    except BaseException:
        downloads.release(claim)
        raise
    response["Content-Disposition"] = f'inline; filename="{name}-records.jsonl"'
    _done_with_the_database()
    return response


def _done_with_the_database() -> None:
    """Give this request's database connections back before its answer is sent.

    Django would once the answer has gone, and a download goes at its client's pace:
    twenty left unread held twenty of PostgreSQL's pool (``max_size`` 20), and the next
    request of anyone waited for one. The answer reads nothing more here (a file; or
    chunks read on the thread of long reads). Not inside a transaction (a test's).
    """
    for connection in connections.all(initialized_only=True):
        if not connection.in_atomic_block:
            connection.close()


async def _released(parts: AsyncIterator[T], claim: downloads.Claim | None) -> AsyncIterator[T]:
    """``parts``, and the download's claim released once they are sent, or the client gone
    (the answer closed)."""
    try:
        async for part in parts:
            yield part
    finally:
        downloads.release(claim)


async def _file_parts(file: BinaryIO) -> AsyncIterator[bytes]:
    """The file, a part at a time, each read off the loop; sent at the client's pace
    (daihinmin/pacing.py)."""
    try:
        while part := await asyncio.to_thread(file.read, FILE_PART):
            yield part
    finally:
        file.close()


async def _lines(chunks: Iterator[list[dict]]) -> AsyncIterator[str]:
    """Each chunk read and written on the thread of long reads (``db_thread.run_long``),
    sent before the next is read.

    An asynchronous iterator: under ASGI (daphne) Django would read a synchronous
    one to its end before sending anything. It keeps only a chunk's text while the
    client takes it (a chunk's records as objects weigh ten times more: twenty
    streams left unread kept 130 MiB).
    """
    while (text := await db_thread.run_long(_next_lines, chunks)) is not None:
        yield text


def _next_lines(chunks: Iterator[list[dict]]) -> str | None:
    """The next chunk's lines; None after the last."""
    batch = next(chunks, None)
    return None if batch is None else lines_of(batch)
