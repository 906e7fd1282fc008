"""The player API (PROTOCOL.md §2 and §3): logging in, reading the game, playing cards.

Every view reads and changes the game only through ``places.services``, and
learns the player and the place only from the session. The views are DRF
views for the OpenAPI description (``api/schema.py``), but they choose their
format from the path (``.json``/``.xml``) or, where a page is possible, from
``Accept``, and write their bytes themselves (``api/formats.py``): DRF's
content negotiation, parsers and CSRF-enforcing session authentication are
not used.
"""

from __future__ import annotations

import re

from django.contrib import messages
from django.contrib.auth import authenticate
from django.contrib.auth import login as auth_login
from django.contrib.auth import logout as auth_logout
from django.core.exceptions import ObjectDoesNotExist
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.utils.cache import add_never_cache_headers, patch_vary_headers
from django.views.decorators.http import require_safe
from rest_framework import exceptions
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.renderers import JSONRenderer
from rest_framework.views import APIView

from api import formats, params, throttle
from api.errors import METHOD_NOT_ALLOWED, TOO_MANY_ATTEMPTS, ApiError
from api.formats import HTML, JSON
from api.security import PLACE_KEY, SessionCookieAuthentication, check_same_origin, current_player
from places import pages, services
from places.engine.cards import format_card
from places.wire import api_card

OPERATIONS_URL = "/operations"
LOGIN_URL = "/login"
#: Text fields ``card_0`` … on the manual-play page (a hand never holds more than 11 cards).
FORM_CARD_FIELDS = 14
_PLACE_ID = re.compile(r"\s*([0-9]{1,18})\s*", re.ASCII)
_MAX_NAME = 150  # Django's username length
_MAX_PASSWORD = 4096
#: The refusal of a session whose place was deleted.
NO_SUCH_PLACE = "log in first: no such place"


class _PathFormat(BaseContentNegotiation):
    """No negotiation (and so never a 406): the views pick their format themselves."""

    def select_parser(self, request, parsers):
        return parsers[0] if parsers else None

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type


class ApiView(APIView):
    """Base of the player API views.

    ``fmt`` is the path's suffix (``"json"``, ``"xml"``) or None. Without one,
    the data documents are JSON, and views that also serve people
    (``serves_pages``) answer with pages and redirects unless ``Accept`` asks
    for JSON or XML.
    """

    fmt: str | None = None
    serves_pages = False

    authentication_classes = [SessionCookieAuthentication]
    permission_classes: list = []
    throttle_classes: list = []
    parser_classes: list = []  # bodies are read from Django's request (api/params.py)
    renderer_classes = [JSONRenderer]  # unused: the views write their responses
    content_negotiation_class = _PathFormat
    metadata_class = None  # OPTIONS: 405 like any other method not served

    def client(self, request: HttpRequest) -> str:
        if self.fmt:
            return self.fmt
        return formats.preferred(request) if self.serves_pages else JSON

    def initial(self, request, *args, **kwargs) -> None:
        check_same_origin(request._request)  # before anything else, for every unsafe method
        super().initial(request, *args, **kwargs)

    def failure(self, request: HttpRequest, code, message, status, headers) -> HttpResponse:
        return formats.error(self.client(request), code, message, status, headers, request)

    def handle_exception(self, exc: Exception) -> HttpResponse:
        request = self.request._request
        headers: dict[str, str] = {}
        if isinstance(exc, ApiError):
            code, message, status, headers = exc.code, exc.message, exc.status, exc.headers
        elif isinstance(exc, services.ServiceError):
            code, message, status = exc.code, exc.message, exc.status
        elif isinstance(exc, ObjectDoesNotExist):  # the session's place was deleted
            code, message, status = services.NOT_LOGGED_IN, NO_SUCH_PLACE, 401
        elif isinstance(exc, exceptions.MethodNotAllowed):
            allowed = ", ".join(m for m in self.allowed_methods if m != "OPTIONS")
            code, message, status = METHOD_NOT_ALLOWED, f"use {allowed}", 405
            headers = {"Allow": allowed}
        elif isinstance(exc, exceptions.APIException):
            code = str(exc.default_code).upper()
            message, status = str(exc.detail), exc.status_code
        else:
            return super().handle_exception(exc)
        response = self.failure(request, code, message, status, headers)
        response.exception = True
        return response

    def finalize_response(self, request, response, *args, **kwargs):
        response = super().finalize_response(request, response, *args, **kwargs)
        if "Allow" in response:  # DRF lists OPTIONS, which these views do not serve
            response["Allow"] = ", ".join(m for m in self.allowed_methods if m != "OPTIONS")
        add_never_cache_headers(response)  # a hand is private and changes every turn
        if self.serves_pages and not self.fmt:
            patch_vary_headers(response, ["Accept"])  # a page, or JSON/XML for Accept
        return response


