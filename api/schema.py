"""The OpenAPI description of the player API (drf-spectacular), served at /api/schema/.

Each path of the protocol table (``api/protocol.py``) is its own view class
(:func:`described`), so that each one is described with the format it really
answers in: JSON, XML, or pages and redirects for clients without a suffix. The
serializers below only describe shapes; the views build their documents in wire
order, and CI checks the documents against this description (schemathesis).
"""

from __future__ import annotations

from django.conf import settings
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
)
from rest_framework import serializers

from api.formats import JSON, XML
from api.security import Access
from api.views import FORM_CARD_FIELDS
from places import errors
from places.models import VARIANT_MAX_LENGTH
from places.services import IDEMPOTENCY_KEY, MAX_CARDS, practice
from places.services.house import STRATEGY_NAMES
from places.services.moves import KEY_PATTERN
from places.wire import records

#: A written card, or blank (ignored); white space around it and the case of "joker" are forgiven.
KEY_HELP = (
    "optional: makes the post safe to retry. A post that repeats the key of this player's "
    "last keyed post is answered as that post was and changes nothing. 1 to 64 letters, "
    "digits, '.', '_', ':' or '-'; a new key for each move"
)
CARD_PATTERN = r"^\s*([Jj][Oo][Kk][Ee][Rr]|[1-4]-(1[0-3]|[1-9]))?\s*$"
JSON_TYPE, XML_TYPE, HTML_TYPE = "application/json", "application/xml", "text/html"
# multipart/form-data works too, but daphne (Twisted) parses such bodies itself and
# answers a bare 400 to some of them before Django sees them: only the form
# encoding of the 2011 pages (and of Mechanize) is described.
FORM_TYPES = ("application/x-www-form-urlencoded",)


class SessionCookieScheme(OpenApiAuthenticationExtension):
    target_class = "api.security.SessionCookieAuthentication"
    name = "cookieAuth"

    def get_security_definition(self, auto_schema):
        return {
            "type": "apiKey",
            "in": "cookie",
            "name": settings.SESSION_COOKIE_NAME,
            "description": "The session cookie set by POST /login or /sessions. "
            "No CSRF token is needed; unsafe requests whose Origin or Referer names "
            "another site are refused (403 CROSS_SITE).",
        }


class BearerTokenScheme(OpenApiAuthenticationExtension):
    target_class = "api.security.BearerTokenAuthentication"
    name = "bearerAuth"

    def get_security_definition(self, auto_schema):
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "A personal API token (made on /account or with POST /tokens.json), "
            "instead of the session cookie: the player routes then take the place from "
            "`place_id`. A wrong or revoked token is 401 INVALID_TOKEN, and counts as a "
            "failed login of the address (429 TOO_MANY_ATTEMPTS past the limits).",
        }


# -- shapes ---------------------------------------------------------------------------------


class CardFieldsSerializer(serializers.Serializer):
    id = serializers.IntegerField(
        min_value=1, max_value=54, help_text="(mark-1)*13+number; jokers 53, 54"
    )
    joker = serializers.BooleanField()
    mark = serializers.IntegerField(min_value=0, max_value=4, help_text="1 spade … 4 club; 0 joker")
    number = serializers.IntegerField(min_value=0, max_value=13, help_text="1 (ace) … 13; 0 joker")


class CardSerializer(serializers.Serializer):
    card = CardFieldsSerializer()


class PlayerInfoSerializer(serializers.Serializer):
    name = serializers.CharField()
    has_card = serializers.IntegerField(help_text="number of cards held")


class PlaceInfoSerializer(serializers.Serializer):
    game_count = serializers.IntegerField(help_text="games the place plays")
    player_count = serializers.IntegerField()
    player_infos = PlayerInfoSerializer(many=True, help_text="in seat order")
    game_no = serializers.IntegerField(help_text="the game being played (0 before the first)")
    turn_player = serializers.CharField(allow_null=True, help_text="whose turn is open, if any")
    place_info = serializers.ChoiceField(choices=records.ORDERS, help_text="the order")
    place_cards = CardSerializer(many=True, help_text="the cards on the table, weakest first")
    state = serializers.ChoiceField(choices=["waiting", "running", "finished"])


class RankEntrySerializer(serializers.Serializer):
    name = serializers.CharField()
    rank = serializers.IntegerField(
        allow_null=True, help_text="in the current game; null until known"
    )
    last_rank = serializers.IntegerField(allow_null=True, help_text="in the last finished game")


class RanksSerializer(serializers.Serializer):
    game_no = serializers.IntegerField()
    ranks = RankEntrySerializer(many=True, help_text="in seat order")


class PostResultSerializer(serializers.Serializer):
    result = serializers.ChoiceField(choices=["play", "pass", "miss"])
    reason = serializers.CharField(allow_null=True, help_text="why a miss was a miss")
    reset_place = serializers.BooleanField(help_text="the table was cleared after this turn")


class LegalPlaysSerializer(serializers.Serializer):
    game_no = serializers.IntegerField()
    my_turn = serializers.BooleanField()
    turn_open = serializers.BooleanField()
    order = serializers.ChoiceField(choices=records.ORDERS)
    table = serializers.ListField(child=serializers.CharField(), help_text="written cards")
    hand = serializers.ListField(child=serializers.CharField(), help_text="written cards")
    can_pass = serializers.BooleanField()
    plays = serializers.ListField(
        child=serializers.ListField(child=serializers.CharField()), help_text="each a play"
    )


class LoggedInSerializer(serializers.Serializer):
    player = serializers.CharField()
    place = serializers.IntegerField()


class PracticeUrlsSerializer(serializers.Serializer):
    play = serializers.CharField(help_text="the Play page (the session plays in the new place)")
    live = serializers.CharField(help_text="the live page")
    results = serializers.CharField(help_text="the results page")
    socket = serializers.CharField(
        required=False, help_text="the player's WebSocket path (none in a uecda practice)"
    )
    records = serializers.CharField(help_text="the place's game records (JSON Lines)")


class PracticeUecdaSerializer(serializers.Serializer):
    join_code = serializers.CharField(
        help_text="the user's seat's join code: the client's name in its 20070 handshake "
        "(14 characters; whoever holds it plays the seat)"
    )
    host = serializers.CharField(help_text="where the client connects (UECDA_PUBLIC_HOST)")
    port = serializers.IntegerField(help_text="the server's UECda port (42485 by default)")
    client = serializers.CharField(help_text="the stock client's command line")
    bot = serializers.CharField(help_text="the project's client's command line (bots/uecda.py)")


class PracticeSerializer(serializers.Serializer):
    player = serializers.CharField(help_text="the user practising")
    place = serializers.IntegerField(help_text="the new place's id; the session now plays in it")
    seat = serializers.IntegerField(min_value=0, max_value=4, help_text="the user's seat")
    players = serializers.ListField(
        child=serializers.CharField(), help_text="every player's name in seat order"
    )
    game_count = serializers.IntegerField()
    pace = serializers.FloatField(
        allow_null=True, help_text="seconds between steps (null in a uecda practice)"
    )
    time_limit = serializers.FloatField(help_text="the user's time limit per turn (s)")
    state = serializers.ChoiceField(
        choices=["running", "finished", "waiting"],
        help_text="running (finished only if it could not wait); a uecda practice: waiting "
        "for the user's client",
    )
    urls = PracticeUrlsSerializer()
    rules = serializers.CharField(
        required=False, help_text="uecda or its variant (only in a uecda practice)"
    )
    uecda = PracticeUecdaSerializer(
        required=False, help_text="a uecda practice only: how the user's client takes its seat"
    )


