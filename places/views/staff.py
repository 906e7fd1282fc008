"""Staff endpoints for driving a place (PROTOCOL.md §5).

Scripts call these with a staff session cookie, or a staff user's personal API token
(``Authorization: Bearer``, checked as on the player routes: ``api.security.token_of``),
and nothing else: no CSRF token. Instead, an unsafe request whose ``Origin`` (or, without one,
``Referer``) names another host is refused (``places.origins``), so that a page
on another site cannot make a logged-in staff member's browser start or step a
place.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from django.http import HttpRequest, HttpResponse
from django.views.decorators.csrf import csrf_exempt

from api.security import token_of
from places import errors, services
from places.models import Place
from places.origins import sent_by_another_site
from places.reads.position import every_hand, state_of, table_ids
from places.reads.seats import seats_of
from places.reads.standings import points
from places.views import json_response, refusal
from places.wire.records import api_card, event_card, order_name


def staff_endpoint(*methods: str) -> Callable:
    """Staff only, these methods only, same-site when unsafe; a refusal as JSON."""

    def decorate(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @csrf_exempt
        @wraps(view)
        def wrapped(request: HttpRequest, place_id: int, **kwargs) -> HttpResponse:
            try:
                token_of(request)  # a token's user is the request's
                user = request.user
                if not user.is_authenticated:
                    raise errors.Refused(errors.NOT_LOGGED_IN, "log in as staff first")
                if not (user.is_active and user.is_staff):
                    raise errors.Refused(errors.STAFF_ONLY)
                if request.method not in methods:
                    raise errors.Refused(
                        errors.METHOD_NOT_ALLOWED,
                        f"use {' or '.join(methods)}, not {request.method}",
                        headers={"Allow": ", ".join(methods)},
                    )
                if sent_by_another_site(request):
                    raise errors.Refused(errors.CROSS_SITE)
                return view(request, int(place_id), **kwargs)
            except errors.Refused as e:
                return refusal(e)

        return wrapped

    return decorate


def _place(place_id: int) -> Place:
    try:
        return Place.objects.get(pk=place_id)
    except Place.DoesNotExist:
        raise errors.Refused(errors.NOT_FOUND, f"no place {place_id}") from None


def _state_answer(place_id: int) -> HttpResponse:
    return json_response({"place": place_id, "state": _place(place_id).state})


@staff_endpoint("POST", "PUT")
def start(request: HttpRequest, place_id: int) -> HttpResponse:
    services.start_place(place_id)
    return _state_answer(place_id)


@staff_endpoint("POST", "PUT")
def stop(request: HttpRequest, place_id: int) -> HttpResponse:
    services.stop_place(place_id)
    return _state_answer(place_id)


@staff_endpoint("POST", "PUT")
def next_turn(request: HttpRequest, place_id: int) -> HttpResponse:
    services.next_turn(place_id)
    return _state_answer(place_id)


READ_METHODS = ("GET", "HEAD")


@staff_endpoint(*READ_METHODS)
def info(request: HttpRequest, place_id: int) -> HttpResponse:
    state = state_of(_place(place_id))
    game = state.game if state else None
    return json_response(
        {
            "game_no": state.game_no if state else 0,
            "place_info": order_name(game.revolution if game else False),
            "cards": [event_card(c) for c in table_ids(state)],
        }
    )


@staff_endpoint(*READ_METHODS)
def players_card(request: HttpRequest, place_id: int) -> HttpResponse:
    place = _place(place_id)
    seats = seats_of(place.id)
    hands = every_hand(state_of(place), len(seats))
    return json_response(
        [{"name": s.name, "cards": [api_card(c) for c in hands[s.no]]} for s in seats]
    )


@staff_endpoint(*READ_METHODS)
def graph(request: HttpRequest, place_id: int) -> HttpResponse:
    place = _place(place_id)
    seats = seats_of(place.id)
    pts = points(state_of(place), len(seats))
    return json_response([[s.name, pts[s.no]] for s in seats])
