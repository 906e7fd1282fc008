"""What bots ask every turn, answered by Django itself on the thread that keeps its connection.

Under ASGI, Django runs each request in a new thread (``ThreadSensitiveContext``),
on a database connection opened for the request and closed after it: on SQLite
the close checkpoints the WAL. For a bot's ``post_cards`` or ``get_hand`` that
costs more than the move itself. The routes the protocol table marks ``hot``
(``api/protocol.py``) are therefore handed to the same Django, with the same
middlewares, URL resolver, views and error rendering, run on the database
threads of the sockets (``places.realtime.db_thread``), whose connections are kept.
Nothing is written twice here: every check Django makes (``ALLOWED_HOSTS`` first,
then the middlewares', the session and its auth hash, the same-site check, the
body's reading) is made by Django's own code.

What differs from Django's ASGI handler, and why:

- ``request_started`` and ``request_finished`` are not sent on the database
  thread: their receivers close the thread's connection, whose keeping is the
  point. The response is closed on the event loop, where no connection lives.
- A client that goes away mid-request does not cancel it: a move that reached
  the server is played (as it is on the socket).

``FAST_PATH = False`` (setting) sends every request through Django's ASGI handler.
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import RequestAborted
from django.core.handlers.asgi import ASGIHandler, get_script_prefix
from django.core.handlers.base import BaseHandler
from django.http import HttpRequest, HttpResponse
from django.urls import set_script_prefix

from api import protocol
from places.realtime import db_thread


class _SyncHandler(BaseHandler):
    """Django's request cycle in synchronous mode: its middlewares, resolver and views."""

    def __init__(self) -> None:
        super().__init__()
        self.load_middleware(is_async=False)


def wrap(django_app: ASGIHandler):
    """The ASGI app: the hot routes on the database thread, everything else to ``django_app``."""
    if not settings.FAST_PATH:
        return django_app
    handler = _SyncHandler()
    hot = protocol.hot_paths()

    async def app(scope, receive, send):
        if scope["type"] == "http" and (scope["method"], scope["path"]) in hot:
            return await _serve(django_app, handler, scope, receive, send)
        return await django_app(scope, receive, send)

    return app


async def _serve(django_app: ASGIHandler, handler: _SyncHandler, scope, receive, send) -> None:
    """Django's ``ASGIHandler.handle``, with the response made on the database thread."""
    try:
        body = await django_app.read_body(receive)
    except RequestAborted:
        return
    try:
        request, refusal = django_app.create_request(scope, body)
        if request is None:
            response = refusal
        else:
            response = await db_thread.run(_respond, handler, request, get_script_prefix(scope))
        try:
            await django_app.send_response(response, send)
        finally:
            response.close()  # on the loop: request_finished finds no connection here to close
    finally:
        body.close()


def _respond(handler: _SyncHandler, request: HttpRequest, script_prefix: str) -> HttpResponse:
    """On the database thread: Django's response to the request."""
    set_script_prefix(script_prefix)
    return handler.get_response(request)
