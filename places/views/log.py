"""The event log of a place over HTTP: what a spectator or bot missed.

Events are public (every place's stream is open to anyone at ``ws://HOST/``),
so the log is too. A client that noticed a gap, or reconnected after a
restart, reads ``/places/ID/events.json?after=SEQ`` and goes on from there.
One exception: the log of a place that is over while another place with its seed
still has games to play (a duplicate deal's rotations) is held back from all but
staff, since its plays show the hands to come (``places.reads.disclosure``).
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse

from daifugo.numbers import ID_MAX, whole
from places import errors
from places.models import Place
from places.reads.disclosure import disclosure
from places.reads.log import MAX_EVENTS, events_after
from places.sessions import is_staff
from places.views import JSON_TYPE, read_only, refusal


@read_only
def events(request: HttpRequest, place_id: str) -> HttpResponse:
    """``{"place":ID,"first_seq":N,"last_seq":M,"events":[…]}``: events after ``after``, in order.

    ``events`` are the messages exactly as sent (key order kept); the first
    has sequence number ``first_seq``. At most ``MAX_EVENTS`` per answer: read
    again from ``last_seq`` for more.
    """
    place_id = int(place_id)
    text = request.GET.get("after", "0").strip()
    after = whole(text.removeprefix("-"), ID_MAX)  # a number below 0: from the first event
    if after is None:
        return refusal(errors.Refused(errors.INVALID_PARAMETER, "after must be an integer"))
    after = 0 if text.startswith("-") else after
    place = Place.objects.filter(pk=place_id).first()
    if place is None:
        return refusal(errors.Refused(errors.NOT_FOUND, f"no place {place_id}"))
    if not disclosure(place, staff=is_staff(request)).log:
        return refusal(
            errors.Refused(
                errors.HELD_BACK,
                f"the event log of place {place_id} is held back until every place dealing "
                "its cards is over",
            )
        )
    rows = events_after(place_id, after, MAX_EVENTS)
    last = rows[-1][0] if rows else after
    body = (
        f'{{"place":{place_id},"first_seq":{after + 1},"last_seq":{last},"events":['
        + ",".join(m for _, m in rows)
        + "]}"
    )
    return HttpResponse(body, content_type=JSON_TYPE)
