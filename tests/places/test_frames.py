"""Events written as frames straight to daphne's connections (``Socket.write_frame``):
the bytes of RFC 6455's frame, built once per kind of socket, spectators of a stream
sharing each frame and getting theirs together at a pace their cost sets, a client too slow for its stream
dropped rather than buffered without end, and one system call a write when the
connection's buffer is empty."""

from __future__ import annotations

import asyncio
import functools
import time

import pytest
from websockets.frames import Frame, Opcode
from websockets.streams import StreamReader

from places.realtime import broadcast, frames
from places.realtime.consumers import (
    AllPlacesConsumer,
    LiveConsumer,
    PlaceConsumer,
    _daphne_protocol,
    _streams,
)
from places.realtime.frames import text_frame
from tests.timing import guard


@pytest.fixture(autouse=True)
def _no_pacing(settings):
    """Flushes as soon as the loop turns, whatever the last one cost (one test paces)."""
    settings.WS_FLUSH_SHARE = 1.0


def parse(data: bytes) -> Frame:
    reader = StreamReader()
    reader.feed_data(data)
    reader.feed_eof()
    parser = Frame.parse(reader.read_exact, mask=False)
    try:
        while True:
            next(parser)
    except StopIteration as done:
        return done.value


@pytest.mark.parametrize("length", [0, 1, 125, 126, 127, 65535, 65536, 70000])
def test_a_text_frame_is_what_a_websocket_client_reads(length):
    text = ("大" + "x" * length)[: max(length, 0)] or ""
    frame = parse(text_frame(text))
    assert frame.opcode == Opcode.TEXT and frame.fin and not frame.rsv1
    assert frame.data.decode() == text


class Transport:
    def __init__(self, unsent: int = 0):
        self.written: list[bytes] = []
        self.dataBuffer, self.offset, self._tempDataLen = b"x" * unsent, 0, 0
        self.aborted = False

    def write(self, data: bytes) -> None:
        self.written.append(data)

    def abortConnection(self) -> None:
        self.aborted = True


class Protocol:
    STATE_OPEN, STATE_CLOSING = 3, 4

    def __init__(self, unsent: int = 0):
        self.transport = Transport(unsent)
        self.state = self.STATE_OPEN
        self.send_queue: list = []


class Server:
    async def handle_reply(self, protocol, message): ...


def socket(cls, protocol: Protocol):
    s = cls()
    s.scope = {"client": ("127.0.0.1", 1)}
    s.listen_to = ["places"]
    s._protocol = _daphne_protocol(functools.partial(Server().handle_reply, protocol))
    s._joined, s._unflushed = [], []  # as Socket.__call__ sets them
    if cls is PlaceConsumer:
        s._held = None
    return s


MESSAGE = {"type": "place.event", "group": "places", "place": 4, "seq": 9, "text": '{"a":1}'}


async def a_turn_of_the_loop() -> None:
    await asyncio.sleep(0.01)


async def test_the_frame_is_built_once_per_kind_and_shared(settings):
    settings.WS_LIVE_FLUSH_SECONDS = 0  # no wait but the pacing, as the every-place stream's
    sockets = [socket(AllPlacesConsumer, Protocol()) for _ in range(3)]
    live = [socket(LiveConsumer, Protocol()) for _ in range(2)]
    built: dict[str, bytes] = {}
    for s in sockets + live:
        assert s.write_frame(MESSAGE, built)
    assert parse(built["event"]).data == b'{"a":1}'
    assert parse(built["live"]).data == b'{"seq":9,"event":{"a":1}}'
    await a_turn_of_the_loop()
    for s in sockets:
        assert s._protocol.transport.written[0] is built["event"]  # the same bytes object
    for s in live:
        assert s._protocol.transport.written[0] is built["live"]


def test_a_player_socket_answering_an_action_holds_the_event_back():
    s = socket(PlaceConsumer, Protocol())
    s._held = []
    assert s.write_frame(MESSAGE, {})
    assert s._held == ['{"a":1}'] and not s._protocol.transport.written


async def test_a_client_too_slow_for_its_stream_is_dropped(settings):
    settings.WS_MAX_BUFFERED_BYTES = 1000
    slow = socket(AllPlacesConsumer, Protocol(unsent=1001))
    broadcast._listeners["places"].add(slow)
    try:
        assert slow.write_frame(MESSAGE, {})
        await a_turn_of_the_loop()
        assert slow._protocol.transport.aborted and not slow._protocol.transport.written
        assert slow not in broadcast._listeners["places"]  # no more events for it
    finally:
        broadcast._listeners["places"].discard(slow)
    keeping_up = socket(AllPlacesConsumer, Protocol(unsent=999))
    assert keeping_up.write_frame(MESSAGE, {})
    await a_turn_of_the_loop()
    assert keeping_up._protocol.transport.written