# -- logging in and out ----------------------------------------------------------------


class LoginView(ApiView):
    """``POST /sessions``, ``POST /login`` (and ``.json``/``.xml``): log in as a player of a place."""

    serves_pages = True
    http_method_names = ["post"]
    authentication_classes: list = []

    def post(self, request) -> HttpResponse:
        dj = request._request
        name = params.field(dj, "name")
        password = params.field(dj, "password")
        place_text = params.field(dj, "place_id")
        address = dj.META.get("REMOTE_ADDR") or ""
        throttle.check(address, name)
        user, place_id = _authenticate_player(dj, name, password, place_text)
        if user is None:
            throttle.failed(address, name)
            raise ApiError(services.LOGIN_FAILED, "wrong name, password or place")
        throttle.succeeded(address, name)
        auth_login(dj, user)  # a new session key: no fixation
        dj.session[PLACE_KEY] = place_id
        kind = self.client(dj)
        if kind == HTML:
            return HttpResponseRedirect(OPERATIONS_URL)
        return formats.document(kind, {"player": user.get_username(), "place": place_id})

    def failure(self, request, code, message, status, headers) -> HttpResponse:
        if self.client(request) != HTML or code not in (
            services.LOGIN_FAILED,
            TOO_MANY_ATTEMPTS,
        ):
            return super().failure(request, code, message, status, headers)
        response = _login_page(request, status=status, error=message)
        for key, value in headers.items():
            response[key] = value
        return response


class LoginFormView(LoginView):
    """``GET /login``: the login form (the first form on the page), and ``POST /login``."""

    http_method_names = ["get", "post"]

    def get(self, request) -> HttpResponse:
        return _login_page(request._request)


def _login_page(request: HttpRequest, status: int = 200, error: str = "") -> HttpResponse:
    try:
        query = params.query(request)
        name, place_id = query.get("name", ""), query.get("place_id", "")
    except ApiError:
        name = place_id = ""
    context = {
        "title": "Log in · daihinmin",
        "name": name[:_MAX_NAME],
        "place_id": place_id[:20],
        "error": error,
    }
    return render(request, "api/login.html", context, status=status)


def _authenticate_player(request: HttpRequest, name: str, password: str, place_text: str):
    """``(user, place_id)`` if the password is right and the user plays in that place."""
    if (
        not name
        or len(name) > _MAX_NAME
        or len(password) > _MAX_PASSWORD
        or "\x00" in name + password  # PostgreSQL refuses NUL in text
    ):
        return None, None
    m = _PLACE_ID.fullmatch(place_text)
    user = authenticate(request, username=name, password=password)
    if user is None or m is None:
        return None, None
    place_id = int(m.group(1))
    try:
        services.seat_of(place_id, user.id)
    except services.ServiceError:
        return None, None
    return user, place_id


class LogoutView(ApiView):
    """``GET`` or ``POST /logout``: ends the session (a page client is sent to /login)."""

    serves_pages = True
    http_method_names = ["get", "post"]
    authentication_classes: list = []

    def get(self, request) -> HttpResponse:
        return self._logout(request._request)

    def post(self, request) -> HttpResponse:
        return self._logout(request._request)

    def _logout(self, request: HttpRequest) -> HttpResponse:
        auth_logout(request)
        if self.client(request) == HTML:
            return HttpResponseRedirect(LOGIN_URL)
        return HttpResponse(status=204)


# -- reading the game --------------------------------------------------------------------


class DocumentView(ApiView):
    """A JSON (default) or XML document about the session's player and place."""

    http_method_names = ["get", "head"]

    def get(self, request) -> HttpResponse:
        dj = request._request
        place_id, user_id = current_player(dj)
        return formats.document(self.client(dj), self.read(place_id, user_id))

    @staticmethod
    def read(place_id: int, user_id: int):
        """The document's data (``api/fast.py`` calls it too)."""
        raise NotImplementedError


class HandView(DocumentView):
    """``get_hand``: the player's cards, weakest first, jokers last."""

    @staticmethod
    def read(place_id, user_id):
        return [api_card(c) for c in services.hand_of(place_id, user_id)]


class InitialHandView(DocumentView):
    """``get_initial_hand``: the cards dealt in the current game, before the exchange."""

    @staticmethod
    def read(place_id, user_id):
        return [api_card(c) for c in services.initial_hand_of(place_id, user_id)]


