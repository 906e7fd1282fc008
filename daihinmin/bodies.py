"""Request bodies beyond Django's own limit are never read: refused by their length first.

``DATA_UPLOAD_MAX_MEMORY_SIZE`` (2.5 MB by default; the project takes no file
uploads) is the most Django would read of a body. Django checks it only when a
view reads the body, after the ASGI handler has received the whole of it. Here,
in front of every HTTP request:

- a ``Content-Length`` beyond the limit: the body is not received at all, and
  Django gets the request with that length and an empty body, so that the view
  refuses it as it refuses any body too large (``413 REQUEST_TOO_LARGE`` from the
  player API, in its format) without a byte of it held;
- a body of no stated length (chunked) that grows beyond the limit: reading
  stops there, and Django gets the request with the length received so far, which
  it refuses alike.

Daphne buffers a request's body before it calls the application; ``daihinmin.serve``
also stops it from buffering what this would refuse.
"""

from __future__ import annotations

from django.conf import settings

from daifugo.numbers import whole

#: A ``Content-Length`` beyond this is unreadable (and beyond any limit): the body is
#: then read up to the limit, as one of no stated length.
MAX_STATED = 2**63 - 1


def limit() -> int:
    return int(settings.DATA_UPLOAD_MAX_MEMORY_SIZE)


def stated_length(headers) -> int | None:
    """The ``Content-Length`` of ASGI headers: None when absent or unreadable."""
    for name, value in headers:
        if name.lower() == b"content-length":
            return whole(value.strip().decode("latin-1"), MAX_STATED)
    return None


class BodyLimit:
    """ASGI middleware for HTTP: see the module doc."""

    def __init__(self, inner):
        self.inner = inner

    async def __call__(self, scope, receive, send):
        length = stated_length(scope["headers"])
        bound = limit()
        if length is not None and length > bound:
            return await self.inner(scope, _no_body(receive), send)
        return await self.inner(scope, _bounded(scope, receive, bound), send)


def _no_body(receive):
    """A ``receive`` whose body is empty; what follows (a disconnect) comes from the server."""
    given = False

    async def receive_nothing():
        nonlocal given
        if not given:
            given = True
            return {"type": "http.request", "body": b"", "more_body": False}
        return await receive()

    return receive_nothing


def _bounded(scope, receive, bound: int):
    """A ``receive`` that stops at ``bound`` bytes and then states the length received."""
    received = 0
    cut = False

    async def receive_bounded():
        nonlocal received, cut
        if cut:
            return await receive()
        message = await receive()
        if message["type"] != "http.request":
            return message
        received += len(message.get("body", b""))
        if received <= bound:
            return message
        cut = True
        headers = [(n, v) for n, v in scope["headers"] if n.lower() != b"content-length"]
        scope["headers"] = [*headers, (b"content-length", str(received).encode())]
        return {"type": "http.request", "body": b"", "more_body": False}

    return receive_bounded
