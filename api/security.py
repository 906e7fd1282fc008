"""Who is asking, and from where.

Bots authenticate with the session cookie alone (PROTOCOL.md §2): no CSRF
token, no other header. What keeps a page of another site from making a
logged-in person's browser play cards is, together:

- the session cookie's ``SameSite=Lax`` (Django's default, kept explicit in
  settings): browsers leave it off cross-site POSTs;
- :func:`check_same_origin`: an unsafe request whose ``Origin`` header (or,
  without one, ``Referer``) names another host than the request's own is
  refused with ``CROSS_SITE``. Browsers send ``Origin`` on every cross-origin
  POST; bots send neither header and pass. This also covers what SameSite
  does not: another port or another subdomain of the same site.
"""

from __future__ import annotations

from django.http import HttpRequest
from rest_framework.authentication import BaseAuthentication

from api.errors import CROSS_SITE, ApiError
from daihinmin.origins import foreign_header, netloc
from places import services

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})
#: The session key holding the place the user logged in to.
PLACE_KEY = "place_id"


def request_netloc(request: HttpRequest) -> str:
    return netloc(request.scheme or "http", request.get_host())


def check_same_origin(request: HttpRequest) -> None:
    """Refuse an unsafe request sent from a page of another site (``CROSS_SITE``, 403)."""
    if request.method in SAFE_METHODS:
        return
    header = foreign_header(
        request.META.get("HTTP_ORIGIN"), request.META.get("HTTP_REFERER"), request_netloc(request)
    )
    if header:
        raise ApiError(
            CROSS_SITE,
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


def current_player(request: HttpRequest) -> tuple[int, int]:
    """``(place_id, user_id)`` of the session's player, or ``NOT_LOGGED_IN``.

    Only the session names them: no parameter can choose another player or place.
    """
    user = getattr(request, "user", None)
    place_id = request.session.get(PLACE_KEY) if hasattr(request, "session") else None
    if user is None or not user.is_authenticated or not isinstance(place_id, int):
        raise services.ServiceError(
            services.NOT_LOGGED_IN, "log in first: POST name, password and place_id to /login", 401
        )
    services.seat_of(place_id, user.id)  # NOT_LOGGED_IN unless a player of that place
    return place_id, user.id
