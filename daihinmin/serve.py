"""Daphne, as this project runs it: ``python -m daihinmin.serve`` takes daphne's own arguments.

    python -m daihinmin.serve -b 127.0.0.1 -p 8000 daihinmin.asgi:application

Two things differ from plain ``daphne``:

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

``daphne daihinmin.asgi:application`` works too, without these.
"""

from __future__ import annotations

import asyncio
import io
import os


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


def bounded_requests() -> None:
    """Make daphne's HTTP requests keep no more of a body than the application reads."""
    from daphne import http_protocol

    from daihinmin import bodies

    class BoundedRequest(http_protocol.WebRequest):
        """A body beyond the limit is dropped as it arrives; its length is what the app sees."""

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


def main() -> None:
    use_uvloop()
    bounded_requests()
    from daphne.cli import CommandLineInterface  # makes the loop: after the policy

    CommandLineInterface.entrypoint()


if __name__ == "__main__":
    main()