async def test_without_daphne_or_with_autobahn_s_queue_busy_the_asgi_way_is_taken():
    assert _daphne_protocol(lambda message: None) is None
    busy = socket(AllPlacesConsumer, Protocol())
    busy._protocol.send_queue.append((b"...", False))
    assert not busy.write_frame(MESSAGE, {})
    closing = socket(AllPlacesConsumer, Protocol())
    closing._protocol.state = Protocol.STATE_CLOSING
    assert closing.write_frame(MESSAGE, {})
    await a_turn_of_the_loop()
    assert not closing._protocol.transport.written


async def joined(cls, n: int, group: str = "places") -> list:
    """``n`` spectators of ``cls`` under daphne, listening as ``accept`` has them listen."""
    crowd = [socket(cls, Protocol()) for _ in range(n)]
    for s in crowd:
        await s._listen(group)
    return crowd


def stream_of(group: str, cls) -> frames.Stream:
    return _streams[(group, cls)]


async def test_spectators_share_one_stream_that_listens_while_they_do():
    crowd = await joined(AllPlacesConsumer, 3, "stream-test")
    stream = stream_of("stream-test", AllPlacesConsumer)
    assert broadcast._listeners["stream-test"] == {stream}  # one listener for the crowd
    for s in crowd[:2]:
        s._forget()
    assert broadcast._listeners["stream-test"] == {stream}
    crowd[2]._forget()
    assert not broadcast._listeners["stream-test"]
    assert ("stream-test", AllPlacesConsumer) not in _streams


async def test_a_live_page_s_frames_wait_and_leave_together_a_player_s_wait_one_turn(settings):
    settings.WS_LIVE_FLUSH_SECONDS = 0.01
    (page,) = await joined(LiveConsumer, 1, "live-test")
    stream = stream_of("live-test", LiveConsumer)
    player = socket(PlaceConsumer, Protocol())
    for seq in (1, 2, 3):
        message = dict(MESSAGE, seq=seq)
        assert stream.write_frame(message, {}) and player.write_frame(message, {})
    assert player._protocol.transport.written == []
    await asyncio.sleep(0)  # the loop's next turn: the player's three frames in one write
    assert player._protocol.transport.written == [text_frame('{"a":1}') * 3]
    assert page._protocol.transport.written == []
    await asyncio.sleep(0.05)
    (written,) = page._protocol.transport.written  # one write of three frames
    expected = b"".join(text_frame(f'{{"seq":{seq},"event":{{"a":1}}}}') for seq in (1, 2, 3))
    assert written == expected
    page._forget()


async def test_a_spectator_gets_the_frames_from_when_it_joined_and_none_after_it_left():
    first, leaving = await joined(AllPlacesConsumer, 2, "join-test")
    stream = stream_of("join-test", AllPlacesConsumer)
    stream.write_frame(dict(MESSAGE, text='{"n":1}'), {})
    (late,) = await joined(AllPlacesConsumer, 1, "join-test")
    leaving._forget()
    stream.write_frame(dict(MESSAGE, text='{"n":2}'), {})
    await a_turn_of_the_loop()
    both = text_frame('{"n":1}') + text_frame('{"n":2}')
    assert first._protocol.transport.written == [both]
    assert late._protocol.transport.written == [text_frame('{"n":2}')]
    assert leaving._protocol.transport.written == []
    for s in (first, late):
        s._forget()


async def test_a_crowd_is_written_at_a_pace_its_writes_set(settings, monkeypatch):
    """Writes that take CPU space the flushes out: at most WS_FLUSH_SHARE of the server's
    time goes to them (its CPU: time the machine gave others does not count); every
    frame still arrives, in order, one write a socket a flush."""
    settings.WS_FLUSH_SHARE = 0.25
    crowd = await joined(AllPlacesConsumer, 20, "pace-test")
    stream = stream_of("pace-test", AllPlacesConsumer)
    write = stream.write

    def slow_write(s, data):  # 1 ms of CPU a socket: 20 ms a flush, then 60 ms of rest
        busy_until = time.thread_time() + 0.001
        while time.thread_time() < busy_until:
            pass
        write(s, data)

    monkeypatch.setattr(stream, "write", slow_write)
    loop = asyncio.get_running_loop()
    flushes: list[float] = []
    flush = stream.flush

    def timed_flush():
        flushes.append(loop.time())
        flush()

    monkeypatch.setattr(stream, "flush", timed_flush)
    for seq in range(1, 41):
        assert stream.write_frame(dict(MESSAGE, seq=seq, text=f'{{"n":{seq}}}'), {})
        await asyncio.sleep(0.005)  # events come every 5 ms, faster than the crowd's writes
    everything = b"".join(text_frame(f'{{"n":{seq}}}') for seq in range(1, 41))
    deadline = loop.time() + guard(1.0)  # a loaded machine's last flush comes later
    while loop.time() < deadline and any(
        b"".join(s._protocol.transport.written) != everything for s in crowd
    ):
        await asyncio.sleep(0.05)
    gaps = [b - a for a, b in zip(flushes, flushes[1:], strict=False)]
    assert len(flushes) < 20 and min(gaps) >= 0.06  # not one flush an event
    for s in crowd:
        assert b"".join(s._protocol.transport.written) == everything
        assert len(s._protocol.transport.written) == len(flushes)
        s._forget()


