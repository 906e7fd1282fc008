"""Every stable error code the server answers with, defined once: its HTTP status, its
default message, and the forms it is written in (JSON, Rails XML, a socket's reply).

A request that is not a move, or that may not be made, changes nothing and raises
:class:`Refused` with one of these codes, wherever it is found out (a service, a
view, the socket, a body that cannot be read). Each transport only picks the form:
the player API writes :func:`json_body` or :func:`xml_body` (or a page), the socket
:func:`socket_reply`, the staff endpoints and pages JSON, the commands the message.
``docs/protocol.md`` lists them all, with the transports that answer each.

Misses are not errors: an illegal action is a move, answered 200 with a reason
(``daifugo.plays.Miss``).
"""

from __future__ import annotations

from collections.abc import Mapping

from places.wire.codec import compact
from places.wire.rails_xml import to_rails_xml


class Code(str):
    """A stable code (the string itself), with its HTTP status and default message."""

    status: int
    message: str

    def __new__(cls, name: str, status: int, message: str) -> Code:
        code = super().__new__(cls, name)
        code.status = status
        code.message = message
        return code


#: Every code, by name.
REGISTRY: dict[str, Code] = {}


def _define(name: str, status: int, message: str) -> Code:
    code = REGISTRY[name] = Code(name, status, message)
    return code


# -- who is asking ----------------------------------------------------------------------
NOT_LOGGED_IN = _define(
    "NOT_LOGGED_IN", 401, "log in first: POST name, password and place_id to /login"
)
LOGIN_FAILED = _define("LOGIN_FAILED", 401, "wrong name, password or place")
TOO_MANY_ATTEMPTS = _define("TOO_MANY_ATTEMPTS", 429, "too many failed logins: try again later")
RATE_LIMITED = _define("RATE_LIMITED", 429, "too many requests from this session: try again later")
CROSS_SITE = _define(
    "CROSS_SITE",
    403,
    "refused: the Origin or Referer header names another site; "
    "bots send the session cookie alone, without Origin or Referer",
)
STAFF_ONLY = _define("STAFF_ONLY", 403, "only staff may do this")
INVALID_TOKEN = _define(
    "INVALID_TOKEN", 401, "the bearer token is unknown or revoked: make one on /account"
)

# -- accounts ------------------------------------------------------------------------------
INVALID_NAME = _define("INVALID_NAME", 400, "no user may take this name")
NAME_TAKEN = _define("NAME_TAKEN", 409, "a user already has this name")
NAME_CONFUSABLE = _define("NAME_CONFUSABLE", 409, "the name looks like a user's name")
INVALID_PASSWORD = _define("INVALID_PASSWORD", 400, "the password is too weak")
SIGN_UP_CLOSED = _define("SIGN_UP_CLOSED", 403, "this server takes no sign-ups")
TOO_MANY_TOKENS = _define(
    "TOO_MANY_TOKENS", 409, "too many API tokens: revoke one before making another"
)
NO_SUCH_TOKEN = _define("NO_SUCH_TOKEN", 404, "no API token of this user has that id")
TOO_MANY_NEW_TOKENS = _define(
    "TOO_MANY_NEW_TOKENS", 429, "too many API tokens made lately: try again later"
)

# -- the game -----------------------------------------------------------------------------
INVALID_CARD = _define("INVALID_CARD", 400, "a card string in no known form")
NO_TURN_OPEN = _define("NO_TURN_OPEN", 409, "no turn is open")
NOT_YOUR_TURN = _define("NOT_YOUR_TURN", 409, "it is not this player's turn")

# -- places (staff, commands, pages) -----------------------------------------------------
NOT_FOUND = _define("NOT_FOUND", 404, "no such place")
INVALID_PLACE = _define("INVALID_PLACE", 400, "the place cannot be made so")
ALREADY_STARTED = _define("ALREADY_STARTED", 409, "the place has already been started")
TURN_OPEN = _define("TURN_OPEN", 409, "a turn is open: waiting for the player")
ALREADY_OVER = _define("ALREADY_OVER", 409, "the place is already over")
INVALID_TOURNAMENT = _define("INVALID_TOURNAMENT", 400, "the tournament cannot be made so")
HELD_BACK = _define(
    "HELD_BACK",
    403,
    "held back until every place dealing the same cards has played them (docs/records.md)",
)

