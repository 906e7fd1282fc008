"""The player API (PROTOCOL.md §2 and §3): logging in, reading the game, playing cards.

Every view reads the game through ``places.reads`` and changes it only through
``places.services``, and learns the player and the place only from the session.
Which path a view answers, in which format and for whom comes from the protocol
table (``api/protocol.py``): each path gets its own subclass with ``route`` and
``fmt`` set (``api/schema.py``). The views are DRF views for the OpenAPI
description, but they choose their format from the path (``.json``/``.xml``) or,
where a page is possible, from ``Accept``, and write their bytes themselves
(``api/formats.py``): DRF's content negotiation, parsers and CSRF-enforcing
session authentication are not used.
"""

from __future__ import annotations

import re

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import authenticate, get_user
from django.contrib.auth import login as auth_login
from django.contrib.auth import logout as auth_logout
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.utils.cache import add_never_cache_headers, patch_vary_headers
from django.utils.translation import gettext as _
from rest_framework import exceptions
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.renderers import JSONRenderer
from rest_framework.views import APIView

from api import formats, params, rate, throttle
from api.formats import HTML, JSON
from api.security import (
    Access,
    BearerTokenAuthentication,
    SessionCookieAuthentication,
    current_player,
    refuse_cross_site,
    token_of,
    token_player,
)
from daifugo.cards import format_card
from daifugo.numbers import ID_MAX, decimal, whole
from daifugo.rules import DAIHINMIN_2011_NAME, UECDA_NAME
from places import errors, logs, services, sessions
from places.models import GameAnalysis
from places.presentation.cards import card_label
from places.presentation.strings import page_strings
from places.reads import analysis as analysis_read
from places.reads import documents
from places.reads import tokens as tokens_read
from places.reads.join_codes import connect
from places.reads.seats import seat_of
from places.services import accounts, analysis, practice, tokens
from places.services.house import STRATEGY_NAMES
from places.sessions import bearer_token, is_staff

OPERATIONS_URL = "/operations"
LOGIN_URL = "/login"
SIGN_UP_URL = "/signup"
ACCOUNT_URL = "/account"
#: Text fields ``card_0`` … on the manual-play page (a hand never holds more than 11 cards).
FORM_CARD_FIELDS = 14
_PLACE_ID = re.compile(r"\s*([0-9]{1,18})\s*", re.ASCII)
_MAX_NAME = 150  # Django's username length
_MAX_PASSWORD = 4096


class _PathFormat(BaseContentNegotiation):
    """No negotiation (and so never a 406): the views pick their format themselves."""

    def select_parser(self, request, parsers):
        return parsers[0] if parsers else None

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type


