"""Daphne, as this project runs it: ``python -m daihinmin.serve`` takes daphne's own arguments.

    python -m daihinmin.serve -b 127.0.0.1 -p 8000 daihinmin.asgi:application

What differs from plain ``daphne``:

- **uvloop.** Daphne runs Twisted's asyncio reactor on an event loop it makes
  when ``daphne.server`` is imported, so the loop's kind has to be chosen
  before that: here. On this project's turn path it took a tenth off the
  server's CPU time a turn (``bench/place.py``). ``UVLOOP=0`` keeps asyncio's.
- **Bodies.** Twisted holds a request's whole body, parses form bodies itself
  (answering a bare 400, before the application sees it, to a multipart body it
  cannot read) and daphne then hands all of it to the application at once. Here
  a request keeps no more of its body than the application would read
  (``daihinmin/bodies.py``), and Twisted's own parsing is off: the application
  reads bodies, and answers for them.
- **Reason phrases.** Twisted's table of them lacks some codes Django answers
  (``429``, sent as "429 Unknown Status"); those come from Python's
  ``http.HTTPStatus`` ("429 Too Many Requests").
- **Non-ASCII bytes in the URL.** Twisted answers a request line holding raw bytes
  beyond ASCII (``GET /users/é``, a URL a browser would have percent-encoded) with
  a bare 400 and no body, before the application sees it (and daphne would next,
  with its own page). Here such bytes are percent-encoded as a browser does, and
  Django answers as for the encoded URL (a 404 page, a JSON refusal of a
  parameter, …).
- **The 2011 event stream.** Every place's events for the WebSocket clients of 2011
  (drafts hixie-75/-76) on a port of their own, ``LEGACY_WS_PORT`` (8081 as in
  2011; 0: none), on daphne's address (``-b``), served from daphne's loop
  (``places/realtime/legacy.py``). The port is bound before daphne starts: a port
  taken stops the launcher with a message.
- **No secret in the access log.** The 2011 routes take ``name`` and ``password`` in
  the query string (``POST /sessions?name=…&password=…``), and a query string may
  carry a token: daphne's access log writes such a value as ``[redacted]``
  (:func:`redacted`); the request itself is served as sent.
- **The UECda port.** The clients of UECda places (tndhms's TCP protocol, each
  taking its seat with its join code) on ``UECDA_PORT`` (42485 as tndhms; 0: none),
  on ``UECDA_HOST`` or daphne's address, served from daphne's loop
  (``places/uecda/shared.py``): a match runs in the process of its spectators'
  sockets. Bound before daphne starts, as the 2011 stream's.

``daphne daihinmin.asgi:application`` works too, without these.
"""

from __future__ import annotations

import asyncio
import io
import logging
import os
import re
import socket
import sys
from collections.abc import Awaitable, Callable
from http import HTTPStatus
from urllib.parse import unquote_plus

logger = logging.getLogger(__name__)

#: A byte a URL may not hold raw (RFC 3986: ASCII only), to be percent-encoded.
_NON_ASCII = re.compile(rb"[\x80-\xff]")


#: A query parameter whose value the access log never writes: a password or a token.
_SECRET_NAME = re.compile(r"pass|token|secret", re.IGNORECASE)
#: A value that is a personal API token, whatever it is called (``places/services/tokens.py``).
_TOKEN_VALUE = re.compile(r"dh(?:_|%5F)[0-9a-f]{12}", re.IGNORECASE)
REDACTED = "[redacted]"


def redacted(uri: str) -> str:
    """``uri`` as the access log writes it: the value of a query parameter named like a
    password or a token (``password``, ``password_again``, ``token``, ``access_token``,
    in any case, percent-encoded or not) or holding a token is :data:`REDACTED`."""
    path, mark, query = uri.partition("?")
    if not mark:
        return uri
    fields = []
    for field in query.split("&"):
        name, equals, value = field.partition("=")
        secret = _SECRET_NAME.search(unquote_plus(name)) or _TOKEN_VALUE.search(value)
        fields.append(f"{name}{equals}{REDACTED}" if equals and secret else field)
    return f"{path}?{'&'.join(fields)}"


