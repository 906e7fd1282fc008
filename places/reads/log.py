"""A place's event log: every event as it was sent, by sequence number."""

from __future__ import annotations

from places.models import Place, PlaceEvent

#: An answer of the log over HTTP holds at most this many events.
MAX_EVENTS = 5000


def events_between(place_id: int, first: int, last: int) -> list[tuple[int, str]]:
    """``[(seq, text)]`` with ``first <= seq < last``, in order."""
    rows = PlaceEvent.objects.filter(place_id=place_id, seq__gte=first, seq__lt=last)
    return list(rows.order_by("seq").values_list("seq", "message"))


def events_after(place_id: int, after: int, limit: int = MAX_EVENTS) -> list[tuple[int, str]]:
    """``[(seq, text)]`` after ``after``, in order, at most ``limit``."""
    rows = PlaceEvent.objects.filter(place_id=place_id, seq__gt=after).order_by("seq")
    return list(rows.values_list("seq", "message")[:limit])


def last_numbers(place_id: int | None) -> dict[int, int]:
    """``{place id: its last event number}`` of one place, or of every running place."""
    places = Place.objects.all()
    if place_id is None:
        places = places.filter(state=Place.State.RUNNING)
    else:
        places = places.filter(pk=place_id)
    return dict(places.values_list("id", "event_seq"))