class ApiView(APIView):
    """Base of the player API views; ``route`` and ``fmt`` are set per path.

    ``fmt`` is the path's suffix (``"json"``, ``"xml"``) or None. Without one, the
    data documents are JSON, and routes that also serve people (``route.pages``)
    answer with pages and redirects unless ``Accept`` asks for JSON or XML. A
    route for players only (``route.access``) learns its player before the view
    runs: ``self.player`` is ``(place_id, user_id)``.
    """

    route = None  # api.protocol.Route
    fmt: str | None = None
    player: tuple[int, int]
    #: The label of the bearer token the player came with (the bot's version); None: a session.
    version: str | None = None

    authentication_classes = [BearerTokenAuthentication, SessionCookieAuthentication]
    permission_classes: list = []
    throttle_classes: list = []
    parser_classes: list = []  # bodies are read from Django's request (api/params.py)
    renderer_classes = [JSONRenderer]  # unused: the views write their responses
    content_negotiation_class = _PathFormat
    metadata_class = None  # OPTIONS: 405 like any other method not served

    def client(self, request: HttpRequest) -> str:
        if self.fmt:
            return self.fmt
        return formats.preferred(request) if self.route.pages else JSON

    def initial(self, request, *args, **kwargs) -> None:
        dj = request._request
        refuse_cross_site(dj)  # before anything else, for every unsafe method
        # the fast path's too: this view
        token = token_of(dj) if self.route.access is not Access.ANYONE else None
        super().initial(request, *args, **kwargs)
        if self.route.access is Access.PLAYER:
            if token is None:
                user_id = dj.user.pk if dj.user.is_authenticated else None
                rate.check(dj.session.session_key or "", user_id)
                self.player = current_player(dj)
            else:
                rate.check(f"token:{token.pk}", token.user_id)  # a token counts as a session
                self.player = token_player(dj, token.user_id)
                self.version = token.label
            logs.note(place=self.player[0])

    def dispatch(self, request, *args, **kwargs):
        with logs.about(None):  # the player's place, once known (``initial``)
            return super().dispatch(request, *args, **kwargs)

    def failure(self, request: HttpRequest, refused: errors.Refused) -> HttpResponse:
        return formats.error(self.client(request), refused, request)

    def handle_exception(self, exc: Exception) -> HttpResponse:
        if isinstance(exc, exceptions.MethodNotAllowed):
            allowed = ", ".join(m for m in self.allowed_methods if m != "OPTIONS")
            exc = errors.Refused(
                errors.METHOD_NOT_ALLOWED, f"use {allowed}", headers={"Allow": allowed}
            )
        if not isinstance(exc, errors.Refused):
            return super().handle_exception(exc)
        response = self.failure(self.request._request, exc)
        response.exception = True
        return response

    def finalize_response(self, request, response, *args, **kwargs):
        response = super().finalize_response(request, response, *args, **kwargs)
        if "Allow" in response:  # DRF lists OPTIONS, which these views do not serve
            response["Allow"] = ", ".join(m for m in self.allowed_methods if m != "OPTIONS")
        add_never_cache_headers(response)  # a hand is private and changes every turn
        if self.route.pages and not self.fmt:
            patch_vary_headers(response, ["Accept"])  # a page, or JSON/XML for Accept
        return response


# -- logging in and out ----------------------------------------------------------------


class LoginView(ApiView):
    """``POST /sessions``, ``POST /login`` (and ``.json``/``.xml``): log in as a player of a place;
    a person on the login page may leave the place empty (:func:`_site_login`)."""

    authentication_classes: list = []

    def post(self, request) -> HttpResponse:
        dj = request._request
        name = params.field(dj, "name")
        password = params.field(dj, "password")
        place_text = params.field(dj, "place_id")
        if not place_text.strip() and self.client(dj) == HTML:
            return _site_login(dj, name, password)
        user, place_id = _authenticate_player(dj, name, password, place_text)
        if user is None:
            raise errors.Refused(errors.LOGIN_FAILED)
        auth_login(dj, user)  # a new session key: no fixation
        dj.session[sessions.PLACE_KEY] = place_id
        kind = self.client(dj)
        if kind == HTML:
            return HttpResponseRedirect(OPERATIONS_URL)
        return formats.document(kind, {"player": user.get_username(), "place": place_id})

    def failure(self, request, refused) -> HttpResponse:
        if self.client(request) != HTML or refused.code not in LOGIN_PAGE_CODES:
            return super().failure(request, refused)
        return _login_page_refusal(request, refused)


class LoginFormView(LoginView):
    """``GET /login``: the login form (the first form on the page), and ``POST /login``."""

    def get(self, request) -> HttpResponse:
        return _login_page(request._request)


def _site_login(request: HttpRequest, name: str, password: str) -> HttpResponse:
    """A person's login without a place (the login page, its place left empty): the session
    is the user's, in no place, and the person lands on their account page. A bot names its
    place, and a JSON or XML login without one is refused as before (``LOGIN_FAILED``)."""
    user = _authenticate(request, name, password)
    if user is None:
        raise errors.Refused(errors.LOGIN_FAILED, "wrong name or password")
    auth_login(request, user)  # a new session key: no fixation
    request.session.pop(sessions.PLACE_KEY, None)  # the place it played in before, if any
    return HttpResponseRedirect(ACCOUNT_URL)