class ErrorDetailSerializer(serializers.Serializer):
    code = serializers.ChoiceField(choices=sorted(errors.REGISTRY))
    message = serializers.CharField()


class ErrorSerializer(serializers.Serializer):
    error = ErrorDetailSerializer()


class SignedUpSerializer(serializers.Serializer):
    player = serializers.CharField(help_text="the new user's name; the session is logged in as it")


class SignUpFormSerializer(serializers.Serializer):
    name = serializers.CharField(
        help_text="letters, digits and @ . + - _, at most 150; not ending in .json, .jsonl, "
        ".xml or .csv; not dots only"
    )
    password = serializers.CharField(help_text="Django's password validators judge it")
    password_again = serializers.CharField(
        required=False, help_text="the page's second field: when sent, it must be the password"
    )


class LoginFormSerializer(serializers.Serializer):
    name = serializers.CharField(required=False, help_text="user name")
    password = serializers.CharField(required=False)
    place_id = serializers.CharField(required=False, help_text="the place's id")


#: A comma-separated list of four house strategies.
BOTS_PATTERN = (
    r"^\s*(" + "|".join(STRATEGY_NAMES) + r")\s*(,\s*(" + "|".join(STRATEGY_NAMES) + r")\s*){3}$"
)


class PracticeFormSerializer(serializers.Serializer):
    name = serializers.CharField(required=False, help_text="user name (else the session's user)")
    password = serializers.CharField(required=False)
    bots = serializers.RegexField(
        BOTS_PATTERN,
        required=False,
        help_text="four house strategies, comma-separated (default greedy,greedy,greedy,greedy)",
    )
    games = serializers.IntegerField(
        required=False, min_value=1, max_value=practice.MAX_GAMES, help_text="default 5"
    )
    pace = serializers.FloatField(
        required=False, min_value=0, max_value=practice.MAX_PACE, help_text="seconds; default 0"
    )
    time_limit = serializers.FloatField(
        required=False,
        min_value=settings.PRACTICE_MIN_TIME_LIMIT,
        max_value=practice.MAX_TIME_LIMIT,
        help_text="seconds per turn; default 10",
    )
    seed = serializers.CharField(required=False, max_length=64, help_text="reproducible deals")
    time_bank = serializers.FloatField(
        required=False,
        min_value=0,
        max_value=practice.MAX_TIME_BANK,
        help_text="seconds a player may run past the limit over a game; default 0 (none)",
    )
    rated = serializers.ChoiceField(
        choices=["1", "0", "true", "false"],
        required=False,
        help_text="whether its games move the ratings; default 0 (practice is unrated)",
    )
    rules = serializers.CharField(
        required=False,
        max_length=VARIANT_MAX_LENGTH + 6,
        help_text="daihinmin-2011 (default), or uecda: played by the user's client over TCP, "
        "or a variant of uecda such as uecda+11back+no-lock (docs/rules.md, Variants)",
    )


CardsFormSerializer = type(
    "CardsFormSerializer",
    (serializers.Serializer,),
    {
        f"card_{i}": serializers.RegexField(
            CARD_PATTERN,
            required=False,
            allow_blank=True,
            help_text='"mark-number" or "joker"; blank is ignored',
        )
        for i in range(FORM_CARD_FIELDS)
    }
    | {
        IDEMPOTENCY_KEY: serializers.RegexField(
            KEY_PATTERN.pattern, required=False, allow_blank=True, help_text=KEY_HELP
        )
    },
)


# -- examples -------------------------------------------------------------------------------

_DECL = '<?xml version="1.0" encoding="UTF-8"?>\n'
XML_HAND = (
    _DECL + '<cards type="array">\n  <card>\n    <id type="integer">20</id>\n'
    '    <joker type="boolean">false</joker>\n    <mark type="integer">2</mark>\n'
    '    <number type="integer">7</number>\n  </card>\n</cards>\n'
)
XML_PLACE_INFO = (
    _DECL + '<hash>\n  <game-count type="integer">50</game-count>\n'
    '  <player-count type="integer">5</player-count>\n  <player-infos type="array">\n'
    '    <player-info>\n      <name>User1</name>\n      <has-card type="integer">4</has-card>\n'
    "    </player-info>\n  </player-infos>\n</hash>\n"
)
XML_RANKS = (
    _DECL + '<hash>\n  <game-no type="integer">3</game-no>\n  <ranks type="array">\n'
    '    <rank>\n      <name>User1</name>\n      <rank nil="true"/>\n'
    '      <last-rank type="integer">2</last-rank>\n    </rank>\n  </ranks>\n</hash>\n'
)
XML_RESULT = (
    _DECL + '<hash>\n  <result>play</result>\n  <reason nil="true"/>\n'
    '  <reset-place type="boolean">false</reset-place>\n</hash>\n'
)
XML_PRACTICE = (
    _DECL + '<hash>\n  <player>User1</player>\n  <place type="integer">27</place>\n'
    '  <seat type="integer">2</seat>\n  <players type="array">\n'
    "    <player>house-greedy-1</player>\n    <player>house-greedy-2</player>\n"
    "    <player>User1</player>\n    <player>house-greedy-3</player>\n"
    "    <player>house-greedy-4</player>\n  </players>\n"
    '  <game-count type="integer">5</game-count>\n  <pace type="float">0.0</pace>\n'
    '  <time-limit type="float">10.0</time-limit>\n  <state>running</state>\n  <urls>\n'
    "    <play>/operations</play>\n    <live>/places/27/</live>\n"
    "    <results>/places/27/results</results>\n    <socket>/ws/places/27/</socket>\n"
    "    <records>/places/27/records.jsonl</records>\n  </urls>\n</hash>\n"
)
XML_SIGNED_UP = _DECL + "<hash>\n  <player>User1</player>\n</hash>\n"
XML_LOGGED_IN = (
    _DECL + '<hash>\n  <player>User1</player>\n  <place type="integer">26</place>\n</hash>\n'
)

_XML_STRING = {"type": "string", "description": "Rails 3 XML (PROTOCOL.md §3)"}
_HTML_STRING = {"type": "string", "description": "an HTML page"}


def _xml(example: str, description: str) -> OpenApiResponse:
    return OpenApiResponse(
        _XML_STRING, description, examples=[OpenApiExample("document", value=example)]
    )


_LOCATION = OpenApiParameter(
    "Location", OpenApiTypes.STR, OpenApiParameter.HEADER, response=[302], description="where to go"
)
_RETRY_AFTER = OpenApiParameter(
    "Retry-After", OpenApiTypes.INT, OpenApiParameter.HEADER, response=[429], description="seconds"
)


Why = tuple[errors.Code, str]  # a code of the registry, and when a path answers it


