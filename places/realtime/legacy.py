"""The 2011 event stream: every place's events for the WebSocket clients of 2011.

The founding document's sample bot reads its events with the WebSocket of 2011
(draft-hixie-thewebsocketprotocol-75: ``GET /`` with ``Upgrade: WebSocket``, frames
``0x00`` … ``0xFF``) on port 8081, beside the site. Daphne speaks RFC 6455 only, so
this stream has a port of its own (``LEGACY_WS_PORT``), opened by
``python -m daihinmin.serve`` on daphne's event loop (:func:`serve`).

It answers the handshakes of drafts -75 and -76 (-76's key challenge: the two
``Sec-WebSocket-Key`` headers and the 8 bytes after the head, answered by their MD5
digest), then writes every event of the every-place stream (``ws://HOST/``): the same
events, from the same source (``broadcast``'s every-place group), in the same order,
one frame each (:class:`Readers`).

The sample's reader takes whatever one read gives it as one frame: two frames in one
read are one unreadable message to it. A write a frame (with ``TCP_NODELAY``) is not
enough: frames written back to back wait together in the client's kernel until it
reads. So a socket gets its frames one at a time, :func:`frame_gap` apart: time for
the client to read each before the next comes. A socket owed more than
``PACED_FRAMES`` (a place at pace 0 of house bots alone, faster than a frame a gap) gets
all but the newest ``PACED_FRAMES`` in one write, then those paced: the newest are what
a bot waits for (its ``start_turn`` ends the change before its move), and a reader can
only fall so far behind, with so many frames held here for it. A socket whose last
writes are still unsent (it does not read) gets all it is owed at once.

It is read-only: what a client sends is read and dropped, its frames counted
(``WS_MAX_FRAMES_PER_SECOND``), and -76's closing frame answered. The bounds are the
other sockets': an address holds at most ``WS_MAX_SOCKETS_PER_ADDRESS`` sockets of
this process, these and daphne's together (``places.realtime.auth.claim``); a client
that leaves ``WS_MAX_BUFFERED_BYTES`` unread is dropped; a handshake must be whole
within ``HANDSHAKE_SECONDS`` and ``MAX_HEAD_BYTES``.

No ``Host`` or ``Origin`` check: the stream carries no session and nothing that
``ws://HOST/`` does not give any page, and the sample sends ``Host: 127.0.0.1`` and
``Origin: TODO`` whatever server it talks to.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import re
import socket
import string
from dataclasses import dataclass

from django.conf import settings

from daifugo.numbers import whole
from places.realtime import auth, broadcast, frames
from places.realtime.consumers import FrameRate

logger = logging.getLogger(__name__)

#: A client has this long to send its whole handshake (and a proxy its PROXY line).
HANDSHAKE_SECONDS = 10.0
#: A handshake's head (request line and headers) longer than this is refused.
MAX_HEAD_BYTES = 8192
#: How long a refused connection is read (and dropped) after its answer, at most.
LINGER_SECONDS = 1.0
#: A PROXY protocol v1 line is at most this long (its specification).
MAX_PROXY_LINE = 107
#: -76's closing frame (``0xFF 0x00``), answered in kind before the server closes.
CLOSING_FRAME = b"\xff\x00"


def frame_gap() -> float:
    """The least time between two writes to one socket (the handshake's answer and its
    first frame too), ``LEGACY_FRAME_GAP_SECONDS``: the client reads each frame before the
    next comes, on a busy machine as well (``tests/e2e/test_2011_sample_bot.py``: at 5 ms,
    with two CPU-bound processes beside it, the sample read two frames as one 1–4 times in
    3 games; at 20 ms, never in 3 runs; beside three test workers as well, 2 to 9 times)."""
    return settings.LEGACY_FRAME_GAP_SECONDS


#: A socket owed more frames than this gets the older ones in one write, not paced.
PACED_FRAMES = 64

RFC_6455_ADVICE = (
    "this port speaks the WebSocket of 2011 (draft-hixie-thewebsocketprotocol-75 and -76); "
    "an RFC 6455 client reads the same events at ws://HOST/ on the site's port"
)


class Refused(Exception):
    """A handshake turned down: the status line's code and reason, and why (the body)."""

    def __init__(self, status: int, reason: str, why: str):
        super().__init__(why)
        self.status, self.reason, self.why = status, reason, why

    def response(self) -> bytes:
        body = f"{self.why}\n".encode()
        head = (
            f"HTTP/1.1 {self.status} {self.reason}\r\n"
            "Content-Type: text/plain; charset=utf-8\r\n"
            f"Content-Length: {len(body)}\r\n"
            "Connection: close\r\n\r\n"
        )
        return head.encode("latin-1") + body


