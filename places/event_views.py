"""The event log of a place over HTTP: what a spectator or bot missed.

Events are public (every place's stream is open to anyone at ``ws://HOST/``),
so the log is too. A client that noticed a gap, or reconnected after a
restart, reads ``/places/ID/events.json?after=SEQ`` and goes on from there.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.http import require_safe

from places.models import Place, PlaceEvent

MAX_EVENTS = 5000


@require_safe
def events(request: HttpRequest, place_id: int) -> HttpResponse:
    """``{"place":ID,"first_seq":N,"last_seq":M,"events":[…]}``: events after ``after``, in order.

    ``events`` are the messages exactly as sent (key order kept); the first
    has sequence number ``first_seq``. At most 5,000 per answer: read again
    from ``last_seq`` for more.
    """
    try:
        after = max(0, int(request.GET.get("after", "0")))
    except ValueError:
        return JsonResponse(
            {"error": {"code": "INVALID_PARAMETER", "message": "after must be an integer"}},
            status=400,
        )
    if not Place.objects.filter(pk=place_id).exists():
        return JsonResponse(
            {"error": {"code": "NOT_FOUND", "message": f"no place {place_id}"}}, status=404
        )
    rows = list(
        PlaceEvent.objects.filter(place_id=place_id, seq__gt=after)
        .order_by("seq")
        .values_list("seq", "message")[:MAX_EVENTS]
    )
    last = rows[-1][0] if rows else after
    body = (
        f'{{"place":{place_id},"first_seq":{after + 1},"last_seq":{last},"events":['
        + ",".join(m for _, m in rows)
        + "]}"
    )
    return HttpResponse(body, content_type="application/json")