def _errors(fmt: str | None, statuses: dict[int, list[Why]]) -> dict:
    """Error responses: the JSON or XML error body; without a suffix also the short page."""
    out: dict = {}
    for status, whys in statuses.items():
        assert all(code.status == status for code, _ in whys), whys
        description = "; ".join(f"{code}: {when}" for code, when in whys)
        example = errors.xml_body(errors.Refused(whys[0][0], "…")).decode()
        if fmt == XML:
            out[(status, XML_TYPE)] = _xml(example, description)
        else:
            out[(status, JSON_TYPE)] = OpenApiResponse(ErrorSerializer, description)
        if fmt is None:
            out[(status, XML_TYPE)] = _xml(example, description)
            out[(status, HTML_TYPE)] = OpenApiResponse(_HTML_STRING, description)
    return out


def _document(fmt: str | None, serializer, xml_example: str, description: str) -> dict:
    if fmt == XML:
        return {(200, XML_TYPE): _xml(xml_example, description)}
    return {(200, JSON_TYPE): OpenApiResponse(serializer, description)}


_BODY_ERRORS: dict[int, list[Why]] = {
    400: [(errors.BAD_REQUEST, "a request Django cannot read (too many fields, a broken body)")],
    403: [(errors.CROSS_SITE, "the Origin or Referer header names another site")],
    413: [(errors.REQUEST_TOO_LARGE, "the body is too large")],
    415: [
        (
            errors.UNSUPPORTED_MEDIA_TYPE,
            "a body that is not a form (send a form or a query string)",
        )
    ],
}
_NOT_LOGGED_IN: dict[int, list[Why]] = {401: [(errors.NOT_LOGGED_IN, "no valid session")]}
#: What a player's route may answer besides its own: no session or token, or too many requests.
_PLAYER: dict[int, list[Why]] = {
    400: [(errors.INVALID_PARAMETER, "a bearer token without a place_id naming the place")],
    401: [
        *_NOT_LOGGED_IN[401],
        (errors.INVALID_TOKEN, "an Authorization: Bearer token unknown or revoked"),
    ],
    429: [
        (
            errors.RATE_LIMITED,
            "more than API_RATE_LIMIT requests of the session (or API_USER_RATE_LIMIT of the "
            "user) in a window: wait Retry-After",
        ),
        (errors.TOO_MANY_ATTEMPTS, "too many wrong tokens or passwords from the address"),
    ],
}
_PLACE_ID = OpenApiParameter(
    "place_id",
    {"type": "string", "pattern": r"^\s*[0-9]{1,18}\s*$"},
    OpenApiParameter.QUERY,
    description="with a bearer token (which names no place): the place to play in",
)


def _suffix(fmt: str | None) -> str:
    return f".{fmt}" if fmt else ""


def _op(prefix: str, name: str, fmt: str | None, method: str) -> str:
    base = (prefix.strip("/").replace("/", "_") + "_" if prefix else "") + name
    return f"{base}_{fmt or 'plain'}_{method}"


# -- one description per path -----------------------------------------------------------------

_DOCUMENTS = {
    "get_hand": (
        CardSerializer(many=True),
        XML_HAND,
        "The player's hand, weakest first in the normal order, jokers last. "
        'An empty hand is `[]` (XML: `<nil-classes type="array"/>`).',
    ),
    "get_initial_hand": (
        CardSerializer(many=True),
        XML_HAND,
        "The cards the player was dealt in the current game, before the exchange "
        "(the shape of get_hand).",
    ),
    "get_place_info": (
        PlaceInfoSerializer,
        XML_PLACE_INFO,
        "The place: game_count, player_count and player_infos (seat order) come first; "
        "the other keys follow them.",
    ),
    "get_rank": (
        RanksSerializer,
        XML_RANKS,
        "Each player's rank in the current game (null until known) and in the last finished one.",
    ),
}


def document_spec(name: str, prefix: str, fmt: str | None) -> dict:
    serializer, example, description = _DOCUMENTS[name]
    return {
        "get": extend_schema(
            operation_id=_op(prefix, name, fmt, "get"),
            summary=f"{name}{_suffix(fmt)}" + ("" if fmt else " (JSON)"),
            description=description + " The player and the place come from the session alone, "
            "or from a bearer token and `place_id`.",
            tags=["game"],
            request=None,
            parameters=[_PLACE_ID, _RETRY_AFTER],
            responses={
                **_document(fmt, serializer, example, description),
                **_errors(fmt or JSON, _PLAYER),
            },
        )
    }


def post_cards_spec(prefix: str, fmt: str | None) -> dict:
    cards = [
        OpenApiParameter(
            f"card_{i}",
            {"type": "string", "pattern": CARD_PATTERN},
            OpenApiParameter.QUERY,
            description="a card; every parameter whose name contains card_ counts",
        )
        for i in range(FORM_CARD_FIELDS)
    ]
    key = OpenApiParameter(
        IDEMPOTENCY_KEY,
        {"type": "string", "pattern": f"^({KEY_PATTERN.pattern})?$"},
        OpenApiParameter.QUERY,
        description=KEY_HELP,
    )
    if fmt:
        done = _document(fmt, PostResultSerializer, XML_RESULT, "what the server made of it")
    else:
        done = {
            (302, HTML_TYPE): OpenApiResponse(None, "a form client: back to /operations"),
            (200, JSON_TYPE): OpenApiResponse(
                PostResultSerializer, "a client that sent Accept: application/json"
            ),
        }
    return {
        "post": extend_schema(
            operation_id=_op(prefix, "post_cards", fmt, "post"),
            summary=f"post_cards{_suffix(fmt)}",
            description=(
                "Plays the cards of every parameter whose name contains `card_` (form body "
                "and query string; blank values ignored); none at all is a pass. Card strings: "
                '"mark-number" ("2-3") or "joker". An illegal action is a miss: a result, '
                f"answered 200. More than {MAX_CARDS} cards or an unknown card string is "
                "INVALID_CARD and changes nothing."
            ),
            tags=["play"],
            parameters=[*cards, key, _PLACE_ID, _LOCATION, _RETRY_AFTER],
            request={t: CardsFormSerializer for t in FORM_TYPES},
            responses={
                **done,
                **_errors(
                    fmt,
                    {
                        **_BODY_ERRORS,
                        **_PLAYER,
                        400: [
                            (errors.INVALID_CARD, "a card string in no known form, or too many"),
                            (errors.INVALID_PARAMETER, "an idempotency_key of no valid form"),
                            (errors.BAD_REQUEST, "an unreadable body"),
                        ],
                        405: [(errors.METHOD_NOT_ALLOWED, "only POST")],
                        409: [
                            (errors.NO_TURN_OPEN, "no game running or the turn is being settled"),
                            (
                                errors.NOT_YOUR_TURN,
                                "another player's turn, or this player already acted",
                            ),
                        ],
                    },
                ),
            },
        )
    }


