"""The 2011 event stream's protocol (``places/realtime/legacy.py``), on a transport of the
test's: the handshakes of drafts hixie-75 and -76 (-76's challenge checked against the
draft's own examples), one frame a write of UTF-8 between ``0x00`` and ``0xFF``, what a
client sends dropped and counted, and the bounds the other sockets have.

The real port, daphne's loop and a whole place are in ``tests/e2e/test_legacy_stream.py``.
"""

from __future__ import annotations

import asyncio
import json

import pytest

from places.realtime import auth, broadcast, legacy
from places.realtime.frames import legacy_frame

#: What the founding document's ``WebsocketClient#post_init`` sends, byte for byte.
SAMPLE_REQUEST = (
    b"GET / HTTP/1.1\r\nUpgrade: WebSocket\r\nConnection: Upgrade\r\n"
    b"Host: 127.0.0.1\r\nOrigin: TODO\r\n\r\n"
)
#: draft-hixie-thewebsocketprotocol-76, section 1.2: the client's handshake and the server's.
DRAFT_76_REQUEST = (
    b"GET /demo HTTP/1.1\r\n"
    b"Host: example.com\r\n"
    b"Connection: Upgrade\r\n"
    b"Sec-WebSocket-Key2: 12998 5 Y3 1  .P00\r\n"
    b"Sec-WebSocket-Protocol: sample\r\n"
    b"Upgrade: WebSocket\r\n"
    b"Sec-WebSocket-Key1: 4 @1  46546xW%0l 1 5\r\n"
    b"Origin: http://example.com\r\n"
    b"\r\n"
    b"^n:ds[4U"
)
DRAFT_76_RESPONSE = (
    b"HTTP/1.1 101 WebSocket Protocol Handshake\r\n"
    b"Upgrade: WebSocket\r\n"
    b"Connection: Upgrade\r\n"
    b"Sec-WebSocket-Origin: http://example.com\r\n"
    b"Sec-WebSocket-Location: ws://example.com/demo\r\n"
    b"Sec-WebSocket-Protocol: sample\r\n"
    b"\r\n"
    b"8jKS'y:G*Co,Wxa-"
)


class Transport:
    """What ``LegacySocket`` uses of an asyncio transport; each write kept apart."""

    def __init__(self, peer: str = "192.0.2.1"):
        self.peer = peer
        self.writes: list[bytes] = []
        self.at: list[float] = []  # the loop's time of each write
        self.unsent = 0
        self.closed = self.aborted = self.paused = False

    def get_extra_info(self, name: str):
        return {"peername": (self.peer, 40000)}.get(name)

    def write(self, data: bytes) -> None:
        self.writes.append(bytes(data))
        self.at.append(asyncio.get_running_loop().time())

    def get_write_buffer_size(self) -> int:
        return self.unsent

    def close(self) -> None:
        self.closed = True

    def pause_reading(self) -> None:
        self.paused = True

    def resume_reading(self) -> None:
        self.paused = False

    def can_write_eof(self) -> bool:
        return True

    def write_eof(self) -> None:
        """A refusal's: the server's side closed, the client's read on (then closed)."""
        self.closed = True

    def abort(self) -> None:
        self.aborted = True


@pytest.fixture(autouse=True)
def _nothing_left_open():
    yield
    assert not auth._open and not auth.legacy_sockets(), "a socket's count outlived it"


async def connected(peer: str = "192.0.2.1") -> tuple[legacy.LegacySocket, Transport]:
    sock, transport = legacy.LegacySocket(), Transport(peer)
    sock.connection_made(transport)
    return sock, transport


async def handshaken(request: bytes = SAMPLE_REQUEST) -> tuple[legacy.LegacySocket, Transport]:
    sock, transport = await connected()
    sock.data_received(request)
    await asyncio.sleep(0)  # it listens, then answers
    assert sock.started, transport.writes
    return sock, transport


def event(text: str, seq: int = 1) -> dict:
    return {"type": "place.event", "group": "places", "place": 1, "seq": seq, "text": text}


