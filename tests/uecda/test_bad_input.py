"""Bad input over TCP, each case once: garbage tables, wrong versions, tables in pieces, a
handshake cut short, a flood of silent connections, a client that floods, one that never
reads. None crashes the server, holds its memory or stalls the match."""

from __future__ import annotations

import asyncio
import contextlib
import random
import socket
import struct
import threading

import pytest
from asgiref.sync import sync_to_async

from bots.strategies import resolve
from bots.uecda import UecdaClient, UecdaProtocolError
from daifugo import uecda as u
from daifugo import uecda_wire as w
from daifugo.view import BOOK_UECDA
from places.models import Game
from places.uecda import match as m
from tests.uecda.test_match import check_stored, moves_of, serve
from tests.uecda.test_time_limit import played, stored_actions

pytestmark = pytest.mark.django_db(transaction=True)


async def seated(
    port: int, name: str = "me", protocol: w.Protocol = w.PROTOCOL_20070
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    r, wr = await asyncio.open_connection("127.0.0.1", port)
    wr.write(w.encode(w.handshake(name, protocol)))
    assert w.decode_int(await r.readexactly(4)) == 0
    return r, wr


async def play_by_reading(r, wr, answer, protocol: w.Protocol = w.PROTOCOL_20070) -> None:
    """Read the match to its end, sending ``answer(table)`` (bytes) on each request."""
    size = w.table_bytes(protocol)
    while True:
        table = w.decode(await r.readexactly(size), protocol)
        if table[75] == 1:
            if 0 < table[76] < 100:
                wr.write(answer(table))
            continue
        if table[77] == 1:
            wr.write(answer(table))
            assert w.decode_int(await r.readexactly(4)) in (w.ACCEPTED, w.REJECTED)
        await r.readexactly(size)
        if w.decode_int(await r.readexactly(4)) == w.MATCH_OVER:
            return


async def test_garbage_tables_anywhere_are_passes(close_thread_connections):
    rng = random.Random(7)

    def garbage(_table) -> bytes:
        kind = rng.randrange(3)
        if kind == 0:  # any 32-bit values in any cell
            return rng.randbytes(w.TABLE_BYTES)
        if kind == 1:  # 0, 1, 2 anywhere in rows 0–4, and junk below
            cells = [rng.choice((0, 0, 0, 1, 2)) for _ in range(75)]
            return struct.pack(">75I", *cells) + rng.randbytes(w.TABLE_BYTES - 300)
        cells = [0] * w.CELLS  # one card in a joker-only column
        cells[rng.choice((0, 14)) + 15 * rng.randrange(5)] = 1
        return w.encode(cells)

    task, port = await serve(6, seed="garbage", house=["greedy"] * 4)
    r, wr = await seated(port, "garbage")
    await asyncio.wait_for(play_by_reading(r, wr, garbage), 60)
    wr.close()
    place_id, _ = await asyncio.wait_for(task, 60)
    await sync_to_async(check_stored)(place_id, 6)  # every record replays with the engine
    actions = await sync_to_async(stored_actions)(place_id, 0)
    assert actions and {a["verdict"] for a in actions} <= {"pass", "rejected", "play"}


async def test_20140_garbage_strings_in_pieces_are_passes(close_thread_connections):
    """A 20140 client sends what is no 20140 table (any bytes, a joker's cell past rows
    0–4, a character no hex digit) or a play of random cells, each in three pieces: each
    is read whole, in order, and judged, a malformed one as a pass; nothing crashes."""
    from tests.daifugo.test_uecda_wire import MALFORMED

    rng = random.Random(20140)
    turns: list[bytes] = []  # what it sent on its turns (not its exchanges)

    def garbage(table: list[int]) -> bytes:
        kind = rng.randrange(4)
        if kind == 0:
            data = rng.randbytes(w.STRING_CHARS)
        elif kind == 1:
            data = rng.choice([m for m in MALFORMED if len(m) == w.STRING_CHARS])
        else:  # hex digits: random suits, a joker's cell or none, rows 5–6 as they come
            data = bytes(rng.choice(b"0123456789abcdefABCDEF") for _ in range(w.STRING_CHARS))
            data = data[:13] + rng.choice((b"FF", b"%02X" % rng.randrange(75))) + data[15:]
        if table[75] != 1:
            turns.append(data)
        return data

    task, port = await serve(6, seed="garbage-20140", house=["greedy"] * 4)
    r, wr = await seated(port, "garbage", w.PROTOCOL_20140)
    pieces: asyncio.Queue[bytes] = asyncio.Queue()

    class InPieces:
        def write(self, data: bytes) -> None:
            cut = sorted(rng.sample(range(1, len(data)), 2))
            for part in (data[: cut[0]], data[cut[0] : cut[1]], data[cut[1] :]):
                pieces.put_nowait(part)

    async def pump() -> None:
        while True:
            wr.write(await pieces.get())
            await wr.drain()
            await asyncio.sleep(0.001)

    pumping = asyncio.create_task(pump())
    try:
        await asyncio.wait_for(play_by_reading(r, InPieces(), garbage, w.PROTOCOL_20140), 60)
    finally:
        pumping.cancel()
    wr.close()
    place_id, _ = await asyncio.wait_for(task, 60)
    await sync_to_async(check_stored)(place_id, 6)
    actions = await sync_to_async(stored_actions)(place_id, 0)
    read = [w.move_of_bytes(data, w.PROTOCOL_20140) for data in turns]
    assert [a["table"] for a in actions] == [move.text() for move in read]
    malformed = [a for a, move in zip(actions, read, strict=True) if move.kind == u.PASS]
    assert malformed and all(a["verdict"] == "pass" for a in malformed)
    assert len(malformed) < len(actions)  # the hex ones with cells were judged as plays


async def test_the_client_stops_at_a_20140_message_that_is_no_table():
    """The project's client, told a hand in what is no 20140 table, stops with an error
    (``python -m bots`` prints it and exits non-zero), having sent its handshake."""
    from tests.daifugo.test_uecda_wire import MALFORMED

    heard: list[int] = []

    async def server(reader, writer) -> None:
        heard.append(w.decode(await reader.readexactly(w.TABLE_BYTES))[0])
        writer.write(w.encode_int(0) + MALFORMED[-1])

    tcp = await asyncio.start_server(server, "127.0.0.1", 0)
    port = tcp.sockets[0].getsockname()[1]
    client = UecdaClient(
        "127.0.0.1", port, "x", resolve("greedy", None, BOOK_UECDA), protocol=w.PROTOCOL_20140
    )
    async with tcp:
        with pytest.raises(UecdaProtocolError, match="joker's cell 254"):
            await asyncio.wait_for(client.run(), 10)
    assert heard == [20140] and client.summary.player == 0


@pytest.mark.parametrize("version", [0, -1, 20060, 20071, 20141, 2**31 - 1])
async def test_a_wrong_version_is_closed_and_takes_no_seat(version, close_thread_connections):
    task, port = await serve(1, seed="version", house=["greedy"] * 4)
    r, wr = await asyncio.open_connection("127.0.0.1", port)
    wr.write(w.encode(w.handshake("wrong", version=version)))
    assert await asyncio.wait_for(r.read(4), 10) == b""  # closed, no number sent
    r, wr = await seated(port, "right")  # the next connection is player 0
    await play_by_reading(r, wr, lambda _t: bytes(w.TABLE_BYTES))
    place_id, _ = await asyncio.wait_for(task, 60)
    place = await sync_to_async(check_stored)(place_id, 1)
    names = await sync_to_async(lambda: place.players.get(seat=0).user.username)()
    assert names == "right"


async def test_tables_a_byte_at_a_time_are_read_whole(close_thread_connections):
    task, port = await serve(2, seed="bytes", house=["greedy"] * 4)
    r, wr = await asyncio.open_connection("127.0.0.1", port)

    async def dribble(data: bytes) -> None:
        for i in range(len(data)):
            wr.write(data[i : i + 1])
            await wr.drain()
            await asyncio.sleep(0)

    await dribble(w.encode(w.handshake("slow")))
    assert w.decode_int(await r.readexactly(4)) == 0
    greedy = resolve("greedy", None, BOOK_UECDA)
    sent: list[str] = []
    client = UecdaClient("127.0.0.1", port, "slow", greedy)

    async def game() -> bool:  # the project client's game, its submissions dribbled
        real_write = wr.write

        class Dribbling:
            def write(self, data: bytes) -> None:
                pending.append(data)

        pending: list[bytes] = []
        proxy = Dribbling()

        async def pump() -> None:
            while True:
                while pending:
                    data = pending.pop(0)
                    if len(data) == w.TABLE_BYTES:
                        move = w.move_of_bytes(data)
                        if move.ones or move.twos:
                            sent.append(move.text())
                    for i in range(len(data)):
                        real_write(data[i : i + 1])
                        await asyncio.sleep(0)
                await asyncio.sleep(0.001)

        pumping = asyncio.create_task(pump())
        try:
            return await client._game(r, proxy)
        finally:
            pumping.cancel()

    while await asyncio.wait_for(game(), 60):
        pass
    wr.close()
    place_id, _ = await asyncio.wait_for(task, 60)
    await sync_to_async(check_stored)(place_id, 2)
    assert client.summary.rejected == 0 and sent
    assert played(await sync_to_async(stored_actions)(place_id, 0)) == sent


async def test_a_handshake_cut_short_within_the_window_is_closed(close_thread_connections):
    task, port = await serve(1, seed="cut", house=["greedy"] * 4, handshake_window=0.5)
    r, wr = await asyncio.open_connection("127.0.0.1", port)
    wr.write(w.encode(w.handshake("cut"))[:100])
    assert await asyncio.wait_for(r.read(4), 10) == b""  # closed after the window, no seat
    r, wr = await seated(port, "whole")
    await play_by_reading(r, wr, lambda _t: bytes(w.TABLE_BYTES))
    await asyncio.wait_for(task, 60)


async def test_connections_beyond_the_pending_bound_are_closed_at_once():
    listener = m.Listener(handshake_window=30, max_pending=64)
    port = await listener.start("127.0.0.1", 0)
    conns = [await asyncio.open_connection("127.0.0.1", port) for _ in range(200)]
    try:
        closed = await asyncio.gather(*(asyncio.wait_for(r.read(1), 10) for r, _ in conns[64:]))
        assert closed == [b""] * 136  # turned away, long before their window ends
        assert listener.waiting.qsize() == 64 and listener.turned_away == 136
        for r, _ in conns[:64]:
            assert not r.at_eof()
    finally:
        await listener.close()
        for _, wr in conns:
            wr.close()


async def test_a_thousand_silent_connections_change_nothing_in_a_match(close_thread_connections):
    async def match(flood: bool) -> list[dict]:
        task, port = await serve(3, seed="quiet", house=["greedy"] * 4)
        r, wr = await asyncio.open_connection("127.0.0.1", port)
        wr.write(w.encode(w.handshake("bot")))  # first in: it is player 0
        silent = []
        while flood and len(silent) < 1000:
            try:
                silent.append(await asyncio.open_connection("127.0.0.1", port))
            except OSError:  # the match began: the port is closed
                break
        assert w.decode_int(await r.readexactly(4)) == 0
        greedy = UecdaClient("127.0.0.1", port, "bot", resolve("greedy", None, BOOK_UECDA))
        while await asyncio.wait_for(greedy._game(r, wr), 60):
            pass
        wr.close()
        place_id, _ = await asyncio.wait_for(task, 60)
        for sr, swr in silent:
            assert await asyncio.wait_for(sr.read(1), 10) == b""
            swr.close()
        assert greedy.summary.games == 3

        def actions() -> list:
            games = Game.objects.filter(place_id=place_id).order_by("no")
            return [moves_of(g.record["actions"]) for g in games]

        return await sync_to_async(actions)()

    assert await match(True) == await match(False)


async def test_a_client_that_floods_is_closed_and_passes(close_thread_connections):
    task, port = await serve(2, seed="flood", house=["greedy"] * 4)
    r, wr = await seated(port, "flood")
    with pytest.raises(ConnectionError):
        for _ in range(10_000):  # tables of passes, nonstop, reading nothing
            wr.write(bytes(w.TABLE_BYTES))
            await wr.drain()
            await asyncio.sleep(0)
    place_id, _ = await asyncio.wait_for(task, 60)
    await sync_to_async(check_stored)(place_id, 2)
    actions = await sync_to_async(stored_actions)(place_id, 0)
    assert actions and all(a["verdict"] == "pass" for a in actions)


def test_a_client_that_never_reads_is_dropped_and_the_match_ends(
    monkeypatch, close_thread_connections
):
    monkeypatch.setattr(m, "WRITE_STALL_SECONDS", 0.3)
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
    result: dict = {}

    async def main() -> None:
        task, port = await serve(20, seed="deaf", house=["greedy"] * 4, move_seconds=0.05)
        await asyncio.to_thread(sock.connect, ("127.0.0.1", port))
        sock.sendall(w.encode(w.handshake("deaf")))  # and it never reads
        result["place"], _ = await asyncio.wait_for(task, 120)

    thread = threading.Thread(target=lambda: asyncio.run(main()))
    thread.start()
    thread.join(150)
    assert "place" in result  # the match ended
    received = 0
    with contextlib.suppress(ConnectionResetError):
        while data := sock.recv(65536):
            received += len(data)
    sock.close()
    assert received < 300_000  # cut off early: a whole match sends it over a megabyte
    check_stored(result["place"], 20)
    assert all(a["verdict"] == "pass" for a in stored_actions(result["place"], 0))


def raw_handshake(cells: list[int]) -> bytes:
    """A 20070 handshake whose name cells hold any 32-bit ints (negative ones too, which
    ``w.encode`` would send as 0)."""
    table = [w.PROTOCOL_20070] + [0] * (w.CELLS - 1)
    table[w.COLUMNS : w.COLUMNS + len(cells)] = cells
    return struct.pack(f">{w.CELLS}I", *(v & 0xFFFFFFFF for v in table))


#: Name cells of every class no user name holds (issue 36, item 4): each client is seated.
BAD_NAMES = [
    [0xD800, 0xDBFF, 0xDC00, 0xDFFF] * 2,  # lone surrogates: UnicodeEncodeError before
    [-1, 0x110000, 0x7FFFFFFF, -(2**31)],  # no code point
    [0xFFFE, 0xFDD0, 0x1F600, 0x10FFFF],  # noncharacters, beyond the BMP
    [ord("a"), 1, 0x7F, 0x85],  # control characters
]


async def test_any_name_cells_get_a_seat_and_the_match_is_played(close_thread_connections):
    task, port = await serve(1, seed="names", house=["greedy"])
    conns = []
    for p, cells in enumerate(BAD_NAMES):
        r, wr = await asyncio.open_connection("127.0.0.1", port)
        wr.write(raw_handshake(cells))
        assert w.decode_int(await asyncio.wait_for(r.readexactly(4), 10)) == p
        conns.append(wr)
    for wr in conns:
        wr.close()  # they pass from now on: the match still ends
    place_id, _ = await asyncio.wait_for(task, 60)
    names = ["uecda-0", "uecda-1", "uecda-2", "uecda-3", "house-greedy"]
    await sync_to_async(check_stored)(place_id, 1, names)
