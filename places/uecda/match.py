"""One UECda match over TCP, as tndhms plays it (UECDA.md §1–6).

:class:`Listener` accepts connections and reads each one's handshake at once
(20070; none within 2 s: 20060, native byte order); it seats them in accept
order, the player number being that order, and sends each its number.
:func:`play_match` plays the games with the engine (:mod:`places.engine.uecda`,
the arena's engine too) in tndhms's message order, each table whole in one write
(a turn's messages to a client leave together), reading full 480-byte tables
however the bytes come. After the last
game every socket has the game state 2 and is closed.

A seat is a :class:`Connection` or a :class:`HouseSeat` (a sample strategy played
in process). A connection that closes passes from then on, as in tndhms, and is
no longer written to. tndhms has no move limit; neither has this server yet.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import socket
from collections.abc import Awaitable, Callable, Sequence

from bots.strategies import UecdaStrategy, UecdaView, uecda_give
from places.engine import uecda as u
from places.engine.rules import UECDA
from places.engine.uecda_legal import legal_moves
from places.engine.uecda_log import Handover, LoggedGame, Refereed, Submission, TndhmsLog
from places.engine.uecda_record import record_of_logged
from places.realtime import broadcast
from places.uecda import wire as w
from places.uecda.watch import TableWatch, watch_for

log = logging.getLogger(__name__)

PORT = 42485
PASS_MOVE = u.analyze(0, 0)
ZERO_TABLE = (0,) * w.CELLS


class Connection:
    """A client's socket. Out: what a turn sends it (accept code, field table, game
    state, next turn table) is queued and goes in one write, each table whole in it,
    before the server next waits for a submission. In: full 480-byte tables."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self.reader = reader
        self.writer = writer
        self.native = False  # 20060: no handshake came
        self.name = ""
        self.alive = True
        self.out: list[bytes] = []
        sock = writer.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def send(self, data: bytes) -> None:
        """Queue bytes for the next :meth:`flush` (tables whole: a write never cuts one)."""
        if self.alive:
            self.out.append(data)

    def flush(self) -> None:
        """Write what is queued in one write."""
        if self.out:
            if self.alive:
                if self.writer.is_closing():
                    self.lost()
                else:
                    self.writer.write(b"".join(self.out))
            self.out.clear()

    def send_table(self, table: Sequence[int]) -> None:
        self.send(w.encode(table, self.native))

    def send_int(self, value: int) -> None:
        self.send(w.encode_int(value, self.native))

    async def read_table(self) -> Sequence[int]:
        """The next table; a closed socket reads as all zeros (a pass), as in tndhms."""
        if not self.alive:
            return ZERO_TABLE
        try:
            self.flush()
            await self.writer.drain()
            data = await self.reader.readexactly(w.TABLE_BYTES)
        except (asyncio.IncompleteReadError, ConnectionError, OSError):
            self.lost()
            return ZERO_TABLE
        return w.decode(data, self.native)

    async def drain(self) -> None:
        self.flush()
        if self.alive:
            try:
                await self.writer.drain()
            except (ConnectionError, OSError):
                self.lost()

    def lost(self) -> None:
        if self.alive:
            log.info("player %r disconnected: it passes from now on", self.name)
        self.alive = False

    async def close(self) -> None:
        self.alive = False
        self.writer.close()
        with contextlib.suppress(ConnectionError, OSError):
            await self.writer.wait_closed()


class HouseSeat:
    """A sample strategy in the seat: it reads the engine's state, no tables."""

    alive = True

    def __init__(self, name: str, strategy: UecdaStrategy):
        self.name = name
        self.strategy = strategy

    def answer(self, g: u.UecdaGame, p: int) -> u.Move:
        view = UecdaView(g.hands[p], g.stage, g.revolution, g.locked, legal_moves(g, p))
        try:
            move = self.strategy(view)
        except Exception:  # a strategy's bug passes, as a dead client does
            log.exception("house strategy %r failed", self.name)
            return PASS_MOVE
        return move if isinstance(move, u.Move) else PASS_MOVE


Seat = Connection | HouseSeat