def test_the_draft_76_challenge_is_answered_with_the_drafts_own_digests():
    # section 1.2 (the opening handshake) and section 1.3 (the worked example of the keys)
    assert (
        legacy.challenge_answer("4 @1  46546xW%0l 1 5", "12998 5 Y3 1  .P00", b"^n:ds[4U")
        == b"8jKS'y:G*Co,Wxa-"
    )
    assert (
        legacy.challenge_answer("3e6b263  4 17 80", "17  9 G`ZD9   2 2b 7X 3 /r90", b"WjN}|M(6")
        == b"n`9eBk9z$R8pOtVb"
    )


async def test_the_draft_76_handshake_in_pieces_is_answered_as_the_draft_answers_it():
    sock, transport = await connected()
    for i in range(0, len(DRAFT_76_REQUEST), 7):  # the head and the 8 bytes, split anywhere
        sock.data_received(DRAFT_76_REQUEST[i : i + 7])
    await asyncio.sleep(0)
    assert transport.writes == [DRAFT_76_RESPONSE]
    assert legacy.readers() in broadcast._listeners[broadcast.ALL_PLACES_GROUP]
    assert sock in legacy.readers().owed
    sock.connection_lost(None)
    assert sock not in legacy.readers().owed


async def test_the_samples_draft_75_handshake_gets_the_101_it_waits_for():
    sock, transport = await handshaken()
    assert transport.writes == [
        b"HTTP/1.1 101 Web Socket Protocol Handshake\r\n"
        b"Upgrade: WebSocket\r\n"
        b"Connection: Upgrade\r\n"
        b"WebSocket-Origin: TODO\r\n"
        b"WebSocket-Location: ws://127.0.0.1/\r\n"
        b"\r\n"
    ]
    sock.connection_lost(None)


@pytest.mark.parametrize(
    ("request_bytes", "says"),
    [
        (
            b"GET / HTTP/1.1\r\nHost: h\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
            b"an RFC 6455 client reads the same events at ws://HOST/ on the site's port",
        ),
        (b"GET / HTTP/1.1\r\nHost: h\r\n\r\n", b"not a WebSocket handshake"),
        (
            DRAFT_76_REQUEST.replace(b"12998 5 Y3 1  .P00", b"12998 5 Y3 1  .P01"),
            b"not a multiple of its spaces",
        ),
        (DRAFT_76_REQUEST.replace(b"Sec-WebSocket-Key1", b"X-Key1"), b"both Sec-WebSocket-Key1"),
        (SAMPLE_REQUEST.replace(b"TODO", b"x\nSet-Cookie: a=b"), b"a control character"),
    ],
)
async def test_a_handshake_it_cannot_answer_is_refused_400_saying_why(request_bytes, says):
    sock, transport = await connected()
    sock.data_received(request_bytes)
    await asyncio.sleep(0)
    assert len(transport.writes) == 1 and transport.closed
    assert transport.writes[0].startswith(b"HTTP/1.1 400 Bad Request\r\n")
    assert says in transport.writes[0]


@pytest.mark.parametrize(
    "key",
    [
        "1 " + "9" * 5000,  # beyond Python's limit of digits in a number
        "0" * 5000 + " 4294967296",  # leading zeros aside, a number beyond 32 bits
        "42949 67296",  # one more than 32 bits, a multiple of its one space
        "8589934" + " " * 12 + "5920",  # 12 spaces: within 32 bits once divided, not before
    ],
)
async def test_a_draft_76_key_beyond_32_bits_is_refused_400_with_one_info_line(key, caplog):
    caplog.set_level("DEBUG", logger="places.realtime.legacy")
    sock, transport = await connected()
    sock.data_received(DRAFT_76_REQUEST.replace(b"4 @1  46546xW%0l 1 5", key.encode()))
    await asyncio.sleep(0)
    assert len(transport.writes) == 1 and transport.closed
    assert transport.writes[0].startswith(b"HTTP/1.1 400 Bad Request\r\n")
    assert b"beyond 32 bits" in transport.writes[0]
    assert [(r.levelname, r.exc_info) for r in caplog.records] == [("INFO", None)]
    assert len(caplog.records[0].getMessage()) < 200
    sock.connection_lost(None)