#: A person's failed login is answered with the login page again, and its message.
LOGIN_PAGE_CODES = (errors.LOGIN_FAILED, errors.TOO_MANY_ATTEMPTS)


def _login_page_refusal(request: HttpRequest, refused: errors.Refused) -> HttpResponse:
    response = _login_page(request, status=refused.status, error=refused.message)
    for key, value in refused.headers.items():
        response[key] = value
    return response


def _login_page(request: HttpRequest, status: int = 200, error: str = "") -> HttpResponse:
    try:
        query = params.query(request)
        name, place_id = query.get("name", ""), query.get("place_id", "")
    except errors.Refused:
        name = place_id = ""
    context = {
        "title": "Log in · daihinmin",
        "name": name[:_MAX_NAME],
        "place_id": place_id[:20],
        "error": error,
        "practice": practice_form(),
        "sign_up": settings.SIGN_UP,
    }
    return render(request, "api/login.html", context, status=status)


def _authenticate(request: HttpRequest, name: str, password: str):
    """The user if the name and password are right (Django's ``authenticate``), else None;
    ``TOO_MANY_ATTEMPTS`` (429, not a 401) if the attempt was held back."""
    if (
        not name
        or len(name) > _MAX_NAME
        or len(password) > _MAX_PASSWORD
        or "\x00" in name + password  # PostgreSQL refuses NUL in text
    ):
        return None
    user = authenticate(request, username=name, password=password)
    if user is None:
        throttle.check(request)
    return user


def _authenticate_player(request: HttpRequest, name: str, password: str, place_text: str):
    """``(user, place_id)`` if the password is right and the user plays in that place."""
    m = _PLACE_ID.fullmatch(place_text)
    user = _authenticate(request, name, password)
    if user is None or m is None:
        return None, None
    place_id = int(m.group(1))
    try:
        seat_of(place_id, user.pk)
    except errors.Refused:
        return None, None
    return user, place_id


class LogoutView(ApiView):
    """``GET`` or ``POST /logout``: ends the session (a page client is sent to /login)."""

    authentication_classes: list = []

    def get(self, request) -> HttpResponse:
        return self._logout(request._request)

    def post(self, request) -> HttpResponse:
        return self._logout(request._request)

    def _logout(self, request: HttpRequest) -> HttpResponse:
        # GET too (the 2011 bots log out with GET): a link on another site must not end a session
        refuse_cross_site(request, even_if_safe=True)
        auth_logout(request)
        if self.client(request) == HTML:
            return HttpResponseRedirect(LOGIN_URL)
        return HttpResponse(status=204)


# -- signing up ------------------------------------------------------------------------------


class SignUpView(ApiView):
    """``POST /signup.json`` (and ``.xml``, and the page's ``POST /signup``): a new account.

    The session is then logged in as it (no place: ``/practice`` takes it, a bot
    logs in to a place with ``/login``). Every sign-up, made or refused, counts as
    a failed login of its address and name (``api/throttle.py``): the login's
    limits cap how many accounts an address makes, and how fast it learns which
    names are taken, in one window.
    """

    authentication_classes: list = []

    def post(self, request) -> HttpResponse:
        dj = request._request
        accounts.check_sign_up_open()  # before counting: a closed door is no attempt
        name = params.field(dj, "name")
        password = params.field(dj, "password")
        again = params.values(dj, "password_again")  # the page's second field
        held = throttle.count_failure(throttle.address_of(dj), name)  # made or not
        if held is not None:
            throttle.hold_back(dj, held)
            throttle.check(dj)  # 429 with Retry-After
        if len(password) > _MAX_PASSWORD:
            raise errors.Refused(errors.INVALID_PASSWORD, f"at most {_MAX_PASSWORD} characters")
        if again and again[0] != password:
            raise errors.Refused(errors.INVALID_PASSWORD, "the two passwords differ")
        user = accounts.sign_up(name, password)
        auth_login(dj, user)  # a new session key: no fixation
        kind = self.client(dj)
        if kind == HTML:
            return HttpResponseRedirect(SIGN_UP_URL)
        response = formats.document(kind, {"player": user.get_username()})
        response.status_code = 201
        return response

    def failure(self, request, refused) -> HttpResponse:
        if self.client(request) != HTML:
            return super().failure(request, refused)
        response = _sign_up_page(request, status=refused.status, error=refused.message)
        for key, value in refused.headers.items():
            response[key] = value
        return response