def _bad(why: str) -> Refused:
    return Refused(400, "Bad Request", why)


@dataclass(frozen=True)
class Request:
    """A handshake's request line and headers (names in lower case; the last of a name wins,
    but a key given twice is refused)."""

    path: str
    headers: dict[str, str]

    @property
    def draft76(self) -> bool:
        """Draft -76 sends the key challenge: 8 bytes follow the head."""
        return "sec-websocket-key1" in self.headers


def read_request(head: bytes) -> Request:
    """The handshake's head (up to its blank line, excluded), or :class:`Refused`."""
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3 or parts[0] != "GET" or not parts[1].startswith("/"):
        raise _bad("a WebSocket handshake starts with GET /PATH HTTP/1.1")
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, colon, value = line.partition(":")
        if not colon or not name.strip():
            raise _bad(f"not a header line: {line[:80]!r}")
        name = name.strip().lower()
        if any(c < " " and c != "\t" for c in line):  # echoed in the answer: plain text only
            raise _bad(f"a control character in the header {name}")
        if name.startswith("sec-websocket-key") and name in headers:
            raise _bad(f"{name} given twice")
        headers[name] = value.strip()
    if "sec-websocket-version" in headers or "sec-websocket-key" in headers:
        raise _bad(RFC_6455_ADVICE)
    if headers.get("upgrade", "").lower() != "websocket":
        raise _bad(f"not a WebSocket handshake (Upgrade: WebSocket): {RFC_6455_ADVICE}")
    if "upgrade" not in headers.get("connection", "").lower():
        raise _bad("a WebSocket handshake asks for Connection: Upgrade")
    if not headers.get("host"):
        raise _bad("a WebSocket handshake names its Host")
    if ("sec-websocket-key1" in headers) != ("sec-websocket-key2" in headers):
        raise _bad("draft -76 sends both Sec-WebSocket-Key1 and Sec-WebSocket-Key2")
    return Request(parts[1], headers)


#: A -76 key's digits make a number of at most 32 bits (§5.2 step 4: a larger one is "a
#: symptom of an attack"): ten digits, leading zeros aside, counted before the number is
#: made (:func:`daifugo.numbers.whole`), so that no key reaches Python's limit of
#: digits in a number (an error, no answer).
MAX_KEY_NUMBER = 0xFFFFFFFF


def key_number(key: str) -> int:
    """A -76 key's number: its digits as one number, divided by its spaces (§5.2 step 4)."""
    digits = "".join(c for c in key if c in string.digits)
    spaces = key.count(" ")
    if not digits or not spaces:
        raise _bad("a Sec-WebSocket-Key holds digits and at least one space")
    number = whole(digits, MAX_KEY_NUMBER)
    if number is None:
        raise _bad("a Sec-WebSocket-Key's digits make a number beyond 32 bits")
    if number % spaces:
        raise _bad("a Sec-WebSocket-Key's number is not a multiple of its spaces")
    return number // spaces


def challenge_answer(key1: str, key2: str, key3: bytes) -> bytes:
    """-76's answer: the MD5 digest of the two keys' numbers (4 bytes each, big-endian)
    and the 8 bytes that follow the head."""
    challenge = key_number(key1).to_bytes(4, "big") + key_number(key2).to_bytes(4, "big") + key3
    return hashlib.md5(challenge).digest()


