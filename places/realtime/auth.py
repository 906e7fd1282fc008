"""A socket's handshake, checked as Django checks a request, before any consumer sees it.

The handshake is an HTTP request: Django's own ``HttpRequest.get_host()`` checks its
``Host`` against ``ALLOWED_HOSTS`` (a socket to another host is refused, 403, as
Django answers 400 to such a request), and ``places.origins`` says whether a page
of another site opened it (that socket may listen, never act). An address may hold
at most ``WS_MAX_SOCKETS_PER_ADDRESS`` sockets of this process at once, counted with
its 2011 sockets of the legacy port (``places/realtime/legacy.py``): :func:`claim`.

The scope then carries ``session_key`` (the session cookie), ``bearer`` (the token of an
``Authorization: Bearer`` header, or None) and ``cross_site`` (the header naming another
site, or None). The user is not read here: each action reads the session or checks the
token afresh (``places.sessions``, ``api.security.check_token``), as each HTTP request does.
"""

from __future__ import annotations

import io
import logging
from collections import Counter

from django.conf import settings
from django.core.exceptions import DisallowedHost
from django.core.handlers.asgi import ASGIRequest

from places.origins import foreign_header
from places.sessions import bearer_token

logger = logging.getLogger(__name__)
security_logger = logging.getLogger("django.security.DisallowedHost")

#: Open sockets of this process per client address.
_open: Counter[str] = Counter()
#: Of those, the sockets of the 2011 port.
_legacy = 0


class SocketHandshake:
    """ASGI middleware in front of the socket consumers (see the module doc)."""

    def __init__(self, inner):
        self.inner = inner

    async def __call__(self, scope, receive, send):
        request = ASGIRequest({**scope, "method": "GET"}, io.BytesIO())
        try:
            cross_site = foreign_header(request)
        except DisallowedHost as e:
            security_logger.warning("WebSocket refused: %s", e)
            return await _refuse(receive, send)
        address = (scope.get("client") or ("", 0))[0] or ""
        if not claim(address):
            return await _refuse(receive, send)
        scope = dict(
            scope,
            session_key=request.COOKIES.get(settings.SESSION_COOKIE_NAME),
            bearer=bearer_token(request),
            cross_site=cross_site,
        )
        try:
            return await self.inner(scope, receive, send)
        finally:
            release(address)


def claim(address: str, legacy: bool = False) -> bool:
    """Count one more socket of ``address`` (of the 2011 port: ``legacy``), or False (logged)
    when it holds its limit."""
    global _legacy
    if _open[address] >= settings.WS_MAX_SOCKETS_PER_ADDRESS:
        logger.warning("WebSocket refused: %s already holds %s sockets", address, _open[address])
        return False
    _open[address] += 1
    _legacy += legacy
    return True


def release(address: str, legacy: bool = False) -> None:
    """A socket :func:`claim` counted has closed."""
    global _legacy
    _open[address] -= 1
    _legacy -= legacy
    if not _open[address]:
        del _open[address]


def open_sockets() -> int:
    """WebSockets open on this process, 2011 sockets included (``/metrics``)."""
    return sum(_open.values())


def legacy_sockets() -> int:
    """Of those, the 2011 port's (``places/realtime/legacy.py``; ``/metrics``)."""
    return _legacy


async def _refuse(receive, send) -> None:
    """Turn the handshake down (the server answers it 403)."""
    message = await receive()
    if message["type"] == "websocket.connect":
        await send({"type": "websocket.close"})