class SignUpFormView(SignUpView):
    """``GET /signup``: the sign-up form; once signed up (or logged in), what to do next."""

    def get(self, request) -> HttpResponse:
        dj = request._request
        try:
            accounts.check_sign_up_open()
        except errors.Refused as e:
            return _sign_up_page(dj, status=e.status, error=e.message, closed=True)
        return _sign_up_page(dj)


def _sign_up_page(
    request: HttpRequest, status: int = 200, error: str = "", closed: bool = False
) -> HttpResponse:
    user = get_user(request)
    try:
        name = params.field(request, "name")[:_MAX_NAME] if error else ""
    except errors.Refused:
        name = ""
    context = {
        "title": "Sign up · daihinmin",
        "error": error,
        "closed": closed,
        "name": name,
        "signed_in": user if user.is_authenticated and not error else None,
        "practice": practice_form(),
    }
    return render(request, "api/signup.html", context, status=status)


# -- practice against the house bots -------------------------------------------------------


class PracticeView(ApiView):
    """``POST /practice`` (and ``.json``/``.xml``): a place of the user and four house bots.

    The user is the bearer token's (``Authorization: Bearer``, as on the player routes),
    or the one ``name`` and ``password`` name, checked as ``/login`` checks them (the
    same limits on failures), or the session's (any logged-in user). The place is
    started and the session then plays in it, as after ``/login``: a bot goes on with
    the same cookie (or its token and the answer's ``place``), a person lands on the
    Play page.
    """

    def post(self, request) -> HttpResponse:
        dj = request._request
        options = _practice_options(dj)
        services.check_practice(**options)  # bad settings cost no password check
        token = getattr(dj, "api_token", None)  # checked before the view (``initial``)
        name = "" if token else params.field(dj, "name")
        if token:
            user = token.user
        elif name:
            user = _authenticate(dj, name, params.field(dj, "password"))
            if user is None:
                raise errors.Refused(errors.LOGIN_FAILED, "wrong name or password")
        elif (session_user := get_user(dj)).is_authenticated:
            user = session_user
        else:
            raise errors.Refused(
                errors.NOT_LOGGED_IN, "log in first, or send name and password with the request"
            )
        done = services.start_practice(user.pk, address=throttle.address_of(dj), **options)
        if name:
            auth_login(dj, user)  # a new session key: no fixation
        if done.join_code is None and token is None:  # a token's bot names the place itself
            dj.session[sessions.PLACE_KEY] = done.place.id
        # a uecda practice is played by the user's client over TCP, not by this session
        kind = self.client(dj)
        if kind == HTML:
            return HttpResponseRedirect(_practice_page(done))
        response = formats.document(kind, practice_document(done, dj.get_host()))
        if done.join_code is not None:
            add_never_cache_headers(response)  # it holds the seat's join code
        return response

    def failure(self, request, refused) -> HttpResponse:
        if self.client(request) == HTML:
            if refused.code == errors.NOT_LOGGED_IN:
                return HttpResponseRedirect(LOGIN_URL)
            if refused.code in LOGIN_PAGE_CODES:  # the login page's practice form
                return _login_page_refusal(request, refused)
        return super().failure(request, refused)