def response(request: Request, key3: bytes = b"") -> bytes:
    """The server's handshake for the draft the client spoke (-76 with its 16-byte answer)."""
    headers = request.headers
    host = headers["host"]
    origin = headers.get("origin") or f"http://{host}"
    location = f"ws://{host}{request.path}"
    if request.draft76:
        prefix, status = "Sec-WebSocket-", "HTTP/1.1 101 WebSocket Protocol Handshake"
        protocol = headers.get("sec-websocket-protocol")
    else:
        prefix, status = "WebSocket-", "HTTP/1.1 101 Web Socket Protocol Handshake"
        protocol = headers.get("websocket-protocol")
    lines = [
        status,
        "Upgrade: WebSocket",
        "Connection: Upgrade",
        f"{prefix}Origin: {origin}",
        f"{prefix}Location: {location}",
    ]
    if protocol:
        lines.append(f"{prefix}Protocol: {protocol}")
    head = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1", "replace")
    if request.draft76:
        return head + challenge_answer(
            headers["sec-websocket-key1"], headers["sec-websocket-key2"], key3
        )
    return head


_PROXY_LINE = re.compile(
    rb"PROXY (?:(?:TCP4|TCP6) (?P<source>[0-9A-Fa-f.:]+) [0-9A-Fa-f.:]+ \d+ \d+|UNKNOWN[^\r]*)\r\n"
)


class Readers:
    """The 2011 sockets of this process: one listener of ``broadcast``'s every-place group
    for all of them, writing each its frames one at a time (see the module doc).

    An event costs one frame and one append, whatever the crowd: a write to every
    socket at every event held the server's loop for seconds when a place at pace 0
    ended in one change, and every HTTP request waited. The writes are the loop's
    own turns (:meth:`pump`), a frame a socket a turn at most.
    """

    def __init__(self) -> None:
        self.frames: list[bytes] = []
        self.first = 0  # the number of ``frames[0]``: every socket was sent the ones before
        #: Each socket: the number of the next frame it is owed, and when it may be written.
        self.owed: dict[LegacySocket, int] = {}
        self.due: dict[LegacySocket, float] = {}
        #: The loop a turn is scheduled on (a loop that closed first never runs it).
        self.pumping_on: asyncio.AbstractEventLoop | None = None

    def join(self, sock: LegacySocket, wrote_at: float) -> None:
        """From the next event on; its first frame :func:`frame_gap` after ``wrote_at``."""
        self.owed[sock] = self.first + len(self.frames)
        self.due[sock] = wrote_at + frame_gap()

    def leave(self, sock: LegacySocket) -> None:
        self.owed.pop(sock, None)
        self.due.pop(sock, None)

    def write_frame(self, message: dict, built: dict[str, bytes]) -> bool:
        """``broadcast``'s call for an event: its frame, kept for the sockets' turns."""
        if self.owed:
            self.frames.append(frames.legacy_frame(message["text"]))
            loop = asyncio.get_running_loop()
            if self.pumping_on is not loop:
                self.pumping_on = loop
                loop.call_soon(self.pump)
        return True

    def pump(self) -> None:
        """Each socket whose time has come gets its next frame, or all it is owed when it is
        behind; then, while any is owed more, again when the first is due."""
        self.pumping_on = None
        loop = asyncio.get_running_loop()
        now, end = loop.time(), self.first + len(self.frames)
        joined: dict[tuple[int, int], bytes] = {}  # frames from … to: shared by the sockets there
        for sock, number in list(self.owed.items()):
            if sock not in self.owed or number >= end or self.due[sock] > now:
                continue
            at = number - self.first
            if sock.behind():  # it does not read what it has: all it is owed, at once
                upto = end
            elif end - number > PACED_FRAMES:  # what such a reader cannot catch up with
                upto = end - PACED_FRAMES
            else:
                upto = None
            if upto is not None:
                data = joined.get((number, upto))
                if data is None:
                    data = joined[number, upto] = b"".join(self.frames[at : upto - self.first])
                number = upto
            else:
                data, number = self.frames[at], number + 1
            self.owed[sock], self.due[sock] = number, now + frame_gap()
            sock.write(data)  # may drop it (leave)
        sent = min(self.owed.values(), default=end)
        del self.frames[: sent - self.first]
        self.first = sent
        waiting = [self.due[sock] for sock, number in self.owed.items() if number < end]
        if waiting:
            self.pumping_on = loop
            loop.call_at(min(waiting), self.pump)


