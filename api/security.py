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

from enum import Enum

from django.http import HttpRequest
from rest_framework.authentication import BaseAuthentication

from places import errors, sessions
from places.origins import foreign_header, sent_by_another_site


class Access(Enum):
    """Who may call a route of the player API (``api/protocol.py``)."""

    ANYONE = "anyone"
    #: A session logged in as a player of a place (``places.sessions``).
    PLAYER = "player"


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


def current_player(request: HttpRequest) -> tuple[int, int]:
    """``(place_id, user_id)`` of the session's player, or ``NOT_LOGGED_IN``.

    Only the session names them: no parameter can choose another player or place.
    """
    return sessions.player_of(request.session, request.user)
