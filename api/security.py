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

from urllib.parse import urlsplit

from django.conf import settings
from django.http import HttpRequest
from rest_framework.authentication import BaseAuthentication

from api.errors import CROSS_SITE, ApiError
from places import services

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})
_DEFAULT_PORTS = {"http": "80", "https": "443"}
#: The session key holding the place the user logged in to.
PLACE_KEY = "place_id"


def netloc(scheme: str, host: str) -> str:
    """``host[:port]`` lower-cased, the scheme's default port dropped."""
    host = host.lower()
    port = _DEFAULT_PORTS.get(scheme.lower())
    if port and host.endswith(":" + port):
        host = host[: -len(port) - 1]
    return host


def request_netloc(request: HttpRequest) -> str:
    return netloc(request.scheme or "http", request.get_host())


def names_another_host(url: str, own: str) -> bool:
    """True when ``url`` is an http(s) address of another host than ``own`` (see :func:`netloc`).

    The opaque origin ``null`` counts as another host; text that is no http(s)
    address (the 2011 WebSocket sample sent ``Origin: TODO``) names no host.
    Usable for a WebSocket handshake's Origin too.
    """
    if url.strip().lower() == "null":  # sandboxed frames, data: and file: pages
        return True
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return False  # not an address a browser would send
    if parts.scheme.lower() not in _DEFAULT_PORTS or not parts.netloc:
        return False  # not an http(s) origin (no browser sends those): nothing to compare
    trusted = {o.rstrip("/").lower() for o in getattr(settings, "CSRF_TRUSTED_ORIGINS", [])}
    if f"{parts.scheme}://{parts.netloc}".lower() in trusted:  # exact origins only, no wildcards
        return False
    return netloc(parts.scheme, parts.netloc) != own


def check_same_origin(request: HttpRequest) -> None:
    """Refuse an unsafe request sent from a page of another site (``CROSS_SITE``, 403)."""
    if request.method in SAFE_METHODS:
        return
    origin = request.META.get("HTTP_ORIGIN")
    header, value = ("Origin", origin) if origin else ("Referer", request.META.get("HTTP_REFERER"))
    if value and names_another_host(value, request_netloc(request)):
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