#: This process's 2011 readers (made on the first handshake, on the server's loop).
_readers: Readers | None = None


def readers() -> Readers:
    global _readers
    if _readers is None:
        _readers = Readers()
    return _readers


class LegacySocket(asyncio.Protocol):
    """One 2011 client: its handshake, then the every-place stream's events (:class:`Readers`)."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.address: str | None = None  # counted by auth.claim once known
        self.buffer = bytearray()
        self.open = False  # the handshake is whole: answered once listening
        self.started = False  # answered: events go out, the client's frames are dropped
        self.closed = False
        self.released = False  # its count given back (auth.release)
        self.rate = FrameRate(settings.WS_MAX_FRAMES_PER_SECOND)
        self._in_text = False  # inside a client's 0x00 … 0xFF frame
        self._length: int | None = None  # reading a length-prefixed frame's length
        self._type = 0
        self._skip = 0  # bytes of a length-prefixed frame still to drop
        self._timer: asyncio.TimerHandle | None = None
        self._starting: asyncio.Future | None = None

    # -- the connection
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        sock = transport.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):  # not TCP (a test's pipe)
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._timer = asyncio.get_running_loop().call_later(HANDSHAKE_SECONDS, self._too_slow)
        if not settings.LEGACY_WS_PROXY_PROTOCOL:
            peer = transport.get_extra_info("peername")
            self._claim(str(peer[0]) if peer else "")

    def _claim(self, address: str) -> None:
        if auth.claim(address, legacy=True):
            self.address = address
        else:
            self._refuse(Refused(403, "Forbidden", "too many sockets from this address"))

    def data_received(self, data: bytes) -> None:
        if self.closed:
            return
        if self.started:
            self._drop(data)
            return
        self.buffer += data
        if self.open:  # answered once listening (_start); until then kept, reading paused
            return
        try:
            if self.address is None:
                self._read_proxy_line()
            if self.address is not None:
                self._read_handshake()
        except Refused as refusal:
            self._refuse(refusal)

    def eof_received(self) -> bool:
        return False  # the client is done: close

    def connection_lost(self, exc: Exception | None) -> None:
        self._forget()

    def _forget(self) -> None:
        self.closed = True
        if self._timer is not None:
            self._timer.cancel()
        if _readers is not None:
            _readers.leave(self)
        if self.address is not None and not self.released:
            self.released = True
            auth.release(self.address, legacy=True)

    def _close(self) -> None:
        self._forget()
        if self.transport is not None:
            self.transport.close()

    def _refuse(self, refusal: Refused) -> None:
        """Answer why, then close our side and read on a little: a close with the client's
        request unread would reset the connection, and the answer with it."""
        logger.info("2011 socket of %s refused: %s", self._who(), refusal.why)
        self._forget()
        transport = self.transport
        if transport is None:
            return
        transport.write(refusal.response())
        if not transport.can_write_eof():
            transport.close()
            return
        transport.write_eof()  # what the client still sends is dropped (data_received)
        asyncio.get_running_loop().call_later(LINGER_SECONDS, transport.close)

    def _too_slow(self) -> None:
        if not self.open and not self.closed:
            self._refuse(Refused(408, "Request Timeout", "the handshake took too long"))

    def _who(self) -> str:
        if self.address is not None:
            return self.address
        peer = self.transport.get_extra_info("peername") if self.transport else None
        return str(peer[0]) if peer else "?"

    # -- the handshake
    def _read_proxy_line(self) -> None:
        end = self.buffer.find(b"\r\n")
        if end < 0:
            if len(self.buffer) > MAX_PROXY_LINE:
                raise _bad("a PROXY protocol line was expected")
            return
        match = _PROXY_LINE.fullmatch(bytes(self.buffer[: end + 2]))
        if match is None:
            raise _bad("a PROXY protocol line was expected")
        del self.buffer[: end + 2]
        self._claim((match["source"] or b"").decode())

    def _read_handshake(self) -> None:
        end = self.buffer.find(b"\r\n\r\n")
        if end < 0:
            if len(self.buffer) > MAX_HEAD_BYTES:
                raise Refused(431, "Request Header Fields Too Large", "the handshake is too long")
            return
        if end > MAX_HEAD_BYTES:
            raise Refused(431, "Request Header Fields Too Large", "the handshake is too long")
        request = read_request(bytes(self.buffer[:end]))
        rest = self.buffer[end + 4 :]
        key3 = b""
        if request.draft76:
            if len(rest) < 8:
                return  # the challenge's 8 bytes are on their way
            key3, rest = bytes(rest[:8]), rest[8:]
        answer = response(request, key3)  # Refused for a key that does not add up
        self.buffer = bytearray(rest)
        self.open = True
        self.transport.pause_reading()
        if self._timer is not None:
            self._timer.cancel()
        self._starting = asyncio.ensure_future(self._start(answer))  # held: the loop does not

    async def _start(self, answer: bytes) -> None:
        """Listen before the client knows it is connected, so that it misses nothing after;
        then what it sent meanwhile is read."""
        stream = readers()
        await broadcast.listen(broadcast.ALL_PLACES_GROUP, stream)  # again: the numbering
        if self.closed:
            return
        stream.join(self, asyncio.get_running_loop().time())
        self.transport.write(answer)
        self.started = True
        self.transport.resume_reading()
        rest, self.buffer = bytes(self.buffer), bytearray()
        self._drop(rest)

    # -- what the client sends: counted and dropped
    def _drop(self, data: bytes) -> None:
        """Read the client's frames (sentinel or length-prefixed, -75 §4.2) and drop them:
        count each against ``WS_MAX_FRAMES_PER_SECOND``; answer -76's closing frame."""
        i, n = 0, len(data)
        while i < n and not self.closed:
            if self._skip:
                taken = min(self._skip, n - i)
                self._skip -= taken
                i += taken
                if not self._skip:
                    self._frame_read()
            elif self._in_text:
                end = data.find(b"\xff", i)
                if end < 0:
                    return
                i = end + 1
                self._in_text = False
                self._frame_read()
            elif self._length is not None:
                byte = data[i]
                i += 1
                self._length = (self._length << 7) | (byte & 0x7F)
                if not byte & 0x80:
                    length, self._length = self._length, None
                    if self._type == 0xFF and length == 0:
                        self._closing()
                        return
                    self._skip = length
                    if not length:
                        self._frame_read()
            else:
                kind = data[i]
                i += 1
                if kind & 0x80:
                    self._type, self._length = kind, 0
                else:
                    self._in_text = True

    def _frame_read(self) -> None:
        if not self.rate.allows():
            logger.warning("closing a 2011 socket of %s: too many frames per second", self._who())
            self._close()

    def _closing(self) -> None:
        """-76's closing handshake: the client's closing frame, answered in kind."""
        if self.transport is not None:
            self.transport.write(CLOSING_FRAME)
        self._close()

    # -- events
    def behind(self) -> bool:
        """Whether the kernel left some of what it was given unsent (the client reads less
        than it is sent): frames paced would only wait longer."""
        return self.transport is not None and self.transport.get_write_buffer_size() > 0

    def write(self, data: bytes) -> None:
        """:class:`Readers`' call: frames for this client.

        A client that leaves ``WS_MAX_BUFFERED_BYTES`` unread is dropped: it never holds
        up the place or the others.
        """
        if self.closed or self.transport is None:
            return
        transport = self.transport
        if transport.get_write_buffer_size() > settings.WS_MAX_BUFFERED_BYTES:
            logger.warning(
                "dropping a 2011 socket of %s: %s bytes unsent (a client too slow for its stream)",
                self._who(),
                transport.get_write_buffer_size(),
            )
            self._forget()
            transport.abort()
            return
        transport.write(data)


async def serve(sock: socket.socket) -> asyncio.Server:
    """Serve the 2011 stream on a bound, listening socket, from the running loop (the
    server's): events go out through this process's sender from now on."""
    await broadcast.attach()
    return await asyncio.get_running_loop().create_server(LegacySocket, sock=sock)