def _practice_options(request: HttpRequest) -> dict:
    """The practice's settings as the request gives them (absent: the defaults)."""
    options: dict = {}
    bots = [b.strip() for value in params.values(request, "bots") for b in value.split(",")]
    if any(bots):
        options["bots"] = bots
    for key, parameter, kind in (
        ("game_count", "games", lambda text: whole(text, ID_MAX)),
        ("pace", "pace", decimal),
        ("time_limit", "time_limit", decimal),
        ("time_bank", "time_bank", decimal),
    ):
        text = params.field(request, parameter).strip()
        if not text:
            continue
        value = kind(text[:40])
        if value is None:
            raise errors.Refused(
                errors.INVALID_PARAMETER, f"{parameter}: a number, not {text[:40]!r}"
            )
        options[key] = value
    seed = params.field(request, "seed")
    if seed:
        options["seed"] = seed
    rules = params.field(request, "rules").strip()
    if rules:
        options["rules"] = rules
    rated = params.field(request, "rated").strip().lower()
    if rated:
        if rated not in RATED_VALUES:
            raise errors.Refused(
                errors.INVALID_PARAMETER, f"rated: 1 or 0 (true or false), not {rated[:40]!r}"
            )
        options["rated"] = RATED_VALUES[rated]
    return options


#: How ``rated`` may be written.
RATED_VALUES = {"1": True, "true": True, "0": False, "false": False}


def _practice_page(done: services.Practice) -> str:
    """Where a person lands after a practice: the Play page, or for a ``uecda`` practice the
    place's page, which shows its user the join code and how to connect."""
    return OPERATIONS_URL if done.join_code is None else f"/places/{done.place.id}/"


def practice_document(done: services.Practice, request_host: str = "") -> dict:
    """The answer to a practice: who plays where, and where to look (wire order).

    A ``uecda`` practice's answer adds ``uecda``: the user's join code and where and how
    the user's client connects with it (``places.reads.join_codes``); its ``urls`` have no
    ``socket`` (the client plays over TCP) and its ``play`` is the place's page.
    """
    place = done.place
    document = {
        "player": done.player,
        "place": place.id,
        "seat": done.seat,
        "players": done.players,
        "game_count": place.game_count,
        "pace": place.pace,
        "time_limit": place.time_limit,
        "state": place.state,
        "urls": {
            "play": OPERATIONS_URL,
            "live": f"/places/{place.id}/",
            "results": f"/places/{place.id}/results",
            "socket": f"/ws/places/{place.id}/",
            "records": f"/places/{place.id}/records.jsonl",
        },
    }
    if done.join_code is None:
        return document
    where = connect(done.join_code, request_host, rules=place.rules_label)
    urls = document["urls"]
    del urls["socket"]
    urls["play"] = _practice_page(done)
    uecda = {"join_code": where.code, "host": where.host, "port": where.port}
    return {
        **document,
        "rules": place.rules_label,
        "uecda": {**uecda, "client": where.client, "bot": where.bot},
    }


def practice_form() -> dict:
    """The choices of the practice form (the Play page and the login page), for a person."""
    return {
        "seats": range(1, practice.HOUSE_SEATS + 1),
        "strategies": STRATEGY_NAMES,
        "default_bot": practice.DEFAULT_BOTS[0],
        "games": 3,
        "max_games": practice.MAX_GAMES,
        # a person follows the house's moves at a pace, and thinks longer than a bot
        "paces": [("0", _("at once")), ("0.5", "0.5 s"), ("1", "1 s"), ("2", "2 s")],
        "pace": "0.5",
        "time_limit": 60,
        "max_time_limit": int(practice.MAX_TIME_LIMIT),
        # the first is the default: the 2011 game, played on this page
        "rules": [
            (DAIHINMIN_2011_NAME, _("daihinmin 2011, here on this page")),
            (UECDA_NAME, _("UECda, with your own client over TCP")),
        ],
    }


# -- reading the game --------------------------------------------------------------------


class DocumentView(ApiView):
    """A JSON (default) or XML document about the session's player and place."""

    @staticmethod
    def read(place_id: int, user_id: int):
        """The document's data (``places.reads.documents``)."""
        raise NotImplementedError

    def get(self, request) -> HttpResponse:
        return formats.document(self.client(request._request), self.read(*self.player))