class PlaceInfoView(DocumentView):
    """``get_place_info``: ``game_count``, ``player_count``, ``player_infos``, then more."""

    @staticmethod
    def read(place_id, user_id):
        return services.place_info(place_id)


class RankView(DocumentView):
    """``get_rank``: each player's rank in the current game and in the last finished one."""

    @staticmethod
    def read(place_id, user_id):
        return services.ranks(place_id)


# -- acting -------------------------------------------------------------------------------


class PostCardsView(ApiView):
    """``POST post_cards``: play the cards of every ``card_`` parameter; none is a pass."""

    serves_pages = True
    http_method_names = ["post"]

    def post(self, request) -> HttpResponse:
        dj = request._request
        place_id, user_id = current_player(dj)
        cards = params.cards(dj)
        result = services.post_cards(place_id, user_id, cards)
        kind = self.client(dj)
        if kind == HTML:
            messages.info(dj, _describe(result, cards))
            return HttpResponseRedirect(OPERATIONS_URL)
        return formats.document(kind, result.as_dict())


def _describe(result: services.PostResult, cards: list[str]) -> str:
    played = " ".join(c.strip() for c in cards)
    text = {"play": f"played {played}", "pass": "passed", "miss": f"missed ({played or 'pass'})"}
    line = text.get(result.result, result.result)
    if result.reason:
        line += f": {result.reason}"
    if result.reset_place:
        line += "; the table was cleared"
    return line


# -- the manual-play page -------------------------------------------------------------------

_MARKS = {1: "♠", 2: "♥", 3: "♦", 4: "♣"}
_NUMBERS = {1: "A", 11: "J", 12: "Q", 13: "K"}


def _card_label(cid: int) -> str:
    card = api_card(cid)["card"]
    if card["joker"]:
        return "Joker"
    return _MARKS[card["mark"]] + _NUMBERS.get(card["number"], str(card["number"]))


def _shown(cid: int) -> dict:
    return {"written": format_card(cid), "label": _card_label(cid)}


class OperationsView(ApiView):
    """``GET /operations``: the hand, the place and the form the 2011 bots submitted."""

    serves_pages = True
    http_method_names = ["get", "head"]

    def get(self, request) -> HttpResponse:
        dj = request._request
        try:
            place_id, user_id = current_player(dj)
        except services.ServiceError:
            return HttpResponseRedirect(LOGIN_URL)
        hand = services.hand_of(place_id, user_id)
        info = services.place_info(place_id)
        ranks = services.ranks(place_id)
        context = {
            "title": "Operations · daihinmin",
            "place_id": place_id,
            "player": dj.user.get_username(),
            "hand": [_shown(c) for c in hand],
            # the table, where services.place_info gives it (PROTOCOL.md: the page shows it)
            "table": [_shown(c["card"]["id"]) for c in info.get("place_cards") or []],
            "info": info,
            "players": [
                {**p, **next((r for r in ranks["ranks"] if r["name"] == p["name"]), {})}
                for p in info["player_infos"]
            ],
            "my_turn": info.get("turn_player") == dj.user.get_username(),
            "card_fields": [f"card_{i}" for i in range(FORM_CARD_FIELDS)],
            "documents": ["get_hand", "get_place_info", "get_rank", "get_initial_hand"],
            # the interactive part after the form: the scripts' settings and words
            "config": {
                "place": place_id,
                "me": dj.user.get_username(),
                "state_url": f"/places/{place_id}/state.json",
                "ws_path": f"/ws/places/{place_id}/live/",
                "legal_url": "/operations/legal_plays.json",
                "post_url": "/operations/post_cards.json",
                "results_url": f"/places/{place_id}/results",
                "staff": False,
                "strings": pages.page_strings(),
            },
        }
        return render(dj, "api/operations.html", context)


@require_safe
def legal_plays(request: HttpRequest) -> HttpResponse:
    """``GET /operations/legal_plays.json``: the player's hand and its legal plays now.

    Read-only, for the manual-play page: only the session's player, only their
    own hand (``places.pages.legal_plays_doc``). Not one of the 2011 documents.
    """
    try:
        place_id, user_id = current_player(request)
        doc = pages.legal_plays_doc(place_id, services.seat_of(place_id, user_id))
    except services.ServiceError as e:
        response = formats.error(JSON, e.code, e.message, e.status)
    else:
        response = formats.document(JSON, doc)
    add_never_cache_headers(response)  # a hand is private and changes every turn
    return response
