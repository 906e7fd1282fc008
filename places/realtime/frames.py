"""Events' frames on daphne's connections: built once, sent with one system call, paced.

A server's WebSocket frames are not masked, so one event's frame is the same bytes
for every socket of a stream (:func:`text_frame`). Twisted's ``transport.write``
buffers the bytes, asks the loop to watch the socket, sends on the loop's next
turn and stops watching: three system calls and Python around each. When nothing
waits in Twisted's buffer, :func:`send` hands the bytes to the socket at once and
leaves to Twisted only what the kernel did not take, in order.

Spectators of one stream share a :class:`Stream`: an event is one frame for all
of them, and their frames leave together, one write a socket a flush. A flush is
paced by what the last one cost: the writes to a crowd take at most a share of
the server's time (``WS_FLUSH_SHARE``), however fast events come, while a few
sockets are written at once; and it writes in slices of the loop's turns
(``SLICE_SECONDS``), so that no request waits behind a whole crowd's writes.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any

from django.conf import settings
from twisted.internet import tcp

logger = logging.getLogger(__name__)

#: The most of one turn of the loop a flush writes for: then the loop runs what else waits
#: (requests, the sender) and the flush goes on.
SLICE_SECONDS = 0.005


def text_frame(text: str) -> bytes:
    """One unfragmented, unmasked WebSocket text frame (RFC 6455 §5.2)."""
    payload = text.encode()
    n = len(payload)
    if n < 126:
        header = bytes((0x81, n))
    elif n < 1 << 16:
        header = bytes((0x81, 126)) + n.to_bytes(2, "big")
    else:
        header = bytes((0x81, 127)) + n.to_bytes(8, "big")
    return header + payload


def legacy_frame(text: str) -> bytes:
    """One text frame of the 2011 WebSocket (draft-hixie-thewebsocketprotocol-75/-76 §4.2):
    ``0x00``, the UTF-8 text, ``0xFF``. UTF-8 never holds the byte ``0xFF``, and compact
    JSON writes a NUL as ``\\u0000``: the sentinels cannot occur inside."""
    return b"\x00" + text.encode() + b"\xff"


def unsent(transport) -> int:
    """Bytes a Twisted transport holds that the client has not taken yet."""
    data = getattr(transport, "dataBuffer", b"")
    return len(data) - getattr(transport, "offset", 0) + getattr(transport, "_tempDataLen", 0)


def send(transport, data: bytes) -> None:
    """``transport.write(data)``, straight to the socket when nothing waits before it.

    Only on a plain TCP connection (never under TLS, whose bytes Twisted encrypts),
    open for writing. A connection that fails the send is left to Twisted's own
    write, which finds the error and closes it.
    """
    if (
        isinstance(transport, tcp.Connection)
        and not transport.TLS
        and transport.connected
        and not transport.disconnecting
        and not transport._writeDisconnected
        and not unsent(transport)
    ):
        try:
            sent = transport.getHandle().send(data)
        except OSError:  # would block (EAGAIN), or broken
            sent = 0
        if sent == len(data):
            return
        data = data[sent:]
    transport.write(data)


class Stream:
    """The spectators of one group and kind: each event's frame kept once, written to all.

    A listener of its group in ``broadcast`` like a socket, but one for all its
    sockets: an event costs one frame and one append, whatever the crowd. A flush
    writes each socket the frames since it joined (all of them, for all but the
    newest), one write a socket. The first frame waiting schedules a flush, no
    sooner than ``seconds()`` later and no sooner than the last flush's duration ×
    (1 / ``WS_FLUSH_SHARE`` − 1) after it ended.
    """

    def __init__(
        self,
        frame_text: Callable[[dict], str],
        seconds: Callable[[], float],
        write: Callable[[Any, bytes], None],
    ):
        self.frame_text = frame_text
        self.seconds = seconds
        self.write = write
        self.frames: list[bytes] = []
        #: Each socket and the index in ``frames`` of the first one it is owed.
        self.sockets: dict[Any, int] = {}
        #: The loop a flush is scheduled on (a loop that closed first never runs it).
        self.scheduled_on: asyncio.AbstractEventLoop | None = None
        self.ready_at = 0.0  # loop time before which no flush starts
        #: A flush is writing its snapshot out: the next one waits until it is done, so
        #: that each socket gets its frames in order.
        self.writing = False

    def join(self, socket: Any) -> None:
        self.sockets[socket] = len(self.frames)

    def leave(self, socket: Any) -> None:
        self.sockets.pop(socket, None)

    def write_frame(self, message: dict, built: dict[str, bytes]) -> bool:
        """``broadcast``'s call for an event: keep its frame for the next flush."""
        if not self.sockets:
            return True
        self.frames.append(text_frame(self.frame_text(message)))
        if not self.writing:  # else the flush that writes schedules the next when done
            self._schedule(asyncio.get_running_loop())
        return True

    def _schedule(self, loop: asyncio.AbstractEventLoop) -> None:
        if self.scheduled_on is not loop:
            self.scheduled_on = loop
            loop.call_later(max(self.seconds(), self.ready_at - loop.time()), self.flush)

    def flush(self) -> None:
        """Write each socket what it is owed: a snapshot of the frames, written out over
        as many turns of the loop as it takes (:meth:`_write_out`)."""
        self.scheduled_on = None
        frames, self.frames = self.frames, []
        owed = list(self.sockets.items())
        for socket in self.sockets:
            self.sockets[socket] = 0
        self.writing = True
        self._write_out(frames, owed, {}, 0.0)

    def _write_out(
        self, frames: list[bytes], owed: list[tuple[Any, int]], joined: dict, spent: float
    ) -> None:
        """Write the sockets in ``owed`` for at most ``SLICE_SECONDS``, then go on at the
        loop's next turn: a crowd owed megabytes each (a place at pace 0 ending in one
        change) took half a second of one turn, and every request waited behind it.
        ``joined``: by first frame owed, the bytes (all sockets but the newest share one)."""
        loop = asyncio.get_running_loop()
        started = time.thread_time()  # the server's CPU, not the time others took it
        slice_ends = time.perf_counter() + SLICE_SECONDS
        while owed:
            socket, first = owed.pop()
            if socket not in self.sockets:
                continue  # it left meanwhile
            data = joined.get(first)
            if data is None:
                data = joined[first] = b"".join(frames[first:])
            if data:
                try:
                    self.write(socket, data)
                except Exception:  # one broken socket must not stop the others
                    logger.exception("writing to a spectator's socket failed")
            if owed and time.perf_counter() >= slice_ends:
                spent += time.thread_time() - started
                loop.call_soon(self._write_out, frames, owed, joined, spent)
                return
        spent += time.thread_time() - started
        share = min(1.0, max(settings.WS_FLUSH_SHARE, 1e-3))
        self.ready_at = loop.time() + spent * (1 / share - 1)
        self.writing = False
        if self.frames:  # what came while it wrote: the next flush, at its pace
            self._schedule(loop)