class HandView(DocumentView):
    """``get_hand``: the player's cards, weakest first, jokers last."""

    read = staticmethod(documents.hand)


class InitialHandView(DocumentView):
    """``get_initial_hand``: the cards dealt in the current game, before the exchange."""

    read = staticmethod(documents.initial_hand)


class PlaceInfoView(DocumentView):
    """``get_place_info``: ``game_count``, ``player_count``, ``player_infos``, then more."""

    @staticmethod
    def read(place_id, user_id):
        return documents.place_info(place_id)


class RankView(DocumentView):
    """``get_rank``: each player's rank in the current game and in the last finished one."""

    @staticmethod
    def read(place_id, user_id):
        return documents.ranks(place_id)


class LegalPlaysView(DocumentView):
    """``/operations/legal_plays.json``: the player's hand and its legal plays now (read-only).

    For the manual-play page; not one of the 2011 documents.
    """

    read = staticmethod(documents.legal_plays)


#: The 2011 documents and the new ones, by name (``api/protocol.py`` routes them).
DOCUMENT_VIEWS: dict[str, type[DocumentView]] = {
    "get_hand": HandView,
    "get_place_info": PlaceInfoView,
    "get_rank": RankView,
    "get_initial_hand": InitialHandView,
}


# -- acting -------------------------------------------------------------------------------


class PostCardsView(ApiView):
    """``POST post_cards``: play the cards of every ``card_`` parameter; none is a pass.

    An ``idempotency_key`` makes it safe to retry (``services.post_cards``)."""

    def post(self, request) -> HttpResponse:
        dj = request._request
        cards = params.cards(dj)
        key = services.read_key(params.field(dj, services.IDEMPOTENCY_KEY))
        result = services.post_cards(*self.player, cards, key=key, version=self.version)
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


def _shown(cid: int) -> dict:
    return {"written": format_card(cid), "label": card_label(cid)}


class OperationsView(ApiView):
    """``GET /operations``: the hand, the place and the form the 2011 bots submitted."""

    def failure(self, request, refused) -> HttpResponse:
        if refused.code == errors.NOT_LOGGED_IN:
            return HttpResponseRedirect(LOGIN_URL)
        return super().failure(request, refused)

    def get(self, request) -> HttpResponse:
        dj = request._request
        place_id, user_id = self.player
        info = documents.place_info(place_id)
        ranks = {r["name"]: r for r in documents.ranks(place_id)["ranks"]}
        me = dj.user.get_username()
        context = {
            "title": "Operations · daihinmin",
            "place_id": place_id,
            "player": me,
            "hand": [_shown(c) for c in documents.hand_ids(place_id, user_id)],
            "table": [_shown(c["card"]["id"]) for c in info["place_cards"]],
            "info": info,
            "players": [{**p, **ranks.get(p["name"], {})} for p in info["player_infos"]],
            "my_turn": info["turn_player"] == me,
            "card_fields": [f"card_{i}" for i in range(FORM_CARD_FIELDS)],
            "documents": list(DOCUMENT_VIEWS),
            "practice": practice_form(),
            # the interactive part after the form: the scripts' settings and words
            "config": {
                "place": place_id,
                "me": me,
                "state_url": f"/places/{place_id}/state.json",
                "ws_path": f"/ws/places/{place_id}/live/",
                "legal_url": "/operations/legal_plays.json",
                "post_url": "/operations/post_cards.json",
                "results_url": f"/places/{place_id}/results",
                "staff": False,
                "strings": page_strings(),
            },
        }
        return render(dj, "api/operations.html", context)


# -- personal API tokens -------------------------------------------------------------------