def login_spec(path: str, fmt: str | None, with_form: bool) -> dict:
    fields = [
        OpenApiParameter(name, OpenApiTypes.STR, OpenApiParameter.QUERY, description=text)
        for name, text in (
            ("name", "user name (or in the form body)"),
            ("password", "password (or in the form body)"),
            (
                "place_id",
                "the place's id (or in the form body); a page client may leave it empty to "
                "log in to the site only (302 to /account)",
            ),
        )
    ]
    if fmt:
        done = _document(fmt, LoggedInSerializer, XML_LOGGED_IN, "logged in; the cookie is set")
    else:
        done = {
            (302, HTML_TYPE): OpenApiResponse(
                None, "logged in: to /operations (without a place: to /account)"
            ),
            (200, JSON_TYPE): OpenApiResponse(
                LoggedInSerializer, "logged in (Accept: application/json)"
            ),
        }
    spec = {
        "post": extend_schema(
            operation_id=_op("", path, fmt, "post"),
            summary=f"log in ({path}{_suffix(fmt)})",
            description=(
                "Logs the user in as a player of the place and sets the session cookie. "
                "The fields come as a form body or as query parameters. Repeated failures "
                "from one address or for one name are answered 429 for a while."
            ),
            tags=["login"],
            auth=[],
            parameters=[*fields, _LOCATION, _RETRY_AFTER],
            request={t: LoginFormSerializer for t in FORM_TYPES},
            responses={
                **done,
                **_errors(
                    fmt,
                    {
                        **_BODY_ERRORS,
                        401: [(errors.LOGIN_FAILED, "wrong name, password or place")],
                        429: [(errors.TOO_MANY_ATTEMPTS, "wait Retry-After seconds")],
                    },
                ),
            },
        )
    }
    if with_form:
        spec["get"] = extend_schema(
            operation_id=_op("", path, fmt, "get"),
            summary="the login page",
            description="An HTML page whose first form posts name, password and place_id to "
            "/sessions.",
            tags=["login"],
            auth=[],
            request=None,
            responses={(200, HTML_TYPE): OpenApiResponse(_HTML_STRING, "the login form")},
        )
    return spec


def sign_up_spec(fmt: str | None, with_form: bool) -> dict:
    fields = [
        OpenApiParameter(name, OpenApiTypes.STR, OpenApiParameter.QUERY, description=text)
        for name, text in (
            ("name", "the new user's name (or in the form body)"),
            ("password", "its password (or in the form body)"),
            ("password_again", "the page's second password field: when sent, the password"),
        )
    ]
    made = "the account, made; the session is logged in as it"
    if fmt == XML:
        done = {(201, XML_TYPE): _xml(XML_SIGNED_UP, made)}
    elif fmt:
        done = {(201, JSON_TYPE): OpenApiResponse(SignedUpSerializer, made)}
    else:
        done = {
            (302, HTML_TYPE): OpenApiResponse(None, "signed up: to /signup, what to do next"),
            (201, JSON_TYPE): OpenApiResponse(SignedUpSerializer, f"{made} (Accept: JSON)"),
        }
    spec = {
        "post": extend_schema(
            operation_id=_op("", "signup", fmt, "post"),
            summary=f"sign up (signup{_suffix(fmt)})",
            description=(
                "Makes a new account (no staff, no house bot) and logs the session in as it, "
                "without a place: POST /practice then plays, with the session or with name and "
                "password; POST /login with a place_id logs in to a place an organiser seated "
                "the user in. Each sign-up, made or refused, counts as a failed login of its "
                "address and name: the login's limits (429) cap them. Closed (403) when the "
                "server's SIGN_UP setting is off."
            ),
            tags=["login"],
            auth=[],
            parameters=[*fields, _LOCATION, _RETRY_AFTER],
            request={t: SignUpFormSerializer for t in FORM_TYPES},
            responses={
                **done,
                **_errors(
                    fmt,
                    {
                        **_BODY_ERRORS,
                        400: [
                            *_BODY_ERRORS[400],
                            (errors.INVALID_NAME, "a name no user may take"),
                            (errors.INVALID_PASSWORD, "a weak password, or two that differ"),
                        ],
                        403: [
                            *_BODY_ERRORS[403],
                            (errors.SIGN_UP_CLOSED, "the server takes no sign-ups"),
                        ],
                        409: [
                            (errors.NAME_TAKEN, "a user has the name (in any case)"),
                            (errors.NAME_CONFUSABLE, "the name looks like a user's"),
                        ],
                        429: [(errors.TOO_MANY_ATTEMPTS, "wait Retry-After seconds")],
                    },
                ),
            },
        )
    }
    if with_form:
        spec["get"] = extend_schema(
            operation_id=_op("", "signup", fmt, "get"),
            summary="the sign-up page",
            description="An HTML page whose form posts name, password and password_again to "
            "/signup; once signed up, the practice form. 403 when sign-up is off.",
            tags=["login"],
            auth=[],
            request=None,
            responses={
                (200, HTML_TYPE): OpenApiResponse(_HTML_STRING, "the sign-up form"),
                (403, HTML_TYPE): OpenApiResponse(_HTML_STRING, "sign-up is off"),
            },
        )
    return spec


def logout_spec(fmt: str | None) -> dict:
    if fmt:
        done = {204: OpenApiResponse(None, "logged out")}
    else:
        done = {(302, HTML_TYPE): OpenApiResponse(None, "logged out: to /login")}
    spec = {}
    for method in ("get", "post"):
        responses = dict(done)
        if method == "post":
            responses.update(_errors(fmt, {403: _BODY_ERRORS[403]}))
        spec[method] = extend_schema(
            operation_id=_op("", "logout", fmt, method),
            summary=f"log out (logout{_suffix(fmt)})",
            description="Ends the session.",
            tags=["login"],
            auth=[],
            request=None,
            parameters=[_LOCATION] if not fmt else [],
            responses=responses,
        )
    return spec


def practice_spec(fmt: str | None) -> dict:
    fields = [
        OpenApiParameter(name, schema, OpenApiParameter.QUERY, description=text)
        for name, schema, text in (
            ("name", OpenApiTypes.STR, "user name (or in the form body); else the session's user"),
            ("password", OpenApiTypes.STR, "password (or in the form body)"),
            (
                "bots",
                {"type": "string", "pattern": BOTS_PATTERN},
                "four house strategies, comma-separated: " + ", ".join(STRATEGY_NAMES),
            ),
            ("games", OpenApiTypes.INT, f"games to play, 1 to {practice.MAX_GAMES} (default 5)"),
            ("pace", OpenApiTypes.NUMBER, f"seconds between steps, 0 to {practice.MAX_PACE:g}"),
            (
                "time_limit",
                OpenApiTypes.NUMBER,
                f"the time limit per turn (s), {settings.PRACTICE_MIN_TIME_LIMIT:g} to "
                f"{practice.MAX_TIME_LIMIT:g} (default 10)",
            ),
            ("seed", OpenApiTypes.STR, "reproducible deals and house moves; unrated"),
            (
                "time_bank",
                OpenApiTypes.NUMBER,
                f"a time bank per game (s), 0 to {practice.MAX_TIME_BANK:g} (default 0: none)",
            ),
            (
                "rated",
                {"type": "string", "enum": ["1", "0", "true", "false"]},
                "whether its games move the ratings (default 0: unrated)",
            ),
            (
                "rules",
                {"type": "string", "enum": list(practice.PRACTICE_RULES)},
                "daihinmin-2011 (default); uecda: a place played by the user's client over "
                "TCP, waiting for it: the answer's uecda says its join code and where to connect",
            ),
        )
    ]
    if fmt:
        done = _document(fmt, PracticeSerializer, XML_PRACTICE, "the place, started")
    else:
        done = {
            (302, HTML_TYPE): OpenApiResponse(
                None, "a form client: to /operations, the Play page of the new place"
            ),
            (200, JSON_TYPE): OpenApiResponse(
                PracticeSerializer, "the place, started (Accept: application/json)"
            ),
        }
    return {
        "post": extend_schema(
            operation_id=_op("", "practice", fmt, "post"),
            summary=f"practise against the house bots (practice{_suffix(fmt)})",
            description=(
                "Creates a place of the user and four house bots (strategies played by the "
                "server itself), starts it and logs the session in to it as after /login. The "
                "user is the bearer token's (`Authorization: Bearer`: a bot then plays with the "
                "token and the answer's `place` as `place_id`; no session is made), or the one "
                "name and password give (checked as /login checks them), or else the session's. "
                "The user sits in a random seat; at pace 0 the house bots "
                "have played until the user's first turn when the answer comes. A user may have "
                "a few unfinished practice places at a time."
            ),
            tags=["login"],
            parameters=[*fields, _LOCATION, _RETRY_AFTER],  # its security: a token or a session
            request={t: PracticeFormSerializer for t in FORM_TYPES},
            responses={
                **done,
                **_errors(
                    fmt,
                    {
                        **_BODY_ERRORS,
                        400: [
                            (errors.INVALID_PARAMETER, "games, pace, time_limit, seed or bots"),
                            (errors.UNKNOWN_STRATEGY, "a name in bots is no house strategy"),
                            (errors.BAD_REQUEST, "an unreadable body"),
                        ],
                        401: [
                            (errors.LOGIN_FAILED, "wrong name or password"),
                            (
                                errors.NOT_LOGGED_IN,
                                "no token, no name and no logged-in session (a page client: "
                                "302 to /login)",
                            ),
                            (errors.INVALID_TOKEN, _PLAYER[401][1][1]),
                        ],
                        405: [(errors.METHOD_NOT_ALLOWED, "only POST")],
                        409: [
                            (errors.TOO_MANY_PRACTICES, "too many unfinished practice places"),
                            (
                                errors.TOO_MANY_ADDRESS_PRACTICES,
                                "too many unfinished practice places from this address",
                            ),
                        ],
                        429: [
                            (errors.TOO_MANY_ATTEMPTS, "wait Retry-After seconds"),
                            (
                                errors.TOO_MANY_PRACTICE_GAMES,
                                "too many practice games asked for lately: wait Retry-After s",
                            ),
                            (
                                errors.TOO_MANY_ADDRESS_PRACTICE_GAMES,
                                "too many from this address lately: wait Retry-After s",
                            ),
                        ],
                    },
                ),
            },
        )
    }