def redacted_access_log() -> None:
    """Make daphne's access log (``--access-log``; stdout at the default verbosity) write
    each path through :func:`redacted`."""
    from daphne.access import AccessLogGenerator

    log = AccessLogGenerator.__call__
    if getattr(log, "redacting", False):
        return

    def redacting(self, protocol, action, details):
        if isinstance(details.get("path"), str):
            details = {**details, "path": redacted(details["path"])}
        return log(self, protocol, action, details)

    redacting.redacting = True
    AccessLogGenerator.__call__ = redacting


def percent_encoded(url: bytes) -> bytes:
    """``url`` with its non-ASCII bytes percent-encoded (``é`` in UTF-8 → ``%C3%A9``)."""
    return _NON_ASCII.sub(lambda m: b"%%%02X" % m.group()[0], url)


def reason_phrase(code: int) -> bytes | None:
    """The standard reason phrase of ``code``, or None for a code Python does not know."""
    try:
        return HTTPStatus(code).phrase.encode("ascii")
    except ValueError:
        return None


def use_uvloop() -> bool:
    """Make uvloop the event loop of what starts next, when it is there and wanted."""
    if os.environ.get("UVLOOP", "1").strip().lower() in ("0", "false", "no", "off"):
        return False
    try:
        import uvloop
    except ImportError:
        return False
    asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    return True


def lenient_request_lines() -> None:
    """Make Twisted read a request line whose target holds non-ASCII bytes, percent-encoded.

    Twisted's ``_parseRequestLine`` refuses such a line with a bare
    ``HTTP/1.1 400 Bad Request`` and no body (daphne would refuse it next, with its own
    page). The function is private to Twisted: it is wrapped only where it is found, and
    ``tests/e2e/test_http_edges.py`` notices if it is gone.
    """
    from twisted.web import http as twisted_http

    parse = getattr(twisted_http, "_parseRequestLine", None)
    if parse is None or getattr(parse, "lenient", False):
        return

    def parse_lenient(line: bytes):
        return parse(percent_encoded(line))  # method and version are ASCII or refused anyway

    parse_lenient.lenient = True
    twisted_http._parseRequestLine = parse_lenient


def bounded_requests() -> None:
    """Make daphne's HTTP requests keep no more of a body than the application reads, and
    send standard reason phrases."""
    from daphne import http_protocol
    from twisted.web import http as twisted_http

    from daihinmin import bodies

    class BoundedRequest(http_protocol.WebRequest):
        """A body beyond the limit is dropped as it arrives; its length is what the app sees."""

        def setResponseCode(self, code, message=None):
            if message is None and code not in twisted_http.RESPONSES:  # 429, 422, …
                message = reason_phrase(code)
            super().setResponseCode(code, message)

        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self._parsePOSTFormSubmission = False  # the application reads bodies
            self._received = 0
            self._dropping = False

        def gotLength(self, length):
            self._dropping = length is not None and length > bodies.limit()
            super().gotLength(0 if self._dropping else length)

        def handleContentChunk(self, data):
            if self._dropping:
                return
            self._received += len(data)
            if self._received > bodies.limit():  # a body of no stated length, grown too long
                self._dropping = True
                self.content = io.BytesIO()
                self.requestHeaders.setRawHeaders(b"content-length", [b"%d" % self._received])
                return
            super().handleContentChunk(data)

    http_protocol.WebRequest = BoundedRequest  # HTTPFactory.buildProtocol reads it at each call