class TokensBaseView(ApiView):
    """The token routes (JSON only): for a session logged in as the user, never for a token
    (a token cannot make or revoke tokens); a person uses the account page."""

    authentication_classes: list = []

    def client(self, request: HttpRequest) -> str:
        return JSON

    def initial(self, request, *args, **kwargs) -> None:
        dj = request._request
        refuse_cross_site(dj)
        user = dj.user  # the session's (DRF's initial sets an anonymous one: no authenticators)
        APIView.initial(self, request, *args, **kwargs)
        dj.user = user
        if bearer_token(dj) is not None:
            raise errors.Refused(
                errors.NOT_LOGGED_IN, "tokens are made and revoked from a logged-in session"
            )
        if not user.is_authenticated:
            raise errors.Refused(errors.NOT_LOGGED_IN, "log in first (POST /login or /signup)")

    def finalize_response(self, request, response, *args, **kwargs):
        response = APIView.finalize_response(self, request, response, *args, **kwargs)
        add_never_cache_headers(response)  # a new token is shown once
        return response


class TokensView(TokensBaseView):
    """``GET /tokens.json``: the user's tokens (never their secret); ``POST /tokens.json``
    with a ``label``: a new token, answered 201 with the token itself, this once."""

    def get(self, request) -> HttpResponse:
        rows = tokens_read.of_user(request._request.user.pk)
        return formats.document(JSON, {"tokens": [tokens_read.as_dict(r) for r in rows]})

    def post(self, request) -> HttpResponse:
        dj = request._request
        made = tokens.create(dj.user.pk, params.field(dj, "label"))
        response = formats.document(JSON, {**tokens_read.as_dict(made.row), "token": made.token})
        response.status_code = 201
        return response


class TokenView(TokensBaseView):
    """``DELETE /tokens/ID.json``: revoke one of the user's tokens (its row, revoked)."""

    def delete(self, request, token_id: str) -> HttpResponse:
        row = tokens.revoke(request._request.user.pk, token_id)
        return formats.document(JSON, tokens_read.as_dict(row))


# -- a finished game's analysis ------------------------------------------------------------


class AnalysisView(ApiView):
    """``/places/ID/games/N/analysis.json`` (JSON only; docs/analysis.md): ``GET`` reads a
    finished game's analysis (200), or how far its job is (202); ``POST`` asks for it, for a
    logged-in session or an ``Authorization: Bearer`` token's user (any user, not only a
    player of the place): queued (202), or the analysis there is (200). A game in play or
    held back is never analysed for anyone but staff (the refusals ``record.json`` gives)."""

    http_method_names = ["get", "head", "post"]

    def client(self, request: HttpRequest) -> str:
        return JSON

    def initial(self, request, *args, **kwargs) -> None:
        dj = request._request
        refuse_cross_site(dj)
        token_of(dj)  # the token's user, else the session's (the authenticators say so)
        APIView.initial(self, request, *args, **kwargs)

    def finalize_response(self, request, response, *args, **kwargs):
        response = APIView.finalize_response(self, request, response, *args, **kwargs)
        add_never_cache_headers(response)  # a job's progress changes from one read to the next
        return response

    def get(self, request, place_id: str, game_no: str) -> HttpResponse:
        dj = request._request
        found = analysis_read.game_analysis(int(place_id), int(game_no), staff=is_staff(dj))
        if found.state == GameAnalysis.State.DONE:
            return formats.document(JSON, found.result)
        return _analysis_status(found)

    def post(self, request, place_id: str, game_no: str) -> HttpResponse:
        dj = request._request
        user = dj.user
        if not (user.is_authenticated and user.is_active):
            raise errors.Refused(
                errors.NOT_LOGGED_IN,
                "log in to ask for an analysis (a session, or Authorization: Bearer TOKEN)",
            )
        found = analysis.request_analysis(
            user.pk,
            int(place_id),
            int(game_no),
            staff=is_staff(dj),
            address=throttle.address_of(dj),
        )
        return _analysis_status(found)


def _analysis_status(found: GameAnalysis) -> HttpResponse:
    """How far a job is: 200 once done, else 202."""
    response = formats.document(JSON, analysis_read.status_of(found))
    if found.state != GameAnalysis.State.DONE:
        response.status_code = 202
    return response
