"""Game records over HTTP (``docs/records.md``): one finished game, or a place's every one.

Records are public as the event log is: they show the hands of finished games
only, the seed only once the place is over, and a deal played by other places too
(a duplicate deal's rotations) only once every one of them has played it; staff
read them all (``places.reads.disclosure``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from itertools import chain

from asgiref.sync import sync_to_async
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse

from places import errors
from places.models import Place, Tournament
from places.reads.records import place_head, record_chunks, record_of
from places.sessions import is_staff
from places.views import json_response, read_only, refusal
from places.wire.codec import compact

#: JSON Lines as most tools name it (``application/jsonl`` is not registered either).
JSONL_TYPE = "application/x-ndjson"


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
    each, streamed (the held-back games are left out)."""
    head = place_head(int(place_id), staff=is_staff(request))
    if head is None:
        return refusal(errors.Refused(errors.NOT_FOUND, f"no place {place_id}"))
    response = StreamingHttpResponse(_lines(record_chunks(head)), content_type=JSONL_TYPE)
    response["Content-Disposition"] = f'inline; filename="place-{head.id}-records.jsonl"'
    return response


@read_only
def tournament_records(request: HttpRequest, tournament_id: str) -> HttpResponse:
    """``/tournaments/ID/records.jsonl``: the records of every place of the tournament, in the
    order of its tables, as each place's ``records.jsonl`` gives them (the held-back games
    left out), streamed."""
    tournament = Tournament.objects.filter(pk=int(tournament_id)).first()
    if tournament is None:
        return refusal(errors.Refused(errors.NOT_FOUND, f"no tournament {tournament_id}"))
    staff = is_staff(request)
    places = (
        Place.objects.filter(tournament=tournament)
        .order_by("table_no")
        .values_list("id", flat=True)
    )
    chunks = chain.from_iterable(_place_chunks(place_id, staff) for place_id in places)
    response = StreamingHttpResponse(_lines(chunks), content_type=JSONL_TYPE)
    response["Content-Disposition"] = f'inline; filename="tournament-{tournament.id}-records.jsonl"'
    return response


def _place_chunks(place_id: int, staff: bool) -> Iterator[list[dict]]:
    """A place's records as its own route reads them, read once the stream reaches it."""
    head = place_head(place_id, staff=staff)
    if head is not None:
        yield from record_chunks(head)


async def _lines(chunks: Iterator[list[dict]]) -> AsyncIterator[str]:
    """Each chunk read on the request's thread, sent before the next is read.

    An asynchronous iterator: under ASGI (daphne) Django would read a synchronous
    one to its end before sending anything.
    """
    while batch := await sync_to_async(next)(chunks, None):
        yield "".join(compact(r) + "\n" for r in batch)