def operations_spec() -> dict:
    return {
        "get": extend_schema(
            operation_id="operations_page_get",
            summary="the manual-play page",
            description="The hand, the place, links to the documents and one form (the first "
            "on the page) posting card_0 … card_13 to /operations/post_cards. "
            "Not logged in: 302 to /login.",
            tags=["play"],
            request=None,
            parameters=[_LOCATION, _RETRY_AFTER],
            responses={
                (200, HTML_TYPE): OpenApiResponse(_HTML_STRING, "the page"),
                (302, HTML_TYPE): OpenApiResponse(None, "not logged in: to /login"),
                (429, HTML_TYPE): OpenApiResponse(
                    _HTML_STRING, "RATE_LIMITED: too many requests from this session or user"
                ),
            },
        )
    }


def legal_plays_spec() -> dict:
    return {
        "get": extend_schema(
            operation_id="operations_legal_plays_json_get",
            summary="legal_plays.json",
            description="The player's hand and every legal play of it against the table now, "
            "cards written as in post_cards (read-only; for the manual-play page).",
            tags=["play"],
            request=None,
            parameters=[_PLACE_ID, _RETRY_AFTER],
            responses={
                (200, JSON_TYPE): OpenApiResponse(LegalPlaysSerializer, "the legal plays"),
                **_errors(JSON, _PLAYER),
            },
        )
    }


class TokenSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    label = serializers.CharField(help_text="the bot's version, recorded on each seat it posts in")
    prefix = serializers.CharField(help_text="the token's visible part, after dh_")
    created_at = serializers.DateTimeField()
    last_used_at = serializers.DateTimeField(allow_null=True, help_text="within a minute")
    revoked_at = serializers.DateTimeField(allow_null=True)


class NewTokenSerializer(TokenSerializer):
    token = serializers.CharField(help_text="the token itself: shown this once, never again")


class TokenListSerializer(serializers.Serializer):
    tokens = TokenSerializer(many=True, help_text="the newest first, revoked ones too")


class TokenFormSerializer(serializers.Serializer):
    label = serializers.RegexField(
        r"^\s*[A-Za-z0-9][A-Za-z0-9._+-]{0,39}\s*$", help_text="the bot's version, e.g. v2"
    )


_SESSION_ONLY: dict[int, list[Why]] = {
    401: [(errors.NOT_LOGGED_IN, "no logged-in session (a bearer token cannot manage tokens)")],
    403: [(errors.CROSS_SITE, "the Origin or Referer header names another site")],
}


def tokens_spec() -> dict:
    """``/tokens.json``: list and make personal API tokens."""
    return {
        "get": extend_schema(
            operation_id="tokens_json_get",
            summary="tokens.json: the user's API tokens",
            description="The logged-in session's user's tokens, never their secret.",
            tags=["tokens"],
            request=None,
            responses={
                (200, JSON_TYPE): OpenApiResponse(TokenListSerializer, "the tokens"),
                **_errors(JSON, {401: _SESSION_ONLY[401]}),
            },
        ),
        "post": extend_schema(
            operation_id="tokens_json_post",
            summary="tokens.json: make an API token",
            description="A new personal API token for `Authorization: Bearer`, labelled with "
            "the bot's version. The answer holds the token this once: only its SHA-256 is kept.",
            tags=["tokens"],
            request={t: TokenFormSerializer for t in FORM_TYPES},
            responses={
                (201, JSON_TYPE): OpenApiResponse(NewTokenSerializer, "the token, shown once"),
                **_errors(
                    JSON,
                    {
                        **_BODY_ERRORS,
                        **_SESSION_ONLY,
                        400: [(errors.INVALID_PARAMETER, "a label of no valid form")],
                        409: [(errors.TOO_MANY_TOKENS, "too many tokens not revoked")],
                        429: [(errors.TOO_MANY_NEW_TOKENS, "too many tokens made lately")],
                    },
                ),
            },
        ),
    }


def token_spec() -> dict:
    """``/tokens/ID.json``: revoke a token."""
    return {
        "delete": extend_schema(
            operation_id="token_json_delete",
            summary="tokens/ID.json: revoke an API token",
            description="Revokes the token: refused from then on, a socket using it at its "
            "next frame (and closed). Revoking it again changes nothing.",
            tags=["tokens"],
            request=None,
            responses={
                (200, JSON_TYPE): OpenApiResponse(TokenSerializer, "the token, revoked"),
                **_errors(
                    JSON,
                    {**_SESSION_ONLY, 404: [(errors.NO_SUCH_TOKEN, "no token of the user's")]},
                ),
            },
        )
    }


class AnalysisStatusSerializer(serializers.Serializer):
    state = serializers.RegexField(
        r"^(queued|running|done|failed)$", help_text="queued, running, done or failed"
    )
    done = serializers.IntegerField(min_value=0, help_text="decisions evaluated so far")
    decisions = serializers.IntegerField(
        min_value=0, help_text="decisions to evaluate (0: not known yet)"
    )
    playouts = serializers.IntegerField(min_value=1)
    error = serializers.CharField(required=False, help_text="why a failed job failed")