async def read_handshake(
    conn: Connection, window: float = w.HANDSHAKE_SECONDS, name_chars: int = w.NAME_CHARS
) -> bool:
    """Read a client's first table (20070) or, when none comes in ``window`` s, take it
    as a 20060 client (native byte order). False: the connection closed first, or
    named another protocol (tndhms would never write to it): it takes no seat.
    ``name_chars``: how much of the name to keep (tndhms's 9, or a join code's 14)."""
    try:
        data = await asyncio.wait_for(conn.reader.readexactly(w.TABLE_BYTES), window)
    except TimeoutError:
        conn.native = True
        return True
    except (asyncio.IncompleteReadError, ConnectionError, OSError):
        return False
    table = w.decode(data)
    if table[0] != w.PROTOCOL_20070:
        log.warning("a client sent protocol %d, not %d: closed", table[0], w.PROTOCOL_20070)
        return False
    conn.name = w.handshake_name(table, name_chars)
    return True


def game_record(
    names: Sequence[str],
    deal: u.Deal,
    exchanges: list[u.Exchange],
    hands: tuple[int, ...],
    plays: list[Submission],
    outcomes: list[u.Outcome],
    g: u.UecdaGame,
    drawn: bool,
    head: dict,
    seed: str,
) -> dict:
    """The game's version 2 record, by the importer's recorder: the game as tndhms logs it."""
    logged = LoggedGame(
        number=deal.game_no - 1,
        line=0,
        ranks_before=None if deal.ranks is None else tuple(r - 1 for r in deal.ranks),
        seats=deal.seats,
        dealt=deal.dealt,
        exchange=tuple(
            Handover(x.giver, x.receiver, u.cards_text(x.cards), x.cards) for x in exchanges
        ),
        plays=tuple(plays),
        result=tuple(sorted(range(u.PLAYERS), key=lambda p: g.ranks[p])),
        points=(),
    )
    done = Refereed(
        game=logged,
        turns=len(plays),
        drawn=drawn,
        ranks=g.ranks,
        exchanges=exchanges,
        deal_from=deal.start,
        hands=hands,
        outcomes=outcomes,
        revolution=g.revolution,
    )
    return record_of_logged(TndhmsLog(header={}, names=tuple(names)), done, head, seed or None)


