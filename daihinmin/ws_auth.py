"""Who a WebSocket belongs to: read once, from its session cookie, when it opens.

Channels' ``AuthMiddlewareStack`` reads the same, and also wraps every frame
the socket sends in order to save a session changed meanwhile (touching a lazy
session object per frame: a few per cent of a turn's server time, with a
place's events going to every socket). Sockets here never change a session,
so nothing needs wrapping; the user is resolved as Channels resolves it
(``channels.auth.get_user``: the backend, and the session's auth hash).
"""

from __future__ import annotations

from importlib import import_module

from channels.auth import get_user
from django.conf import settings
from django.http.cookie import parse_cookie


class SessionUserMiddleware:
    """Puts ``cookies``, ``session`` and ``user`` in the scope, then calls ``inner``."""

    def __init__(self, inner):
        self.inner = inner
        self.store = import_module(settings.SESSION_ENGINE).SessionStore

    async def __call__(self, scope, receive, send):
        cookies: dict[str, str] = {}
        for name, value in scope.get("headers", ()):
            if name == b"cookie":
                cookies = parse_cookie(value.decode("latin-1"))
                break
        scope = dict(scope, cookies=cookies)
        scope["session"] = self.store(cookies.get(settings.SESSION_COOKIE_NAME))
        scope["user"] = await get_user(scope)
        return await self.inner(scope, receive, send)