#: The analysis document (docs/analysis.md; every field in docs/analysis.schema.json).
_ANALYSIS = {
    "type": "object",
    "required": ["format", "version", "rules", "place", "game", "playouts", "policy",
                 "thresholds", "decisions", "players"],
    "description": "the analysis: docs/analysis.schema.json",
}  # fmt: skip
_GAME_PATH = [
    OpenApiParameter("place_id", {"type": "integer", "minimum": 1}, OpenApiParameter.PATH, description="the place's id"),
    OpenApiParameter("game_no", {"type": "integer", "minimum": 1}, OpenApiParameter.PATH, description="the game's number"),
]  # fmt: skip
_ANALYSIS_READ_ERRORS: dict[int, list[Why]] = {
    401: [(errors.INVALID_TOKEN, "an Authorization: Bearer token unknown or revoked")],
    403: [(errors.HELD_BACK, "a place dealing the same cards has still to play the game")],
    404: [
        (errors.NOT_FOUND, "no such place, or the game not finished"),
        (errors.NOT_ANALYSED, "nobody asked for the game's analysis (GET)"),
    ],
    429: [(errors.TOO_MANY_ATTEMPTS, "too many wrong tokens or passwords from the address")],
}
#: A script's session or token asks; anyone reads (staff, the games held back too).
_EITHER = [{"bearerAuth": []}, {"cookieAuth": []}]


def analysis_spec() -> dict:
    """``/places/ID/games/N/analysis.json``: a finished game's analysis, read or asked for."""
    status = "how far the job is: queued or running (202), failed (202, with `error`)"
    return {
        "get": extend_schema(
            operation_id="game_analysis_get",
            summary="a finished game's analysis",
            description="The analysis once made (200), else how far its job is (202). "
            "Only a finished game whose record the reader may read (docs/records.md): staff, "
            "or a staff user's token, read the games held back too. docs/analysis.md.",
            tags=["analysis"],
            auth=[*_EITHER, {}],
            parameters=_GAME_PATH,
            request=None,
            responses={
                (200, JSON_TYPE): OpenApiResponse(_ANALYSIS, "the analysis"),
                (202, JSON_TYPE): OpenApiResponse(AnalysisStatusSerializer, status),
                **_errors(JSON, _ANALYSIS_READ_ERRORS),
            },
        ),
        "post": extend_schema(
            operation_id="game_analysis_post",
            summary="ask for a finished game's analysis",
            description="Queues the game's analysis for the session's user or the bearer "
            "token's (any user: no `place_id`). A game is analysed once: asking again "
            "answers the job there is (200 once done: read it with GET); a failed one is "
            "queued again. Bounded per user (one under way, `ANALYSES_PER_WINDOW` in "
            "`ANALYSES_WINDOW` seconds) and per client address, whatever its accounts "
            "(`ANALYSES_UNDER_WAY_PER_ADDRESS` under way, `ANALYSES_PER_ADDRESS` in the "
            "window). Staff's jobs are made first, then those of a game the asker played.",
            tags=["analysis"],
            auth=_EITHER,
            parameters=[*_GAME_PATH, _RETRY_AFTER],
            request=None,
            responses={
                (200, JSON_TYPE): OpenApiResponse(AnalysisStatusSerializer, "made already"),
                (202, JSON_TYPE): OpenApiResponse(AnalysisStatusSerializer, status),
                **_errors(
                    JSON,
                    {
                        401: [
                            (errors.NOT_LOGGED_IN, "neither a session nor a bearer token"),
                            *_ANALYSIS_READ_ERRORS[401],
                        ],
                        403: [
                            (errors.CROSS_SITE, "the Origin or Referer header names another site"),
                            *_ANALYSIS_READ_ERRORS[403],
                        ],
                        404: [_ANALYSIS_READ_ERRORS[404][0]],
                        409: [
                            (errors.ANALYSIS_UNDER_WAY, "the user's analysis is still under way"),
                            (
                                errors.ADDRESS_ANALYSES_UNDER_WAY,
                                "ANALYSES_UNDER_WAY_PER_ADDRESS of the address's still are",
                            ),
                        ],
                        429: [
                            (errors.TOO_MANY_ANALYSES, "ANALYSES_PER_WINDOW asked for lately"),
                            (
                                errors.TOO_MANY_ADDRESS_ANALYSES,
                                "ANALYSES_PER_ADDRESS asked for lately from the address",
                            ),
                            *_ANALYSIS_READ_ERRORS[429],
                        ],
                    },
                ),
            },
        ),
    }


def _spec(route, prefix: str, fmt: str | None) -> dict:
    """The description of one path of a route."""
    if route.name in _DOCUMENTS:
        return document_spec(route.name, prefix, fmt)
    if route.name == "post_cards":
        return post_cards_spec(prefix, fmt)
    if route.name in ("login", "sessions"):
        return login_spec(route.name, fmt, with_form="GET" in route.methods)
    if route.name == "logout":
        return logout_spec(fmt)
    if route.name == "signup":
        return sign_up_spec(fmt, with_form="GET" in route.methods)
    if route.name == "operations":
        return operations_spec()
    if route.name == "practice":
        return practice_spec(fmt)
    if route.name == "legal_plays":
        return legal_plays_spec()
    raise LookupError(f"no description of {route.name}")


def described(route, prefix: str, fmt: str | None):
    """The view class of one path of ``route``: its ``route``, ``fmt``, methods and description."""
    label = (prefix.strip("/") + "_" if prefix.strip("/") else "") + (fmt or "plain")
    attrs = {
        "__module__": route.view.__module__,
        "route": route,
        "fmt": fmt,
        "http_method_names": [m.lower() for m in route.methods],
    }
    if route.access is Access.ANYONE:
        attrs["authentication_classes"] = []
    cls = type(f"{route.view.__name__}_{label}", (route.view,), attrs)
    return extend_schema_view(**_spec(route, prefix, fmt))(cls)


# -- the read routes (places/views/), described by hand ---------------------------------------


def _parameter(where: str, name: str, schema: dict, description: str) -> dict:
    """A read route's parameter: ``where`` "query" (optional) or "path" (required)."""
    return {"in": where, "name": name, "required": where == "path", "schema": schema,
            "description": description}  # fmt: skip


