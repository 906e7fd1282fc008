"""Who is asking, and from where.

Bots authenticate with the session cookie alone (PROTOCOL.md §2): no CSRF
token, no other header. What keeps a page of another site from making a
logged-in person's browser play cards is, together:

- the session cookie's ``SameSite=Lax`` (Django's default, kept explicit in
  settings): browsers leave it off cross-site POSTs;
- :func:`refuse_cross_site`: an unsafe request whose ``Origin`` header (or,
  without one, ``Referer``) names another host than the request's own is
  refused with ``CROSS_SITE`` (``places.origins``). Browsers send ``Origin`` on
  every cross-origin POST; bots send neither header and pass. This also covers
  what SameSite does not: another port or another subdomain of the same site.
"""

from __future__ import annotations

import re
from enum import Enum

from django.http import HttpRequest
from rest_framework.authentication import BaseAuthentication

from api import params, throttle
from places import errors, sessions
from places.models import ApiToken
from places.origins import foreign_header, sent_by_another_site
from places.reads.seats import seat_player
from places.services import tokens


class Access(Enum):
    """Who may call a route of the player API (``api/protocol.py``)."""

    ANYONE = "anyone"
    #: A session logged in as a player of a place (``places.sessions``), or a bearer token
    #: of a player of the place the request's ``place_id`` names (:func:`token_player`).
    PLAYER = "player"
    #: A user, of a bearer token (:func:`token_of`), of the session, or (practice) of the
    #: name and password the request gives: the view decides which it needs.
    USER = "user"


def refuse_cross_site(request: HttpRequest, *, even_if_safe: bool = False) -> None:
    """Refuse an unsafe request sent from a page of another site (``CROSS_SITE``, 403).

    ``even_if_safe``: a safe method too (``GET /logout`` ends a session).
    """
    header = foreign_header(request) if even_if_safe else sent_by_another_site(request)
    if header:
        raise errors.Refused(
            errors.CROSS_SITE,
            f"refused: the {header} header names another site; "
            "bots send the session cookie alone, without Origin or Referer",
        )


class SessionCookieAuthentication(BaseAuthentication):
    """The user of Django's session cookie, without DRF's CSRF check (see the module doc)."""

    def authenticate(self, request):
        user = getattr(request._request, "user", None)
        if user is None or not user.is_authenticated:
            return None
        return (user, None)


class BearerTokenAuthentication(BaseAuthentication):
    """The user of an ``Authorization: Bearer`` token, once the view checked it (``api/views.py``,
    ``ApiView.initial``, which counts a wrong one as a failed login): ``request.api_token``."""

    def authenticate(self, request):
        token = getattr(request._request, "api_token", None)
        return None if token is None else (token.user, token)

    def authenticate_header(self, request) -> str:
        return "Bearer"


def current_player(request: HttpRequest) -> tuple[int, int]:
    """``(place_id, user_id)`` of the session's player, or ``NOT_LOGGED_IN``.

    Only the session names them: no parameter can choose another player or place.
    """
    return sessions.player_of(request.session, request.user)


_PLACE_ID = re.compile(r"\s*([0-9]{1,18})\s*", re.ASCII)


def check_token(token: str, address: str) -> ApiToken:
    """The token's row, or ``INVALID_TOKEN``. A wrong token counts as a failed login of
    its address (``api/throttle.py``, under the name ``token:PREFIX``), and past the
    limits is answered ``TOO_MANY_ATTEMPTS`` (with ``Retry-After``) as a password is."""
    row = tokens.verify(token)
    if row is not None:
        return row
    held = throttle.count_failure(address, f"token:{tokens.prefix_of(token)}")
    if held is not None:
        raise errors.Refused(
            errors.TOO_MANY_ATTEMPTS, held.message, headers={"Retry-After": str(held.seconds)}
        )
    raise errors.Refused(errors.INVALID_TOKEN)


def token_of(request: HttpRequest) -> ApiToken | None:
    """The request's ``Authorization: Bearer`` token, checked (:func:`check_token`: a wrong
    one is refused and counted), its user made the request's (``request.user``, and the
    token ``request.api_token``); None without the header, so that the session decides.

    The one way every route a bot or a script calls takes a token: the player API's
    (``api/views.py``), practice, a game's analysis, the staff endpoints
    (``places/views/staff.py``)."""
    sent = sessions.bearer_token(request)
    if sent is None:
        return None
    token = check_token(sent, throttle.address_of(request))
    request.user = token.user  # the token's user, not the session's
    request.api_token = token
    return token


def token_player(request: HttpRequest, user_id: int) -> tuple[int, int]:
    """``(place_id, user_id)`` of a token's user in the place the request's ``place_id``
    names (a token names no place: the request does); ``NOT_LOGGED_IN`` unless a player."""
    text = params.field(request, "place_id")
    match = _PLACE_ID.fullmatch(text)
    if match is None:
        raise errors.Refused(
            errors.INVALID_PARAMETER,
            "place_id: the place to play in, a number (a bearer token names no place)",
        )
    return seat_player(int(match[1]), user_id)