async def written(transport: Transport, count: int) -> list[bytes]:
    """The transport's writes once it has ``count`` of them (the frames are paced)."""
    for _ in range(1000):
        if len(transport.writes) >= count:
            return transport.writes
        await asyncio.sleep(0.001)
    raise AssertionError(f"{len(transport.writes)} writes, not {count}")


async def test_each_event_is_a_write_of_its_own_apart_from_the_one_before():
    """The sample's reader takes one read as one frame: frames written back to back are
    read together, so each leaves :func:`legacy.frame_gap` after the write before it."""
    text = json.dumps({"title": "大富豪 ♠ 🃏", "operation": "start_place", "place": 1})
    assert legacy_frame(text) == b"\x00" + text.encode("utf-8") + b"\xff"
    one, first = await handshaken()
    two, second = await handshaken()
    texts = [text, *(f'{{"operation":"start_turn","place":1,"n":{n}}}' for n in range(5))]
    for seq, t in enumerate(texts, 1):  # one change: handed out in one turn of the loop
        await broadcast._hand_out(event(t, seq))
    for transport in (first, second):
        assert await written(transport, 1 + len(texts)) == [
            transport.writes[0],  # the handshake's answer
            *(legacy_frame(t) for t in texts),
        ]
        gaps = [b - a for a, b in zip(transport.at, transport.at[1:], strict=False)]
        assert min(gaps) >= legacy.frame_gap() * 0.9, gaps  # the loop's clock: ms
    one.connection_lost(None)
    two.connection_lost(None)


async def test_a_socket_owed_more_than_it_paces_gets_the_older_in_one_write_the_newest_paced(
    settings,
):
    """A place at pace 0 of house bots alone outruns a frame a gap: what a reader cannot
    catch up with leaves together; the newest frames (a bot's ``start_turn`` ends its
    change) still come one a read."""
    settings.LEGACY_FRAME_GAP_SECONDS = 0.002
    sock, transport = await handshaken()
    texts = [f'{{"operation":"post_cards","place":1,"n":{n}}}' for n in range(500)]
    for seq, t in enumerate(texts, 1):
        await broadcast._hand_out(event(t, seq))
    frames = (await written(transport, 2 + legacy.PACED_FRAMES))[1:]
    assert b"".join(frames) == b"".join(legacy_frame(t) for t in texts)  # whole, in order
    assert frames[0] == b"".join(legacy_frame(t) for t in texts[: -legacy.PACED_FRAMES])
    assert frames[1:] == [legacy_frame(t) for t in texts[-legacy.PACED_FRAMES :]]
    assert not legacy.readers().frames  # nothing kept once sent
    sock.connection_lost(None)


async def test_a_socket_that_does_not_read_gets_all_it_is_owed_at_once(monkeypatch):
    sock, transport = await handshaken()
    monkeypatch.setattr(sock, "behind", lambda: True)
    texts = [f'{{"operation":"post_cards","place":1,"n":{n}}}' for n in range(10)]
    for seq, t in enumerate(texts, 1):
        await broadcast._hand_out(event(t, seq))
    assert (await written(transport, 2))[1] == b"".join(legacy_frame(t) for t in texts)
    await asyncio.sleep(legacy.frame_gap() * 2)
    assert len(transport.writes) == 2
    sock.connection_lost(None)


async def test_what_comes_behind_the_handshake_waits_for_its_answer():
    sock, transport = await connected()
    sock.data_received(SAMPLE_REQUEST + b"\x00hi\xff\xff\x00")  # a frame, -76's closing one
    assert transport.paused and not transport.writes  # listening first, nothing read meanwhile
    await asyncio.sleep(0)
    assert not transport.paused
    assert transport.writes[0].startswith(b"HTTP/1.1 101 ")
    assert transport.writes[1:] == [legacy.CLOSING_FRAME] and transport.closed
    sock.connection_lost(None)


