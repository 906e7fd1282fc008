"""Staff endpoints for driving a place (PROTOCOL.md §5).

Scripts call these with a staff session cookie and nothing else: no CSRF
token. Instead, an unsafe request whose ``Origin`` (or, without one,
``Referer``) names another host is refused, so that a page on another site
cannot make a logged-in staff member's browser start or step a place.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import wraps

from django.http import HttpRequest, HttpResponse
from django.views.decorators.csrf import csrf_exempt

from daihinmin.origins import foreign_header, netloc
from places import services, wire
from places.management import queries
from places.models import Place

SAFE_METHODS = ("GET", "HEAD")


def _json(data, status: int = 200) -> HttpResponse:
    return HttpResponse(
        json.dumps(data, separators=(",", ":"), ensure_ascii=False),
        status=status,
        content_type="application/json",
    )


def _error(code: str, message: str, status: int) -> HttpResponse:
    return _json({"error": {"code": code, "message": message}}, status)


def _cross_site(request: HttpRequest) -> bool:
    """Whether the request's Origin (or Referer) names another host than its own."""
    own = netloc(request.scheme or "http", request.get_host())
    return (
        foreign_header(request.headers.get("Origin"), request.headers.get("Referer"), own)
        is not None
    )


def staff_endpoint(*methods: str) -> Callable:
    """Staff only, these methods only, same-site when unsafe; ServiceError as JSON."""

    def decorate(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @csrf_exempt
        @wraps(view)
        def wrapped(request: HttpRequest, place_id: int, **kwargs) -> HttpResponse:
            user = request.user
            if not user.is_authenticated:
                return _error(services.NOT_LOGGED_IN, "log in as staff first", 401)
            if not (user.is_active and user.is_staff):
                return _error("STAFF_ONLY", "only staff may do this", 403)
            if request.method not in methods:
                response = _error(
                    "METHOD_NOT_ALLOWED", f"use {' or '.join(methods)}, not {request.method}", 405
                )
                response["Allow"] = ", ".join(methods)
                return response
            if request.method not in SAFE_METHODS and _cross_site(request):
                return _error("CROSS_SITE", "refused: the request came from another site", 403)
            try:
                return view(request, int(place_id), **kwargs)
            except services.ServiceError as e:
                return _error(e.code, e.message, e.status)

        return wrapped

    return decorate


def _place(place_id: int) -> Place:
    try:
        return Place.objects.get(pk=place_id)
    except Place.DoesNotExist:
        raise services.ServiceError(services.NOT_FOUND, f"no place {place_id}", 404) from None


def _state_answer(place_id: int) -> HttpResponse:
    state = Place.objects.values_list("state", flat=True).get(pk=place_id)
    return _json({"place": place_id, "state": state})


@staff_endpoint("POST", "PUT")
def start(request: HttpRequest, place_id: int) -> HttpResponse:
    services.start_place(place_id)
    return _state_answer(place_id)


@staff_endpoint("POST", "PUT")
def next_turn(request: HttpRequest, place_id: int) -> HttpResponse:
    services.next_turn(place_id)
    return _state_answer(place_id)


@staff_endpoint(*SAFE_METHODS)
def info(request: HttpRequest, place_id: int) -> HttpResponse:
    state = queries.engine_state(_place(place_id))
    game = state.game if state else None
    return _json(
        {
            "game_no": state.game_no if state else 0,
            "place_info": wire.order_name(game.revolution if game else False),
            "cards": [wire.event_card(c) for c in queries.table_ids(state)],
        }
    )


@staff_endpoint(*SAFE_METHODS)
def players_card(request: HttpRequest, place_id: int) -> HttpResponse:
    place = _place(place_id)
    hands = queries.hand_ids(queries.engine_state(place))
    return _json(
        [
            {"name": p.name, "cards": [wire.api_card(c) for c in hands[p.seat]]}
            for p in queries.seated(place)
        ]
    )


@staff_endpoint(*SAFE_METHODS)
def graph(request: HttpRequest, place_id: int) -> HttpResponse:
    place = _place(place_id)
    points = queries.points(place)
    return _json([[p.name, points[p.seat]] for p in queries.seated(place)])
