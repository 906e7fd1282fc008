"""A streamed answer goes out at the client's pace: its next part is made only once the
part before has left the server.

daphne's ``send`` hands each part of an answer to Twisted's connection and returns at
once, whether the client reads or not: an answer streamed to a client that never
reads (``records.jsonl``, megabytes) piled up whole in the server's memory, and
stayed there. Twisted's own flow control says when a connection's buffer is full
(over ``bufferSize``, 64 KiB) and when it has drained: a *push producer* registered on
the request is paused and resumed so. Here every part but the last of a streamed
answer is sent, then waited on while the producer is paused: the server holds at
most about two parts an answer (Django's parts are 64 KiB), and the kernel's
socket buffer. A client that goes while its answer waits ends the wait (Twisted
stops the producer; Django cancels the answer).

Under another server (uvicorn, a test's client) answers go as that server sends them.
"""

from __future__ import annotations

import asyncio
import functools

from zope.interface import implementer


def _daphne_request(send):
    """daphne's request (a ``twisted.web.http.Request``) behind an ASGI ``send``, or None.

    daphne's ``send`` is ``partial(server.handle_reply, request)``."""
    request = send.args[0] if isinstance(send, functools.partial) and send.args else None
    if request is None or not all(
        hasattr(request, a) for a in ("registerProducer", "unregisterProducer", "channel")
    ):
        return None
    return request


def _push_producer():
    from twisted.internet.interfaces import IPushProducer

    @implementer(IPushProducer)
    class Drained:
        """Twisted's flow control as an ``asyncio.Event``: set while the connection takes more."""

        def __init__(self, paused: bool):
            self.writable = asyncio.Event()
            if not paused:
                self.writable.set()

        def pauseProducing(self) -> None:
            self.writable.clear()

        def resumeProducing(self) -> None:
            self.writable.set()

        def stopProducing(self) -> None:  # the connection is lost: nothing more will leave
            self.writable.set()

    return Drained


class Paced:
    """ASGI middleware (HTTP): each streamed part waits for the one before to leave."""

    def __init__(self, inner):
        self.inner = inner

    async def __call__(self, scope, receive, send):
        request = _daphne_request(send)
        if request is None:
            return await self.inner(scope, receive, send)
        producer = None

        def registered() -> bool:
            return producer is not None and request.producer is producer and bool(request.channel)

        async def paced(message: dict) -> None:
            nonlocal producer
            more = message["type"] == "http.response.body" and message.get("more_body", False)
            if more and producer is None and request.producer is None and request.channel:
                # paused already if the connection's buffer is full (of an answer before)
                paused = getattr(request.channel, "_waitingForTransport", False)
                producer = _push_producer()(paused)
                request.registerProducer(producer, True)
            elif not more and registered():
                request.unregisterProducer()  # before the last part: it finishes the request
            await send(message)
            if more and producer is not None:
                await producer.writable.wait()

        try:
            return await self.inner(scope, receive, paced)
        finally:
            if registered():
                request.unregisterProducer()
