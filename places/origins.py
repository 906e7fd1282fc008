"""Is a request from a page of another site? One answer for HTTP and WebSockets.

Bots send the session cookie alone, with no Origin or Referer header; browsers
send Origin on every cross-origin POST and on every WebSocket handshake. So a
request whose Origin (or, without one, Referer) names another host than the
one it was sent to came from another site's page, and must not act for the
person whose cookie it carries. The host it was sent to is Django's
``request.get_host()``, checked against ``ALLOWED_HOSTS`` first.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from django.conf import settings
from django.http import HttpRequest

#: Methods that change nothing: a page of another site may send them.
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})
_DEFAULT_PORTS = {"http": "80", "https": "443", "ws": "80", "wss": "443"}


def netloc(scheme: str, host: str) -> str:
    """``host[:port]`` lower-cased, credentials and the scheme's default port dropped."""
    host = host.lower().rsplit("@", 1)[-1]
    port = _DEFAULT_PORTS.get(scheme.lower())
    if port and host.endswith(":" + port):
        host = host[: -len(port) - 1]
    return host


def names_another_host(url: str, own: str) -> bool:
    """True when ``url`` is an http(s) address of another host than ``own`` (a :func:`netloc`).

    The opaque origin ``null`` counts as another host; text that is no http(s)
    address (the 2011 WebSocket sample sent ``Origin: TODO``) names no host.
    Origins listed in ``CSRF_TRUSTED_ORIGINS`` (exactly) are trusted.
    """
    if url.strip().lower() == "null":  # sandboxed frames, data: and file: pages
        return True
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return False  # not an address a browser would send
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        return False  # not an http(s) origin (no browser sends those): nothing to compare
    trusted = {o.rstrip("/").lower() for o in getattr(settings, "CSRF_TRUSTED_ORIGINS", [])}
    if f"{parts.scheme}://{parts.netloc}".lower() in trusted:
        return False
    return netloc(parts.scheme, parts.netloc) != own


def foreign_header(request: HttpRequest) -> str | None:
    """The header ("Origin" or "Referer") that names another site than the request's host.

    ``request.get_host()`` raises ``DisallowedHost`` for a host not allowed: no
    request from an unknown host is compared, let alone answered.
    """
    own = netloc(request.scheme or "http", request.get_host())
    origin, referer = request.META.get("HTTP_ORIGIN"), request.META.get("HTTP_REFERER")
    header, value = ("Origin", origin) if origin else ("Referer", referer)
    if value and names_another_host(value, own):
        return header
    return None


def sent_by_another_site(request: HttpRequest) -> str | None:
    """:func:`foreign_header` of an unsafe request (None for a safe method)."""
    return None if request.method in SAFE_METHODS else foreign_header(request)