# -- importing a tndhms log ----------------------------------------------------------------
INVALID_LOG = _define("INVALID_LOG", 400, "the log cannot be read")
LOG_DISAGREES = _define("LOG_DISAGREES", 422, "the log's games are not as the engine plays them")
ALREADY_IMPORTED = _define("ALREADY_IMPORTED", 409, "this log was imported already")

# -- practice against the house bots -----------------------------------------------------
UNKNOWN_STRATEGY = _define("UNKNOWN_STRATEGY", 400, "no house strategy of that name")
TOO_MANY_PRACTICES = _define(
    "TOO_MANY_PRACTICES", 409, "too many unfinished practice places: finish one first"
)
TOO_MANY_PRACTICE_GAMES = _define(
    "TOO_MANY_PRACTICE_GAMES", 429, "too many practice games asked for lately: try again later"
)
TOO_MANY_ADDRESS_PRACTICES = _define(
    "TOO_MANY_ADDRESS_PRACTICES",
    409,
    "too many unfinished practice places from this address: finish one first",
)
TOO_MANY_ADDRESS_PRACTICE_GAMES = _define(
    "TOO_MANY_ADDRESS_PRACTICE_GAMES",
    429,
    "too many practice games asked for lately from this address: try again later",
)

# -- game analysis (docs/analysis.md) ------------------------------------------------------
NOT_ANALYSED = _define(
    "NOT_ANALYSED", 404, "this game has not been analysed: ask for it on its replay page"
)
ANALYSIS_UNDER_WAY = _define(
    "ANALYSIS_UNDER_WAY", 409, "an analysis asked for by this user is still under way: wait for it"
)
TOO_MANY_ANALYSES = _define(
    "TOO_MANY_ANALYSES", 429, "too many analyses asked for lately: try again later"
)
ADDRESS_ANALYSES_UNDER_WAY = _define(
    "ADDRESS_ANALYSES_UNDER_WAY",
    409,
    "too many analyses asked for from this address are still under way: wait for one",
)
TOO_MANY_ADDRESS_ANALYSES = _define(
    "TOO_MANY_ADDRESS_ANALYSES",
    429,
    "too many analyses asked for lately from this address: try again later",
)
TOO_MANY_DOWNLOADS = _define(
    "TOO_MANY_DOWNLOADS", 429, "too many downloads at once from this address: try again later"
)

# -- the request itself -------------------------------------------------------------------
BAD_REQUEST = _define("BAD_REQUEST", 400, "the request cannot be read")
INVALID_PARAMETER = _define("INVALID_PARAMETER", 400, "a parameter has no valid value")
METHOD_NOT_ALLOWED = _define("METHOD_NOT_ALLOWED", 405, "this path does not serve that method")
REQUEST_TOO_LARGE = _define("REQUEST_TOO_LARGE", 413, "the request body is too large")
SERVER_ERROR = _define("SERVER_ERROR", 500, "the server failed to answer this request")
UNSUPPORTED_MEDIA_TYPE = _define(
    "UNSUPPORTED_MEDIA_TYPE",
    415,
    "send parameters as a form (application/x-www-form-urlencoded) or in the query string",
)


class Refused(Exception):
    """A request refused with a stable code: it changed nothing.

    ``headers`` go on an HTTP answer (``Retry-After``, ``Allow``).
    """

    def __init__(
        self, code: Code, message: str | None = None, *, headers: Mapping[str, str] | None = None
    ):
        self.code = code
        self.message = message or code.message
        self.headers = dict(headers or {})
        super().__init__(self.message)

    @property
    def status(self) -> int:
        return self.code.status


def document(refused: Refused) -> dict:
    """``{"error":{"code":…,"message":…}}``: the error as data."""
    return {"error": {"code": str(refused.code), "message": refused.message}}


def json_body(refused: Refused) -> bytes:
    return compact(document(refused)).encode("utf-8")


def xml_body(refused: Refused) -> bytes:
    """``<error><code>…</code><message>…</message></error>``, as a Rails model wrapped in its name."""
    return to_rails_xml(document(refused)["error"], root="error").encode("utf-8")


def socket_reply(reply: str, refused: Refused) -> dict:
    """The answer to a socket's action: ``{"reply":…,"error":{…}}``."""
    return {"reply": reply, **document(refused)}
