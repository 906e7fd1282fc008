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
token afresh (``places.sessions``, :func:`check_token`), as each HTTP request does.

The bearer check is the player API's (``api.security.check_token``: a wrong token counts as a
failed login of its address), installed here at start-up by ``api/apps.py``
(:func:`check_tokens_with`); the sockets sit below the API and import nothing of it. This
module in turn installs its count of sockets in ``places.metrics``, which imports nothing
of the layer it measures (docs/architecture.md, "Layers").
"""

from __future__ import annotations

import io
import logging
from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING

from django.conf import settings
from django.core.exceptions import DisallowedHost
from django.core.handlers.asgi import ASGIRequest

from places import metrics
from places.origins import foreign_header
from places.sessions import bearer_token

if TYPE_CHECKING:
    from places.models import ApiToken

logger = logging.getLogger(__name__)
security_logger = logging.getLogger("django.security.DisallowedHost")

#: Open sockets of this process per client address.
_open: Counter[str] = Counter()
#: Of those, the sockets of the 2011 port.
_legacy = 0
#: The bearer check (:func:`check_tokens_with`), None until the API installs it.
_check_token: Callable[[str, str], ApiToken] | None = None


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


def check_tokens_with(check: Callable[[str, str], ApiToken]) -> None:
    """Check a socket's bearer token with ``check`` (token, client address): the API's."""
    global _check_token
    _check_token = check


def check_token(token: str, address: str) -> ApiToken:
    """The token's row, or the refusal the player API gives it (``INVALID_TOKEN``,
    ``TOO_MANY_ATTEMPTS``), through the check the API installed."""
    if _check_token is None:
        raise RuntimeError("no bearer check: api/apps.py installs it when Django starts")
    return _check_token(token, address)


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


metrics.count_sockets_with(lambda: (open_sockets(), legacy_sockets()))