async def play_match(
    seats: Sequence[Seat],
    games: int,
    seed: str,
    head: dict,
    on_game: Callable[[int, dict], Awaitable[None] | None],
    watch: TableWatch | None = None,
) -> u.UecdaMatch:
    """Play ``games`` games on five seats (by player number) in tndhms's message order;
    ``on_game(game_no, record)`` after each. ``watch``: told of the deal, the exchange,
    each submission and each game's end, for the live frames (``places/uecda/watch.py``)."""
    rng = random.Random(seed)
    match = u.UecdaMatch(UECDA)
    names = [s.name for s in seats]
    mibun = list(range(u.PLAYERS))  # the player at each rank, as tndhms keeps it
    conns = [s for s in seats if isinstance(s, Connection)]
    tcp = [p for p, s in enumerate(seats) if isinstance(s, Connection)]
    natives = [isinstance(s, Connection) and s.native for s in seats]

    def same_table_to_all(table: Sequence[int]) -> None:
        encoded: dict[bool, bytes] = {}
        for c in conns:
            data = encoded.get(c.native)
            if data is None:
                data = encoded[c.native] = w.encode(table, c.native)
            c.send(data)

    def flush_all() -> None:
        for c in conns:
            c.flush()

    def int_to_all(value: int) -> None:
        encoded = {False: w.encode_int(value), True: w.encode_int(value, True)}
        for c in conns:
            c.send(encoded[c.native])

    for game_no in range(1, games + 1):
        deal = u.deal_game(match, rng)
        if watch is not None:
            watch.dealt(deal, match)
        first = deal.ranks is None
        counts = [h.bit_count() for h in deal.dealt]
        rank_of = None if first else [r - 1 for r in deal.ranks]
        shown = list(deal.dealt)  # the hinmin and daihinmin see their hands before paying
        to_give = [0] * u.PLAYERS
        if not first:
            paid, _ = u.tribute(deal.dealt, deal.ranks)
            for p, r in enumerate(deal.ranks):
                to_give[p] = 3 - r  # 2, 1, 0, -1, -2: the negatives go out as 0
                if r <= 2:
                    shown[p] = paid[p]
        for p in mibun:
            s = seats[p]
            if isinstance(s, Connection):
                s.send_table(w.delivery_table(shown[p], to_give[p], counts, rank_of, deal.seats))
        choices: list[int | None] = [None, None]
        if not first:
            for i, n in enumerate((2, 1)):
                rich = deal.ranks.index(i + 1)
                s = seats[rich]
                if isinstance(s, HouseSeat):
                    choices[i] = uecda_give(s.strategy, shown[rich], n)
                else:
                    flush_all()
                    choices[i] = w.cards_of_table(await s.read_table())
        g, exchanges = u.start_game(deal, UECDA, *choices)
        if watch is not None:
            watch.started(g, exchanges)
        hands = g.hands
        plays: list[Submission] = []
        outcomes: list[u.Outcome] = []
        drawn = False
        while True:
            shown_ranks = None if first else w.rank_cells(mibun)
            tables = w.turn_table_bytes(g, shown_ranks, deal.seats, natives)
            for c_p in tcp:
                seats[c_p].send(tables[c_p])
            p = g.turn
            s = seats[p]
            if isinstance(s, HouseSeat):
                move = s.answer(g, p)
            else:
                flush_all()
                move = w.move_of_table(await s.read_table())
            before = g
            g, done = u.submit(g, p, move)
            plays.append(Submission(p, move.text(), move.ones, move.twos))
            outcomes.append(done)
            if isinstance(s, Connection):
                s.send_int(w.accept_code(before, done))
            if done.rank:
                mibun[done.rank - 1] = p
            shown_ranks = None if first else w.rank_cells(mibun)
            same_table_to_all(w.field_table(before, g, done, shown_ranks, deal.seats))
            if g.phase == u.DRAW:
                drawn = True
                g = u.settle_draw(g, u.draw_order(g, rng))
            if watch is not None:
                watch.submitted(before, p, move, done, g)
            if g.phase == u.OVER:
                int_to_all(w.MATCH_OVER if game_no == games else w.GAME_OVER)
                break
            int_to_all(w.CONTINUE)
        flush_all()
        mibun = sorted(range(u.PLAYERS), key=lambda q: g.ranks[q])
        match = u.finish_game(match, deal, g)
        if watch is not None:
            watch.ended(match)
        record = game_record(names, deal, exchanges, hands, plays, outcomes, g, drawn, head, seed)
        result = on_game(game_no, record)
        if result is not None:
            await result
    for c in conns:
        await c.drain()
    return match