def read_paths() -> dict:
    """The site's read routes this description holds (``places/urls.py``): the game search
    and the leaderboards."""
    from daifugo.facts import KINDS
    from daifugo.rules import DAIHINMIN_2011_NAME, PROFILES
    from places.reads.games import MAX_PAGE_SIZE, MISS_CODES, PAGE_SIZE, VERSION_MAX_LENGTH

    whole = {"type": "integer", "minimum": 1}
    moment = {"type": "string", "description": "a date (2026-11-28) or an ISO 8601 time"}
    player = {
        "type": "object",
        "required": ["seat", "name", "rank"],
        "properties": {
            "seat": {"type": "integer", "minimum": 0, "maximum": 4},
            "name": {"type": "string"},
            "rank": {"type": "integer", "minimum": 1, "maximum": 5},
        },
    }
    game = {
        "type": "object",
        "required": ["place", "game", "rules", "tournament", "ended_at", "players", "turn",
                     "replay", "record"],
        "properties": {
            "place": {"type": "object", "required": ["id", "title"],
                      "properties": {"id": {"type": "integer"}, "title": {"type": "string"}}},
            "game": {"type": "integer", "minimum": 1, "description": "its number in the place"},
            "rules": {"type": "string", "enum": list(PROFILES)},
            "tournament": {"type": "integer", "nullable": True},
            "ended_at": {"type": "string", "nullable": True, "format": "date-time"},
            "players": {"type": "array", "items": player, "description": "by seat"},
            "turn": {"type": "integer", "nullable": True,
                     "description": "the first turn where what has= asks for happened"},
            "replay": {"type": "string", "description": "the replay page, at that turn"},
            "record": {"type": "string", "description": "the game's record.json"},
        },
    }  # fmt: skip
    rating = {
        "type": "object",
        "required": ["rank", "name", "mu", "sigma", "ordinal", "games", "last_played"],
        "properties": {
            "rank": {"type": "integer", "minimum": 1},
            "name": {"type": "string"},
            "mu": {"type": "number"},
            "sigma": {"type": "number"},
            "ordinal": {"type": "number", "description": "μ − 3σ, what the board ranks by"},
            "games": {"type": "integer", "minimum": 1},
            "last_played": {"type": "string", "format": "date-time"},
        },
    }
    error = {"$ref": "#/components/schemas/Error"}
    return {
        "/games.json": {
            "get": {
                "operationId": "games_json_get",
                "summary": "find finished games",
                "description": (
                    "Finished games, newest first, a page at a time: `next` is the next "
                    "page's URL (the same search with `before`), null on the last. A game "
                    "still held back (docs/records.md) is found by staff only. The page "
                    "`/games` shows the same search. docs/protocol.md, \"Finding games\"."
                ),
                "tags": ["read"],
                "security": [{}],
                "parameters": [
                    _parameter("query", "player", {"type": "string"}, "games this user played"),
                    _parameter("query", "version", {"type": "string", "maxLength": VERSION_MAX_LENGTH},
                                    "the player's bot version, its token's label (needs player)"),
                    _parameter("query", "opponent", {"type": "string"},
                                    "games this user played too (with player: against it)"),
                    _parameter("query", "rules", {"type": "string", "enum": list(PROFILES)},
                                    "the rules profile"),
                    _parameter("query", "place", whole, "a place's id"),
                    _parameter("query", "tournament", whole, "a tournament's id"),
                    _parameter("query", "since", moment, "ended at or after"),
                    _parameter("query", "until", moment, "ended before"),
                    _parameter("query", "rank", {"type": "integer", "minimum": 1, "maximum": 5},
                                    "the player's rank (needs player)"),
                    _parameter("query", "has", {"type": "string", "enum": list(KINDS)},
                                    "what happened in the game (with player: what it did)"),
                    _parameter("query", "miss", {"type": "string", "enum": list(MISS_CODES)},
                                    "a miss of this code (has=miss)"),
                    _parameter("query", "before", whole, "the cursor: `next` gives it"),
                    _parameter("query", "limit", {"type": "integer", "minimum": 1,
                                              "maximum": MAX_PAGE_SIZE, "default": PAGE_SIZE},
                                    "games a page"),
                ],
                "responses": {
                    "200": {
                        "description": "a page of games",
                        "content": {JSON_TYPE: {"schema": {
                            "type": "object",
                            "required": ["games", "next"],
                            "properties": {"games": {"type": "array", "items": game},
                                           "next": {"type": "string", "nullable": True}},
                        }}},
                    },
                    "400": {"description": "INVALID_PARAMETER: a parameter unknown or with "
                            "no valid value (the message names it)",
                            "content": {JSON_TYPE: {"schema": error}}},
                    "405": {"description": "a method other than GET or HEAD"},
                },
            }
        },
        **more_read_paths(error),
        "/ratings.json": {
            "get": {
                "operationId": "ratings_json_get",
                "summary": "a rule book's leaderboard",
                "description": (
                    "Every user rated in one rule book, best ordinal (μ − 3σ) first: each "
                    "book has its own ratings. The page `/ratings` shows the same. "
                    "docs/protocol.md, \"Tournaments and ratings\"; docs/tournaments.md."
                ),
                "tags": ["read"],
                "security": [{}],
                "parameters": [
                    _parameter("query", "rules", {"type": "string", "enum": list(PROFILES),
                                              "default": DAIHINMIN_2011_NAME}, "the rule book"),
                ],
                "responses": {
                    "200": {
                        "description": "the leaderboard",
                        "content": {JSON_TYPE: {"schema": {
                            "type": "object",
                            "required": ["ratings", "rules"],
                            "properties": {
                                "ratings": {"type": "array", "items": rating},
                                "rules": {"type": "string", "enum": list(PROFILES)},
                            },
                        }}},
                    },
                    "400": {"description": "INVALID_PARAMETER: no such rule book",
                            "content": {JSON_TYPE: {"schema": error}}},
                    "405": {"description": "a method other than GET or HEAD"},
                },
            }
        },
    }  # fmt: skip


def _read_operation(
    operation_id: str,
    summary: str,
    description: str,
    parameters: list[dict],
    ok: tuple[str, dict],
    refusals: dict[str, str],
    error: dict,
) -> dict:
    """One GET of a read route: ``ok`` its content type and schema, ``refusals`` its error
    statuses (JSON ``Error`` bodies) and what each says."""
    content_type, body = ok
    return {
        "get": {
            "operationId": operation_id,
            "summary": summary,
            "description": description,
            "tags": ["read"],
            "security": [{}],
            "parameters": parameters,
            "responses": {
                "200": {"description": summary, "content": {content_type: {"schema": body}}},
                **{
                    status: {"description": what, "content": {JSON_TYPE: {"schema": error}}}
                    for status, what in refusals.items()
                },
                "405": {"description": "a method other than GET or HEAD"},
            },
        }
    }