def listening_socket(host: str, port: int) -> socket.socket:
    """A TCP port bound and listening on ``host`` (``OSError`` when it is taken)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host.strip("[]"), port))
        sock.listen(1024)
        sock.setblocking(False)
    except OSError:
        sock.close()
        raise
    return sock


def side_port(
    argv: list[str],
    port: int,
    what: str,
    setting: str,
    serve: Callable[[socket.socket], Awaitable[object]],
    host: str = "",
) -> socket.socket | None:
    """Bind a port of the server's own beside daphne's, and ``serve`` it once daphne's loop runs.

    None when ``port`` is 0. On ``host``, else daphne's address (``-b``). Bound here,
    before daphne starts, so that a port taken stops the launcher at once; served from
    the loop, where the app (and with it Django) is loaded.
    """
    from daphne.cli import CommandLineInterface
    from twisted.internet import reactor

    if not port:
        return None
    args, _ = CommandLineInterface().parser.parse_known_args(argv)
    host = host or args.host or "127.0.0.1"  # daphne's own default
    try:
        sock = listening_socket(host, port)
    except OSError as e:
        raise SystemExit(
            f"daihinmin.serve: {what}'s port {host}:{port} ({setting}): "
            f"{e.strerror}; set {setting} to another port, or 0 for none"
        ) from None

    held: list[object] = []  # the loop keeps only a weak reference to a task

    def start() -> None:
        task = asyncio.ensure_future(serve(sock))
        held.append(task)
        task.add_done_callback(served)

    def served(task: asyncio.Future) -> None:
        if task.cancelled() or task.exception() is not None:
            logger.error("%s failed to start", what, exc_info=task.exception())
            reactor.stop()
            return
        held.append(task.result())  # what serves it (an asyncio.Server, a listener)
        logger.info("%s on %s:%s", what, host, port)

    reactor.callLater(0, start)  # runs on the loop, once it runs
    return sock


def legacy_stream(argv: list[str]) -> socket.socket | None:
    """The 2011 event stream (``LEGACY_WS_PORT``, ``places/realtime/legacy.py``)."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "daihinmin.settings")
    from django.conf import settings

    def serve(sock: socket.socket) -> Awaitable[object]:
        from places.realtime import legacy

        return legacy.serve(sock)

    return side_port(
        argv, settings.LEGACY_WS_PORT, "the 2011 event stream", "LEGACY_WS_PORT", serve
    )


def uecda_port(argv: list[str]) -> socket.socket | None:
    """The UECda clients' port (``UECDA_PORT``, ``places/uecda/shared.py``), on ``UECDA_HOST``
    or daphne's address."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "daihinmin.settings")
    from django.conf import settings

    def serve(sock: socket.socket) -> Awaitable[object]:
        from places.uecda import shared

        return shared.serve(sock)

    return side_port(
        argv, settings.UECDA_PORT, "the UECda port", "UECDA_PORT", serve, settings.UECDA_HOST
    )


def prepare() -> None:
    """What differs from plain daphne, set before daphne makes its loop (at the first import
    of ``daphne.server``): uvloop, bounded bodies, lenient request lines, an access log
    without secrets."""
    use_uvloop()
    bounded_requests()
    lenient_request_lines()
    redacted_access_log()


def daphne_loop() -> asyncio.AbstractEventLoop:
    """A new event loop (:func:`prepare`'s kind) for daphne's reactor, installed on it: a
    process that runs its own loop and serves pages from it (:func:`serve_from_loop`)
    runs this one.

    In a process where Django is set up, its ``daphne`` app has imported ``daphne.server``,
    which installed the reactor on a loop of asyncio's kind, before any policy: the
    reactor (not started) and that module are made again, as ``daphne.testing`` does."""
    from twisted.internet import asyncioreactor

    prepare()
    sys.modules.pop("twisted.internet.reactor", None)
    sys.modules.pop("daphne.server", None)  # it holds the reactor: imported again when used
    loop = asyncio.new_event_loop()
    asyncioreactor.install(loop)
    return loop


def serve_from_loop(application, sock: socket.socket):
    """daphne serving ``application`` on a bound ``sock``, from :func:`daphne_loop` that the
    caller runs (``asyncio.Runner``, ``places/realtime/between.py``), as :func:`main` serves
    from the loop daphne runs: ``uecda_match --watch``. Its ``Server`` sets everything up
    and then runs the reactor, which runs the loop; here the reactor is only started
    (signals are the caller's). The socket is daphne's from then on (detached)."""
    from daphne.server import Server
    from twisted.internet import reactor

    server = Server(
        application,
        # Twisted closes it; an IPv6 one too (its port takes the family of the address)
        endpoints=[f"fd:fileno={sock.detach()}"],
        signal_handlers=False,
    )
    reactor.run = lambda installSignalHandlers=False: reactor.startRunning(False)
    try:
        server.run()
    finally:
        del reactor.run  # the class's again
    if server.abort_start:
        raise OSError("daphne could not serve the socket it was given")
    return server


def main() -> None:
    prepare()
    from daphne.cli import CommandLineInterface  # makes the loop: after the policy

    legacy_stream(sys.argv[1:])
    uecda_port(sys.argv[1:])
    CommandLineInterface.entrypoint()


if __name__ == "__main__":
    main()
