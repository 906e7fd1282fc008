"""The server's three ports, moved by one setting: ``PORT``.

``make run``/``make serve`` (and ``manage.py demo --port``) serve the site on ``PORT``
(8000), the 2011 bots' WebSocket on ``LEGACY_WS_PORT`` and the UECda clients' port on
``UECDA_PORT``. Either of those two not given follows ``PORT``, each as far from it
as its default is from 8000: ``PORT + 81`` (8081) and ``PORT + 34485`` (42485), so
``make run PORT=28000`` serves on 28000, 28081 and 62485, and a second server
beside the first needs no other setting. Given, a setting wins (0: none); a port it
would put beyond 65535 is refused, saying what to set.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from daifugo.numbers import PORT_MAX, whole

DEFAULT_PORT = 8000
#: How far each side port's default is from the site's default port.
LEGACY_WS_OFFSET = 8081 - DEFAULT_PORT
UECDA_OFFSET = 42485 - DEFAULT_PORT


class PortError(ValueError):
    """A port setting that is no port, or a port that ``PORT`` would move beyond 65535."""


@dataclass(frozen=True)
class Ports:
    site: int
    legacy_ws: int  # 0: none
    uecda: int  # 0: none


def _given(environ: Mapping[str, str], name: str, blank: int | None = None) -> int | None:
    """A setting's port if given, else None; ``blank`` if it is empty (``UECDA_PORT=``
    is 0, none, as it always was; an empty ``LEGACY_WS_PORT`` is not given)."""
    text = environ.get(name, "").strip()
    if not text:
        return blank if name in environ else None
    port = whole(text, PORT_MAX)
    if port is None:
        raise PortError(f"{name}={text[:20]!r} is not a port (0-{PORT_MAX}; 0: none)")
    return port


def _follow(site: int, offset: int, name: str) -> int:
    port = site + offset
    if port > PORT_MAX:
        raise PortError(
            f"PORT={site} puts {name} at {port}, beyond {PORT_MAX}: set {name} (0: none)"
        )
    return port


def ports(environ: Mapping[str, str], site: int | None = None) -> Ports:
    """The three ports of ``environ`` (``os.environ``), the site's ``site`` when given
    (``demo --port``) else ``PORT``'s (8000); :class:`PortError` names a bad setting."""
    if site is None:
        site = _given(environ, "PORT") or DEFAULT_PORT
    legacy = _given(environ, "LEGACY_WS_PORT")
    uecda = _given(environ, "UECDA_PORT", blank=0)
    return Ports(
        site,
        _follow(site, LEGACY_WS_OFFSET, "LEGACY_WS_PORT") if legacy is None else legacy,
        _follow(site, UECDA_OFFSET, "UECDA_PORT") if uecda is None else uecda,
    )