def more_read_paths(error: dict) -> dict:
    """The event log, the records, the profiles and the tournaments (docs/protocol.md): any
    path segment that names nothing is NOT_FOUND in JSON (``daihinmin/urls.py``)."""
    place = _parameter("path", "place_id", {"type": "integer", "minimum": 1}, "the place's id")
    game = _parameter("path", "game_no", {"type": "integer", "minimum": 1}, "its number")
    tournament = _parameter("path", "tournament_id", {"type": "integer", "minimum": 1},
                                 "the tournament's id")  # fmt: skip
    name = _parameter("path", "name", {"type": "string"}, "the user's name")
    lines = ("application/x-ndjson", {"type": "string", "description": "a record a line"})
    too_many_downloads = (
        "TOO_MANY_DOWNLOADS: this address has RECORDS_DOWNLOADS_PER_ADDRESS downloads of "
        "records under way (with Retry-After)"
    )
    held = "HELD_BACK: the games dealing the same cards elsewhere are not all played"
    nothing = "NOT_FOUND: nothing of that id or name"
    return {
        "/places/{place_id}/events.json": _read_operation(
            "place_events_get", "a place's event log",
            "The events a place sent, exactly as sent, after `after` (at most 1,000: read "
            "again from `last_seq`). docs/protocol.md, \"The event log\".",
            [place, _parameter("query", "after", {"type": "integer", "minimum": 0},
                                    "the last sequence number read (0: from the first)")],
            (JSON_TYPE, {"type": "object", "required": ["place", "first_seq", "last_seq",
                                                        "events"],
                         "properties": {"place": {"type": "integer"},
                                        "first_seq": {"type": "integer"},
                                        "last_seq": {"type": "integer"},
                                        "events": {"type": "array",
                                                   "items": {"type": "object"}}}}),
            {"400": "INVALID_PARAMETER: after is no integer", "403": held, "404": nothing},
            error,
        ),
        "/places/{place_id}/games/{game_no}/record.json": _read_operation(
            "game_record_get", "a finished game's record",
            "Its record, format version 1 (2011) or 2 (uecda): docs/records.md, "
            "docs/record.schema.json, docs/record-v2.schema.json.",
            [place, game],
            (JSON_TYPE, {"type": "object", "required": ["format", "version", "rules", "game"],
                         "properties": {"format": {"type": "string"},
                                        "version": {"type": "integer"},
                                        "rules": {"type": "string"},
                                        "game": {"type": "integer"}}}),
            {"403": held, "404": nothing + ", or the game not finished"},
            error,
        ),
        "/places/{place_id}/records.jsonl": _read_operation(
            "place_records_get", "a place's records",
            "Every finished game's record the reader may read, a line each, streamed. A "
            "finished place's is served from a file made once, with an `ETag` (`304` to "
            "`If-None-Match`).",
            [place], lines, {"404": nothing, "429": too_many_downloads}, error,
        ),
        "/users/{name}.json": _read_operation(
            "profile_get", "a player's profile",
            "How a player has played: docs/protocol.md, \"Profiles\".",
            [name],
            (JSON_TYPE, {"type": "object", "required": ["name", "games", "points", "turns",
                                                        "ratings", "versions"],
                         "properties": {"name": {"type": "string"},
                                        "games": {"type": "integer"},
                                        "points": {"type": "integer"},
                                        "turns": {"type": "integer"},
                                        "ratings": {"type": "object"},
                                        "versions": {"type": "array"}}}),
            {"404": nothing + " (or a user who never played)"},
            error,
        ),
        "/tournaments/{tournament_id}.json": _read_operation(
            "tournament_get", "a tournament and its standings",
            "docs/tournaments.md.",
            [tournament],
            (JSON_TYPE, {"type": "object", "required": ["id", "title", "state", "standings"],
                         "properties": {"id": {"type": "integer"},
                                        "title": {"type": "string"},
                                        "state": {"type": "string"},
                                        "standings": {"type": "array"}}}),
            {"404": nothing},
            error,
        ),
        "/tournaments/{tournament_id}/records.jsonl": _read_operation(
            "tournament_records_get", "a tournament's records",
            "The records of every place of the tournament, a line each, streamed (held-back "
            "games left out). A finished tournament's is served from a file made once, with "
            "an `ETag` (`304` to `If-None-Match`).",
            [tournament], lines, {"404": nothing, "429": too_many_downloads}, error,
        ),
    }  # fmt: skip


# -- one operation a route --------------------------------------------------------------------

#: What each format is, in an operation's description.
_FORMAT_TEXT = {
    None: "no suffix: JSON, or for a route that also serves people a page or a redirect "
    "unless `Accept` asks for JSON or XML",
    JSON: "`.json`: JSON",
    XML: "`.xml`: Rails 3 XML",
}
_NOT_FOUND = {
    "description": "a format this route does not have",
    "content": {HTML_TYPE: {"schema": _HTML_STRING}},
}


def one_operation_a_route(result: dict, generator, request, public) -> dict:
    """drf-spectacular's postprocessing hook: one operation a route and method.

    Each route is served at several paths (no suffix, ``.json``, ``.xml``; the documents
    again under ``/operations/``): listed one by one they made 52 operations of 14 routes.
    Here the formats become the alternatives of one operation, chosen by the ``{format}``
    path parameter (its values those the route has), and the ``/operations/`` copies are
    named in the description instead of repeated. ``/api/schema/?paths=each`` keeps every
    path apart, for tools that want concrete paths (CI's fuzzer checks each of them).
    """
    from api import protocol  # the table imports the views, which this module's callers use

    result["paths"].update(read_paths())
    if request is not None and request.GET.get("paths") == "each":
        return result
    paths = result["paths"]
    merged: dict[str, dict] = {}
    for route in protocol.ROUTES:
        members = route.paths()
        prefix = "/" if "/" in route.prefixes else route.prefixes[0]
        own = [(path, fmt) for path, p, fmt in members if p == prefix and path in paths]
        aliases = sorted(path for path, p, _ in members if p != prefix)
        templated = len(own) > 1
        key = f"{prefix}{route.name}{{format}}" if templated else own[0][0]
        methods = [m.lower() for m in route.methods if m.lower() in paths[own[0][0]]]
        merged[key] = {
            method: _merged(
                route.name, method, [(fmt, paths[path][method]) for path, fmt in own], aliases,
                templated,
            )
            for method in methods
        }  # fmt: skip
    covered = {path for route in protocol.ROUTES for path, _p, _f in route.paths()}
    merged.update((path, ops) for path, ops in paths.items() if path not in covered)
    merged.update(read_paths())
    result["paths"] = dict(sorted(merged.items()))
    return result


def _merged(
    name: str,
    method: str,
    operations: list[tuple[str | None, dict]],
    aliases: list[str],
    templated: bool,
) -> dict:
    """One operation of the same route's operations, one a format (plain first)."""
    formats = [fmt for fmt, _ in operations]
    first = operations[0][1]
    out = {k: v for k, v in first.items() if k not in ("parameters", "responses")}
    out["operationId"] = (
        f"{name}_{method}" if templated else f"{name}_{formats[0] or 'plain'}_{method}"
    )
    out["summary"] = first.get("summary", name).replace(".json", "").replace(".xml", "")
    lines = [first.get("description", "")]
    if templated:
        lines.append(
            "Formats (the path's `{format}`): "
            + "; ".join(_FORMAT_TEXT[fmt] for fmt in formats)
            + "."
        )
    if aliases:
        lines.append("The same route is served at " + ", ".join(f"`{a}`" for a in aliases) + ".")
    out["description"] = "\n\n".join(line for line in lines if line)
    parameters: dict[tuple[str, str], dict] = {}
    if templated:
        parameters["path", "format"] = {
            "in": "path",
            "name": "format",
            "required": True,
            "schema": {"type": "string", "enum": [f".{f}" if f else "" for f in formats]},
            "description": "the answer's format: none, `.json` or `.xml`",
        }
    responses: dict[str, dict] = {}
    for _fmt, operation in operations:
        for parameter in operation.get("parameters", []):
            parameters.setdefault((parameter["in"], parameter["name"]), parameter)
        for status, response in operation.get("responses", {}).items():
            _merge_response(responses.setdefault(status, {}), response)
    if templated:
        responses.setdefault("404", _NOT_FOUND)
    out["parameters"] = list(parameters.values())
    out["responses"] = dict(sorted(responses.items()))
    return out


def _merge_response(into: dict, response: dict) -> None:
    """``response``'s media types and headers added to ``into``; distinct descriptions joined."""
    description = response.get("description", "")
    if not into:
        into.update({k: v for k, v in response.items() if k not in ("content", "headers")})
    elif description and description not in into["description"].split("; "):
        into["description"] = f"{into['description']}; {description}"
    for media, body in response.get("content", {}).items():
        into.setdefault("content", {}).setdefault(media, body)
    for header, spec in response.get("headers", {}).items():
        into.setdefault("headers", {}).setdefault(header, spec)
