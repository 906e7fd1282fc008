"""How a match waits for its clients: a read polls its loop before it sleeps, within the
move's time limit, and the player after the one asked gets what it is owed at once."""

from __future__ import annotations

import asyncio
import time

import pytest

from daifugo import uecda as u
from daifugo import uecda_wire as w
from places.uecda import match as m
from tests.timing import guard
from tests.uecda.test_match import moves_of


async def connected() -> tuple[m.Connection, asyncio.StreamReader, asyncio.StreamWriter]:
    """A server-side :class:`~places.uecda.match.Connection` and its client's streams."""
    loop = asyncio.get_running_loop()
    made: asyncio.Future[m.Connection] = loop.create_future()
    server = await loop.create_server(lambda: m.Connection(made.set_result), "127.0.0.1", 0)
    reader, writer = await asyncio.open_connection("127.0.0.1", server.sockets[0].getsockname()[1])
    conn = await made
    server.close()
    return conn, reader, writer


async def test_a_read_that_polls_takes_the_table_that_comes_meanwhile():
    conn, _, writer = await connected()
    table = w.table_of_move(u.move_of_text("D3"))

    async def answer() -> None:
        await asyncio.sleep(0.01)
        writer.write(w.encode(table))

    sent = asyncio.create_task(answer())
    data = await conn.read_bytes(None, poll=5.0)
    await sent
    assert data == w.encode(table)
    writer.close()


async def test_the_poll_ends_with_the_time_limit():
    conn, _, writer = await connected()
    started = time.monotonic()
    assert await conn.read_bytes(0.05, poll=30.0) is None  # late: a pass
    assert time.monotonic() - started < guard(10)  # not the 30 s of polling
    assert conn.owed == 1
    writer.close()


async def test_a_client_gone_while_the_server_polls_reads_as_a_pass():
    conn, _, writer = await connected()

    async def leave() -> None:
        await asyncio.sleep(0.01)
        writer.close()

    left = asyncio.create_task(leave())
    assert (
        await asyncio.wait_for(conn.read_bytes(None, poll=30.0), 10)
        == w.PASS_TABLES[w.PROTOCOL_20070]
    )
    await left
    assert not conn.alive


class Recorded(m.Connection):
    """A seat that answers at once with a pass, noting at each of its reads which seats
    had tables left unsent."""

    def __init__(self, name: str, seats: list[Recorded], unsent_at_reads: list[list[bool]]):
        super().__init__()
        self.name = name
        self.seats = seats
        self.unsent_at_reads = unsent_at_reads

    def flush(self) -> None:
        self.out.clear()
        self.queued = 0

    async def read_bytes(self, seconds: float | None = None, poll: float = 0.0) -> bytes:
        self.flush()
        self.unsent_at_reads.append([bool(s.out) for s in self.seats])
        return w.PASS_TABLES[w.PROTOCOL_20070]


async def test_the_one_asked_gets_what_it_is_owed_at_once_the_others_at_their_turn(
    monkeypatch,
):
    unsent: list[list[bool]] = []
    seats: list[Recorded] = []
    seats.extend(Recorded(f"p{i}", seats, unsent) for i in range(5))
    turns: list[u.UecdaGame | None] = []  # the position of each read (None: an exchange's)
    turn_tables = w.turn_table_bytes

    def noted(g: u.UecdaGame, *args) -> list[bytes]:
        turns.append(g)
        return turn_tables(g, *args)

    read = m.MoveClock.read

    async def noted_read(clock: m.MoveClock, conn: m.Connection, p: int) -> bytes | None:
        if len(turns) == len(unsent):  # no turn table since the last read: an exchange
            turns.append(None)
        return await read(clock, conn, p)

    monkeypatch.setattr(w, "turn_table_bytes", noted)
    monkeypatch.setattr(m.MoveClock, "read", noted_read)
    await m.play_match(seats, 3, "ahead", {"id": 0, "title": "t", "games": 3}, lambda *_: None)
    assert len(turns) == len(unsent) > 50
    moves = [(g, flags) for g, flags in zip(turns, unsent, strict=True) if g is not None]
    assert not any(flags[g.turn] for g, flags in moves)
    # the others are written to when their own turn comes, not at every table: the next
    # to be asked most often still has this turn's tables waiting
    assert sum(flags[g.next_of[g.turn]] for g, flags in moves) > len(moves) / 2


@pytest.mark.django_db(transaction=True)
async def test_a_match_plays_the_same_whether_it_polls_or_not(close_thread_connections):
    """Polling changes when the server looks, not what it reads: the same seed and clients,
    the same games."""
    from asgiref.sync import sync_to_async

    from bots.strategies import resolve
    from bots.uecda import UecdaClient
    from daifugo.view import BOOK_UECDA
    from places.models import Game
    from tests.uecda.test_match import serve

    def actions(place_id: int) -> list[list[dict]]:
        games = Game.objects.filter(place_id=place_id).order_by("no")
        return [moves_of(g.record["actions"]) for g in games]

    played = []
    for poll in (0.0, 0.5):
        task, port = await serve(
            3, seed="poll", house=["greedy", "shedder", "greedy"], poll_seconds=poll
        )
        await asyncio.gather(
            *(UecdaClient("127.0.0.1", port, f"c{i}", resolve("greedy", None, BOOK_UECDA)).run()
              for i in range(2))
        )  # fmt: skip
        place_id, _ = await asyncio.wait_for(task, 60)
        played.append(await sync_to_async(actions)(place_id))
    assert len(played[0]) == 3 and played[0] == played[1]