async def test_what_a_client_sends_is_dropped_and_the_closing_frame_answered():
    sock, transport = await handshaken()
    sent = len(transport.writes)
    sock.data_received(b"\x00hello\xff\x00split")
    sock.data_received(b" frame\xff\x80\x03abc\x81\x81\x00" + b"x" * 128)  # length-prefixed
    assert len(transport.writes) == sent and not transport.closed
    sock.data_received(b"\xff\x00")  # -76's closing frame
    assert transport.writes[-1] == legacy.CLOSING_FRAME and transport.closed
    sock.connection_lost(None)


async def test_a_client_sending_faster_than_the_frame_limit_is_closed(settings):
    settings.WS_MAX_FRAMES_PER_SECOND = 10
    sock, transport = await handshaken()
    sock.data_received(b"\x00x\xff" * 10)
    assert not transport.closed
    sock.data_received(b"\x00x\xff")
    assert transport.closed
    sock.connection_lost(None)


async def test_a_client_that_does_not_read_is_dropped_and_stops_listening(settings):
    settings.WS_MAX_BUFFERED_BYTES = 1000
    sock, transport = await handshaken()
    transport.unsent = 1001  # what the kernel would not take
    await broadcast._hand_out(event('{"operation":"end_place","place":1}'))
    for _ in range(100):
        await asyncio.sleep(legacy.frame_gap())
        if transport.aborted:
            break
    assert transport.aborted and len(transport.writes) == 1  # the answer, then nothing
    assert sock not in legacy.readers().owed
    assert not auth.legacy_sockets() and not auth._open
    sock.connection_lost(None)


async def test_an_address_holds_its_sockets_of_both_ports_together(settings):
    settings.WS_MAX_SOCKETS_PER_ADDRESS = 2
    assert auth.claim("192.0.2.1")  # a socket of daphne's, from the same address
    sock, transport = await handshaken()
    refused, refused_transport = await connected()
    assert refused_transport.closed
    assert refused_transport.writes[0].startswith(b"HTTP/1.1 403 Forbidden\r\n")
    other, other_transport = await connected(peer="192.0.2.2")  # another address is not
    assert not other_transport.closed
    refused.connection_lost(None)
    other.connection_lost(None)
    auth.release("192.0.2.1")
    sock.connection_lost(None)
    again, again_transport = await handshaken()  # its places are free again
    again.connection_lost(None)


async def test_a_handshake_not_whole_in_time_or_too_long_is_refused(monkeypatch):
    monkeypatch.setattr(legacy, "HANDSHAKE_SECONDS", 0.01)
    sock, transport = await connected()
    sock.data_received(SAMPLE_REQUEST[:20])
    await asyncio.sleep(0.05)
    assert transport.closed and transport.writes[0].startswith(b"HTTP/1.1 408 ")
    sock.connection_lost(None)
    sock, transport = await connected()
    sock.data_received(b"GET / HTTP/1.1\r\nX: " + b"x" * legacy.MAX_HEAD_BYTES)
    assert transport.closed and transport.writes[0].startswith(b"HTTP/1.1 431 ")
    sock.connection_lost(None)


async def test_behind_a_proxy_the_address_is_the_proxy_lines(settings):
    settings.LEGACY_WS_PROXY_PROTOCOL = True
    settings.WS_MAX_SOCKETS_PER_ADDRESS = 1
    sock, transport = await connected(peer="127.0.0.1")
    assert not auth._open  # counted once the line says whose it is
    sock.data_received(b"PROXY TCP4 203.0.113.7 127.0.0.1 40000 8081\r\n" + SAMPLE_REQUEST)
    await asyncio.sleep(0)
    assert sock.address == "203.0.113.7" and sock.started
    other, other_transport = await connected(peer="127.0.0.1")
    other.data_received(b"PROXY TCP4 203.0.113.8 127.0.0.1 40001 8081\r\n" + SAMPLE_REQUEST)
    await asyncio.sleep(0)
    assert other.started  # the proxy's own address holds nothing
    stray, stray_transport = await connected(peer="127.0.0.1")
    stray.data_received(SAMPLE_REQUEST)  # no PROXY line: refused
    assert stray_transport.writes[0].startswith(b"HTTP/1.1 400 ")
    for s in (sock, other, stray):
        s.connection_lost(None)