async def test_a_write_to_an_idle_connection_is_one_send_and_the_rest_goes_to_twisted():
    """``frames.send`` on a real Twisted TCP connection: all at once when the kernel takes
    it; what it does not take goes through Twisted's buffer, after, in order."""
    from twisted.internet import tcp

    class Conn(tcp.Connection):
        def __init__(self, takes: int):
            self.connected, self.disconnecting, self._writeDisconnected = True, False, False
            self.dataBuffer, self.offset, self._tempDataLen = b"", 0, 0
            self.sent: list[bytes] = []
            self.buffered: list[bytes] = []
            self.takes = takes

        def getHandle(self):
            conn = self

            class Sock:
                def send(self, data: bytes) -> int:
                    conn.sent.append(data[: conn.takes])
                    return min(len(data), conn.takes)

            return Sock()

        def write(self, data: bytes) -> None:
            self.buffered.append(data)

    everything = Conn(takes=10**6)
    frames.send(everything, b"abcdef")
    assert everything.sent == [b"abcdef"] and everything.buffered == []
    part = Conn(takes=2)
    frames.send(part, b"abcdef")
    assert part.sent == [b"ab"] and part.buffered == [b"cdef"]
    behind = Conn(takes=10**6)
    behind._tempDataLen = 5  # Twisted still holds bytes: they go first
    frames.send(behind, b"abcdef")
    assert behind.sent == [] and behind.buffered == [b"abcdef"]
    tls = Conn(takes=10**6)
    tls.TLS = True  # never around Twisted's encryption
    frames.send(tls, b"abcdef")
    assert tls.sent == [] and tls.buffered == [b"abcdef"]


async def test_a_crowds_flush_lets_the_loop_run_between_its_slices(monkeypatch):
    """A crowd owed megabytes each (a place at pace 0 ending in one change) took half a
    second of one turn of the loop: the flush now writes for ``SLICE_SECONDS`` at a time,
    what came meanwhile waits for the next flush, and each socket's frames stay in order."""
    crowd = await joined(AllPlacesConsumer, 20, "slice-test")
    stream = stream_of("slice-test", AllPlacesConsumer)
    write = stream.write
    between: list[int] = []  # writes done when another callback of the loop ran

    def slow_write(s, data):  # 2 ms a socket: 40 ms for the crowd, 8 slices at least
        busy_until = time.perf_counter() + 0.002
        while time.perf_counter() < busy_until:
            pass
        write(s, data)

    monkeypatch.setattr(stream, "write", slow_write)
    loop = asyncio.get_running_loop()

    def written_so_far() -> int:
        return sum(len(s._protocol.transport.written) for s in crowd)

    def tick():
        between.append(written_so_far())
        if stream.writing or not between[1:]:
            loop.call_soon(tick)

    stream.write_frame(dict(MESSAGE, seq=1, text='{"n":1}'), {})
    stream.write_frame(dict(MESSAGE, seq=2, text='{"n":2}'), {})
    while not stream.writing:
        await asyncio.sleep(0)
    tick()
    stream.write_frame(dict(MESSAGE, seq=3, text='{"n":3}'), {})  # mid-flush
    for _ in range(500):
        if all(len(s._protocol.transport.written) == 2 for s in crowd):
            break
        await asyncio.sleep(0.01)
    partial = [n for n in between if 0 < n < len(crowd)]
    assert len(partial) >= 4, between  # the loop ran between the crowd's writes
    for s in crowd:
        first, then = s._protocol.transport.written
        assert first == text_frame('{"n":1}') + text_frame('{"n":2}')
        assert then == text_frame('{"n":3}')  # the next flush, after the first
        s._forget()