class Listener:
    """Accepts connections and reads their handshakes at once; seats them in accept order."""

    def __init__(self, handshake_window: float = w.HANDSHAKE_SECONDS):
        self.window = handshake_window
        self.waiting: asyncio.Queue[tuple[Connection, asyncio.Task[bool]]] = asyncio.Queue()
        self.server: asyncio.Server | None = None
        self.port = 0

    async def start(self, host: str, port: int) -> int:
        self.server = await asyncio.start_server(self._accepted, host, port)
        self.port = self.server.sockets[0].getsockname()[1]
        return self.port

    async def _accepted(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        conn = Connection(reader, writer)
        await self.waiting.put((conn, asyncio.create_task(read_handshake(conn, self.window))))

    async def seat(self, count: int) -> list[Connection]:
        """The next ``count`` connections whose handshake succeeded, in accept order,
        each sent its player number (0, 1, … in that order) as soon as it is seated.
        The others are closed; so is the listener once all are seated."""
        seated: list[Connection] = []
        while len(seated) < count:
            conn, task = await self.waiting.get()
            if await task:
                conn.send_int(len(seated))
                await conn.drain()
                seated.append(conn)
            else:
                await conn.close()
        await self.close()
        while not self.waiting.empty():
            conn, task = self.waiting.get_nowait()
            task.cancel()
            await conn.close()
        return seated

    async def close(self) -> None:
        if self.server is not None:
            self.server.close()
            self.server = None


class GameWriter:
    """Stores finished games in order, off the loop: each batch (the games that
    finished while the last was written, or within ``every`` seconds of the first)
    in one transaction on the place's database thread. The match never waits for
    it but at the end. ``every`` 0: each game as soon as it ends (a crash loses
    the game in play and any still queued); more trades that for fewer
    transactions (about 6 ms of CPU each on SQLite, a quarter of a game's cost)."""

    def __init__(self, place_id: int, games: int, every: float = 0.0, most: int = 500):
        self.place_id = place_id
        self.games = games
        self.every = every
        self.most = most
        self.queue: asyncio.Queue[tuple[int, dict]] = asyncio.Queue()
        self.task = asyncio.create_task(self._write())
        self.written = 0

    def put(self, game_no: int, record: dict) -> None:
        self.queue.put_nowait((game_no, record))

    async def _write(self) -> None:
        from places.realtime import db_thread
        from places.services.uecda import store_match_games

        last = 0
        while last < self.games:
            batch = [await self.queue.get()]
            if self.every and batch[0][0] < self.games:
                await asyncio.sleep(self.every)
            while len(batch) < self.most and not self.queue.empty():
                batch.append(self.queue.get_nowait())
            last = batch[-1][0]
            records = [r for _, r in batch]
            await db_thread.run(
                store_match_games, self.place_id, records, last == self.games, place=self.place_id
            )
            self.written += len(records)

    async def finish(self) -> None:
        await self.task

    def cancel(self) -> None:
        self.task.cancel()


async def play_place(
    place_id: int,
    title: str,
    seats: Sequence[Seat],
    games: int,
    seed: str,
    write_every: float = 0.0,
    **options,
) -> u.UecdaMatch:
    """Play a running ``uecda`` place's match on its seats (by player number) and store
    each game as it ends (:class:`GameWriter`): the one way a match here is played and
    kept, by ``uecda_match`` and by the shared server (:mod:`places.uecda.shared`).
    ``options`` go to :func:`play_match`. A write that fails (the place was stopped
    meanwhile: ``store_match_games`` refuses) stops the match, with its error."""
    writer = GameWriter(place_id, games, write_every)
    head = {"id": place_id, "title": title, "games": games}
    watch = await watch_for(place_id, games)
    play = asyncio.ensure_future(play_match(seats, games, seed, head, writer.put, watch, **options))

    def written(task: asyncio.Task) -> None:
        if not task.cancelled() and task.exception() is not None:
            play.cancel()

    writer.task.add_done_callback(written)
    try:
        match = await play
    except BaseException:
        writer.cancel()
        failed = writer.task.done() and not writer.task.cancelled() and writer.task.exception()
        if failed:
            raise failed from None
        raise
    await writer.finish()
    if watch is not None:
        await broadcast.sent()  # the last frames, before a drop-in's process ends
    return match


async def serve_match(
    games: int,
    *,
    host: str = "0.0.0.0",
    port: int = PORT,
    seed: str = "",
    house: Sequence[str] = (),
    title: str = "uecda_match",
    rated: bool = False,
    ready: Callable[[int], None] | None = None,
    handshake_window: float = w.HANDSHAKE_SECONDS,
    write_every: float = 0.0,
) -> tuple[int, float]:
    """Listen, seat ``5 - len(house)`` clients in accept order (the house strategies
    take the last seats), play and store the match; returns the place and the
    seconds from seating to the last game stored. ``ready(port)`` once listening;
    ``write_every``: see :class:`GameWriter`."""
    from bots.strategies import resolve_uecda
    from places.realtime import db_thread
    from places.services.uecda import open_match

    house_seats = [HouseSeat(f"house-{name}", resolve_uecda(name)) for name in house]
    listener = Listener(handshake_window)
    bound = await listener.start(host, port)
    if ready is not None:
        ready(bound)
    try:
        conns = await listener.seat(u.PLAYERS - len(house_seats))
    finally:
        await listener.close()
    seats: list[Seat] = [*conns, *house_seats]
    started = asyncio.get_running_loop().time()
    try:
        place_id = await db_thread.run(
            open_match, title, games, seed, [s.name for s in seats], rated
        )
        await play_place(place_id, title, seats, games, seed, write_every)
    finally:
        for c in conns:
            await c.close()
    return place_id, asyncio.get_running_loop().time() - started
