"""A streamed answer at its client's pace (daihinmin/pacing.py): each part but the last
waits while Twisted's flow control has paused the request's producer, a client gone
ends the wait, and under another server nothing changes. On the real daphne:
tests/e2e/test_downloads.py (the server's memory under downloads never read)."""

from __future__ import annotations

import asyncio
import functools

from daihinmin.pacing import Paced


class Request:
    """What daphne's request offers the pacing (Twisted's producer registration), on a
    connection whose client reads only when told: past one part unsent, the producer is
    paused, as Twisted's transport pauses it past its ``bufferSize``."""

    def __init__(self) -> None:
        self.channel = object()
        self.producer = None
        self.sent: list[bytes | None] = []
        self.unsent = 0
        self.gone = False

    def registerProducer(self, producer, streaming: bool) -> None:  # noqa: N802 - Twisted's
        assert streaming and self.producer is None
        self.producer = producer

    def unregisterProducer(self) -> None:  # noqa: N802
        self.producer = None

    def write(self, message: dict) -> None:
        if self.gone:
            return  # daphne drops what is sent to a connection lost
        self.sent.append(message.get("body"))
        self.unsent += message["type"] == "http.response.body"
        if self.producer is not None and self.unsent > 1:
            self.producer.pauseProducing()

    def drain(self) -> None:
        """The client read everything: Twisted resumes the producer."""
        self.unsent = 0
        self.producer.resumeProducing()

    def lose(self) -> None:
        """The client went: Twisted stops the producer."""
        self.gone = True
        self.producer.stopProducing()


async def handle_reply(request: Request, message: dict) -> None:
    """daphne's ``Server.handle_reply``: hands the message over, and returns at once."""
    request.write(message)


def body(data: bytes, more: bool) -> dict:
    return {"type": "http.response.body", "body": data, "more_body": more}


async def streaming_app(scope, receive, send) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": []})
    for part in (b"a", b"b", b"c"):
        await send(body(part, True))
    await send(body(b"", False))


async def test_a_part_waits_while_the_connection_is_full():
    request = Request()
    task = asyncio.create_task(
        Paced(streaming_app)({"type": "http"}, None, functools.partial(handle_reply, request))
    )
    for _ in range(5):
        await asyncio.sleep(0)
    assert request.sent == [None, b"a", b"b"]  # b waits to leave: c is not made
    request.drain()
    await asyncio.wait_for(task, 1)
    assert request.sent == [None, b"a", b"b", b"c", b""]
    assert request.producer is None  # unregistered before the last part


async def test_a_client_gone_ends_the_wait():
    request = Request()
    task = asyncio.create_task(
        Paced(streaming_app)({"type": "http"}, None, functools.partial(handle_reply, request))
    )
    for _ in range(5):
        await asyncio.sleep(0)
    assert not task.done()
    request.lose()
    await asyncio.wait_for(task, 1)
    assert request.sent == [None, b"a", b"b"]


async def test_another_servers_send_is_left_alone():
    sent: list[dict] = []

    async def send(message: dict) -> None:
        sent.append(message)

    await Paced(streaming_app)({"type": "http"}, None, send)
    assert [m.get("body") for m in sent] == [None, b"a", b"b", b"c", b""]
