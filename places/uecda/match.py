"""One UECda match over TCP, as tndhms plays it (UECDA.md §1–6).

:class:`Listener` accepts connections and reads each one's handshake at once
(its ``[0][0]`` names 20070 or 20140; none within 2 s: 20060, native byte order),
which is that client's protocol for the match; it seats them in accept order, the
player number being that order, and sends each its number.
:func:`play_match` plays the games with the engine (:mod:`daifugo.uecda`,
the arena's engine too) in tndhms's message order, each table whole in a write,
reading full tables (480 bytes; 20140: 33) however the bytes come. What a client is
sent waits until it is asked for a table or the game ends, and then leaves in one write:
the bytes it reads are tndhms's, in tndhms's order, and a client wakes about once a
round rather than at every table. While it waits for a table, a drop-in match polls
its loop for a moment before it sleeps (:meth:`Connection._wait`). After the last
game every socket has the game state 2 and is closed.

A seat is a :class:`Connection` or a :class:`HouseSeat` (a sample strategy played
in process). A connection that closes passes from then on, as in tndhms, and is
no longer written to. tndhms has no move limit; here a place's may apply
(:class:`MoveClock`), and every connection is bounded (:class:`Connection`).
"""

from __future__ import annotations

import asyncio
import logging
import random
import socket
import time
from collections.abc import Awaitable, Callable, Collection, Sequence

from bots.strategies import Strategy, give
from daifugo import uecda as u
from daifugo import uecda_wire as w
from daifugo.deal import drawn_ranks, game_rng
from daifugo.facts import UecdaTurn, judged_turns
from daifugo.infoset import InfoSet, exchange_seen, observe
from daifugo.rules import UECDA, Rules
from daifugo.uecda_log import Handover, LoggedGame, Refereed, Submission, TndhmsLog
from daifugo.uecda_record import record_of_logged
from daifugo.view import BOOK_UECDA, view_uecda
from places.leases import lease_seconds
from places.locked import retried
from places.realtime import broadcast
from places.uecda.watch import TableWatch, watch_for

log = logging.getLogger(__name__)

PORT = 42485
PASS_MOVE = u.analyze(0, 0)


#: Tables a client may send that nobody asked for yet; more is flooding: it is closed.
MAX_UNREAD_TABLES = 4
#: Bytes queued for a client that does not read them; more: it is dropped.
MAX_UNSENT_BYTES = 64 * 1024
#: The kernel's send buffer of a client's socket (a turn sends it about 1 KiB).
KERNEL_SEND_BYTES = 64 * 1024
#: Bytes queued for a client before they go, whether or not it is asked for a table.
QUEUED_BYTES = 8 * 1024
#: Seconds a client's writes may stay undrained (it reads nothing): then it is dropped.
WRITE_STALL_SECONDS = 10.0
#: Connections waiting for their handshake or their seat at once; more are closed at once.
MAX_PENDING = 64
#: Seconds the close at the end waits for a client to take its last bytes.
CLOSE_SECONDS = 5.0
#: Seconds a drop-in match polls for a client's table before it sleeps (:meth:`Connection._wait`).
POLL_SECONDS = 0.0005
#: Seconds the profiles of a match's players may go without counting its stored games.
COUNT_SECONDS = 1.0


def count_due(counted_at: float, now: float) -> bool:
    """Whether a game's write at ``now`` (``time.monotonic()``) has the players' profiles
    count the match's stored games, they having last counted at ``counted_at``: once
    :data:`COUNT_SECONDS` have passed (:class:`GameWriter`)."""
    return now - counted_at >= COUNT_SECONDS


class Connection(asyncio.Protocol):
    """A client's socket, bounded both ways. Out: what the server sends it is queued
    and goes in one write (each table whole in it) when the server next asks it for a
    table, a game ends (:func:`play_match`) or 8 KiB are queued;
    a client that lets more than :data:`MAX_UNSENT_BYTES` pile up, or none of it drain for
    :data:`WRITE_STALL_SECONDS`, is dropped. In: full tables however the bytes come
    (the handshake's 480 bytes, then its protocol's: :meth:`speak`); more than
    :data:`MAX_UNREAD_TABLES` unasked is flooding, and closes it.
    A table asked for but late is owed: the client still sends it, and it is
    discarded when it comes, so that the next table read is the next one asked for.
    A connection dropped or closed passes from then on, and is no longer written to."""

    def __init__(self, on_made: Callable[[Connection], None] | None = None):
        self.on_made = on_made
        self.transport: asyncio.Transport | None = None
        self.protocol = w.PROTOCOL_20070  # its handshake's (20060: none came)
        self.size = w.TABLE_BYTES  # a table's bytes in: the handshake's until it is read
        self.name = ""
        self.sent = ""  # the name as the client sent it, before tndhms's cut (``name``)
        self.alive = True
        self.over = False  # it was told the match is over: its close is expected
        self.out: list[bytes] = []
        self.queued = 0  # bytes in out
        self.buffer = bytearray()
        self.owed = 0  # late tables still to come, to be discarded
        self.waiter: asyncio.Future[bool] | None = None
        self.stall: asyncio.TimerHandle | None = None
        self.closed: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    # -- asyncio.Protocol ----------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  (uvloop's is no subclass)
        transport.set_write_buffer_limits(high=0)  # pause_writing: the kernel took not all
        sock = transport.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            # the kernel's share too: no autotuning up to megabytes for a client that never reads
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, KERNEL_SEND_BYTES)
        if self.on_made is not None:
            self.on_made(self)

    def data_received(self, data: bytes) -> None:
        buffer = self.buffer
        buffer += data
        size = self.size
        while self.owed and len(buffer) >= size:
            del buffer[:size]  # the answer to a request that timed out
            self.owed -= 1
        if len(buffer) > MAX_UNREAD_TABLES * size:
            self.drop("sent more tables than it was asked for")
        elif len(buffer) >= size:
            self._wake(True)

    def eof_received(self) -> None:
        self.lost()

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost()
        if self.stall is not None:
            self.stall.cancel()
        if not self.closed.done():
            self.closed.set_result(None)

    def pause_writing(self) -> None:
        self.stall = asyncio.get_running_loop().call_later(
            WRITE_STALL_SECONDS, self.drop, f"read nothing in {WRITE_STALL_SECONDS:g} s"
        )

    def resume_writing(self) -> None:
        if self.stall is not None:
            self.stall.cancel()
            self.stall = None
        self._wake(True)

    # -- the server's side -----------------------------------------------------------------

    def _wake(self, value: bool) -> None:
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_result(value)

    def send(self, data: bytes) -> None:
        """Queue bytes for the next :meth:`flush` (tables whole: a write never cuts one);
        past :data:`QUEUED_BYTES` they go at once, so that no write outgrows the kernel's
        buffers (a client reading 480 bytes a ``read()`` would find a table cut)."""
        if self.alive:
            self.out.append(data)
            self.queued += len(data)
            if self.queued > QUEUED_BYTES:
                self.flush()

    def flush(self) -> None:
        """Write what is queued in one write."""
        if self.out:
            if self.alive:
                self.transport.write(b"".join(self.out))
                if self.transport.get_write_buffer_size() > MAX_UNSENT_BYTES:
                    self.drop(f"left more than {MAX_UNSENT_BYTES} bytes unread")
            self.out.clear()
            self.queued = 0

    def speak(self, protocol: w.Protocol) -> None:
        """Take ``protocol`` (its handshake's) for the rest of the connection."""
        self.protocol = protocol
        self.size = w.table_bytes(protocol)

    def send_table(self, table: Sequence[int]) -> None:
        self.send(w.encode(table, self.protocol))

    def send_int(self, value: int) -> None:
        self.send(w.encode_int(value, self.protocol))

    async def _wait(
        self, ready: Callable[[], bool], seconds: float | None, poll: float = 0.0
    ) -> bool:
        """Until ``ready()`` or the connection is lost (True), or ``seconds`` pass (False).

        ``poll``: for up to that many seconds first, the loop goes round without sleeping
        (it polls the sockets and runs what is ready) before it waits: waking a process
        from sleep costs a machine's scheduler 50–100 µs (a virtual one's more), longer
        than a stock client takes to answer, and a match of such clients waits for one
        at every turn. A client that takes longer costs that much CPU a turn."""
        loop = asyncio.get_running_loop()
        end = None if seconds is None else loop.time() + seconds  # one deadline, however woken
        if poll and self.alive and not ready():
            stop = time.monotonic() + (poll if seconds is None else min(poll, seconds))
            while self.alive and not ready() and time.monotonic() < stop:
                await asyncio.sleep(0)  # a turn of the loop; its poll of the sockets does not sleep
        while self.alive and not ready():
            waiter = self.waiter = loop.create_future()
            timer = None if end is None else loop.call_at(end, self._wake, False)
            try:
                if not await waiter:
                    return False
            finally:
                self.waiter = None
                if timer is not None:
                    timer.cancel()
        return True

    def has_table(self) -> bool:
        return len(self.buffer) >= self.size

    async def wait_table(self, seconds: float | None = None, poll: float = 0.0) -> bool:
        """Until a whole table is in (or the connection is lost): False if ``seconds`` passed.
        ``poll``: see :meth:`_wait`."""
        return await self._wait(self.has_table, seconds, poll)

    def take_table(self) -> bytes:
        """The first whole table in; an all-zero table (a pass, as in tndhms) when none is."""
        if not self.has_table():
            return w.PASS_TABLES[self.protocol]
        data = bytes(self.buffer[: self.size])
        del self.buffer[: self.size]
        return data

    async def read_bytes(self, seconds: float | None = None, poll: float = 0.0) -> bytes | None:
        """The next table's bytes; None if it did not come within ``seconds`` (it is
        then owed, and discarded when it comes). A lost connection reads as a pass.
        ``poll``: see :meth:`_wait`."""
        self.flush()
        if not await self.wait_table(seconds, poll):
            self.owed += 1
            return None
        return self.take_table()

    async def read_table(self, seconds: float | None = None) -> Sequence[int] | None:
        """:meth:`read_bytes` decoded."""
        data = await self.read_bytes(seconds)
        return None if data is None else w.decode(data, self.protocol)

    def lost(self) -> None:
        if self.alive and not self.over:
            log.info("player %r disconnected: it passes from now on", self.name)
        self.alive = False
        self._wake(True)

    def refuse(self) -> None:
        """Close a connection that takes no seat, at once."""
        self.alive = False
        self.transport.abort()

    def drop(self, why: str) -> None:
        """Close a client that broke a limit, at once (what it was sent is discarded)."""
        if self.alive:
            log.warning("player %r %s: closed, it passes from now on", self.name, why)
        self.lost()
        self.buffer.clear()
        if self.transport is not None:
            self.transport.abort()

    async def close(self) -> None:
        """Close after what is queued has gone, or at once after :data:`CLOSE_SECONDS`."""
        self.flush()
        self.alive = False
        if self.transport is None:
            return
        self.transport.close()
        try:
            await asyncio.wait_for(asyncio.shield(self.closed), CLOSE_SECONDS)
        except TimeoutError:
            self.transport.abort()


class HouseSeat:
    """A sample strategy in the seat: it reads the engine's state, no tables, and is
    given its seat's information set, as the arena gives it (``montecarlo`` plays it
    out)."""

    alive = True

    def __init__(self, name: str, strategy: Strategy):
        self.name = name
        self.strategy = strategy

    def answer(self, g: u.UecdaGame, p: int, info: InfoSet | None = None) -> u.Move:
        view = view_uecda(g, p, info)
        try:
            move = BOOK_UECDA.answer(view, self.strategy(view))
        except Exception:  # a strategy's bug passes, as a dead client does
            log.exception("house strategy %r failed", self.name)
            return PASS_MOVE
        return PASS_MOVE if move is None else move


Seat = Connection | HouseSeat


class MoveClock:
    """A place's time limit per move and bank per game (rules.md §11, tournaments.md "The
    time bank"), for the moves read over TCP: a move may run past the limit while its
    player's bank for the game lasts; what it runs past comes off the bank, and a late
    move spends all of it. ``seconds`` None: no limit, as in tndhms. ``poll``: how long
    each read polls before it sleeps (:meth:`Connection._wait`)."""

    def __init__(self, seconds: float | None, bank: float = 0.0, poll: float = 0.0):
        self.seconds = seconds
        self.bank = bank
        self.poll = poll
        self.banks = [bank] * u.PLAYERS

    def new_game(self) -> None:
        """Every game fills every bank again."""
        self.banks = [self.bank] * u.PLAYERS

    async def read(self, conn: Connection, p: int) -> bytes | None:
        """Player ``p``'s next table, or None when it is late (the table is then owed)."""
        if self.seconds is None:
            return await conn.read_bytes(None, self.poll)
        loop = asyncio.get_running_loop()
        started = loop.time()
        data = await conn.read_bytes(self.seconds + self.banks[p], self.poll)
        if data is None:
            self.banks[p] = 0.0
        else:
            overrun = loop.time() - started - self.seconds
            if overrun > 0:
                self.banks[p] = max(0.0, self.banks[p] - overrun)
        return data


async def read_handshake(
    conn: Connection, window: float = w.HANDSHAKE_SECONDS, name_chars: int = w.NAME_CHARS
) -> bool:
    """Read a client's first table (480 bytes, as 20070) and take the protocol its
    ``[0][0]`` names, 20070 or 20140; or, when nothing comes in ``window`` s, take it as a
    20060 client (native byte order). False: the connection closed first, sent only
    part of a table within the window, or named another protocol (tndhms would never
    write to it): it takes no seat. ``name_chars``: how much of the name to keep
    (tndhms's 9, or a join code's 14)."""
    if not await conn.wait_table(window):
        if conn.buffer:
            log.warning("a client sent %d bytes of its handshake in %g s: closed",
                        len(conn.buffer), window)  # fmt: skip
            return False
        conn.speak(w.PROTOCOL_20060)
        return True
    if not conn.has_table():
        return False
    table = w.decode(conn.take_table())
    if table[0] not in w.HANDSHAKE_PROTOCOLS:
        log.warning("a client sent protocol %d, not 20070 or 20140: closed", table[0])
        return False
    conn.speak(w.Protocol(table[0]))
    conn.name = w.handshake_name(table, name_chars)
    conn.sent = w.handshake_name(table, w.HANDSHAKE_CHARS)
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
    late: Collection[int] = (),
    think_ms: Sequence[float] | None = None,
    rules: Rules = UECDA,
) -> dict:
    """The game's version 2 record, by the importer's recorder: the game as tndhms logs it;
    ``late``: the turns whose move came past the time limit (:class:`MoveClock`);
    ``think_ms``: each move's time from asking to answer."""
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
        rules=rules,
        exchange_ranks=deal.exchange_ranks,
    )
    return record_of_logged(
        TndhmsLog(header={}, names=tuple(names)), done, head, seed or None, late, think_ms
    )


async def play_match(
    seats: Sequence[Seat],
    games: int,
    seed: str,
    head: dict,
    on_game: Callable[[int, dict, list[UecdaTurn]], Awaitable[None] | None],
    watch: TableWatch | None = None,
    *,
    move_seconds: float | None = None,
    bank_seconds: float = 0.0,
    poll_seconds: float = 0.0,
    rules: Rules = UECDA,
    duplicate: bool = False,
) -> u.UecdaMatch:
    """Play ``games`` games on five seats (by player number) in tndhms's message order;
    ``on_game(game_no, record, judged)`` after each (``judged``: its submissions as the
    engine judged them, ``facts.judged_turns``: what the store counts without playing the
    game again), awaited (when it returns an awaitable) before the clients hear that the
    game is over. ``watch``: told of the deal, the
    exchange, each submission and each game's end, for the live frames
    (``places/uecda/watch.py``). ``move_seconds``: each move's time limit,
    ``bank_seconds`` each player's bank per game (:class:`MoveClock`), ``poll_seconds``
    how long a read polls before it sleeps (:meth:`Connection._wait`). ``rules``: the
    ``uecda`` variant played. ``duplicate`` (a duplicate tournament's table): each game
    draws its seats, deal and draw from a source of its own, the seed's and its number's
    (``game_rng``), and its exchange follows ranks drawn from them (``drawn_ranks``), not
    the game before's: every place of the seed deals game k alike, player number by
    player number.

    When a client is asked for its move, what it is owed goes at once, in one write: a
    write and a wake-up a turn. (Sending the next player's tables early too, while this
    one thinks, cost a second of each and gained nothing: docs/benchmarks.md.)"""
    rng = random.Random(seed)
    if duplicate:
        head = {**head, "duplicate_deals": True}
    clock = MoveClock(move_seconds, bank_seconds, poll_seconds)
    match = u.UecdaMatch(rules)
    names = [s.name for s in seats]
    mibun = list(range(u.PLAYERS))  # the player at each rank, as tndhms keeps it
    conns = [s for s in seats if isinstance(s, Connection)]
    tcp = [p for p, s in enumerate(seats) if isinstance(s, Connection)]
    protocols = [s.protocol if isinstance(s, Connection) else w.PROTOCOL_20070 for s in seats]

    def field_to_all(
        before: u.UecdaGame,
        g: u.UecdaGame,
        done: u.Outcome,
        rank_of: Sequence[int] | None,
        seats_of: Sequence[int],
        then: int | None,
        code: int,
    ) -> None:
        """A submission's field table to all, ``then`` (the game state, None: none yet) after
        it, and the mover's accept code before it: a send to each (what each is sent
        goes whole in one write anyway)."""
        encoded: dict[w.Protocol, bytes] = {}
        for c_p in tcp:
            c = seats[c_p]
            data = encoded.get(c.protocol)
            if data is None:
                data = w.field_table_bytes(before, g, done, rank_of, seats_of, c.protocol)
                if then is not None:
                    data += w.encode_int(then, c.protocol)
                encoded[c.protocol] = data
            c.send(w.encode_int(code, c.protocol) + data if c_p == done.player else data)

    def flush_all() -> None:
        for c in conns:
            c.flush()

    def int_to_all(value: int) -> None:
        for c in conns:
            c.send(w.encode_int(value, c.protocol))

    for game_no in range(1, games + 1):
        if duplicate:
            rng = game_rng(seed, game_no)
            deal = u.deal_game(match, rng, drawn_ranks(seed, game_no))
            if deal.ranks is not None:  # the ranks drawn, as the clients are told them
                mibun = sorted(range(u.PLAYERS), key=lambda q: deal.ranks[q])
        else:
            deal = u.deal_game(match, rng)
        clock.new_game()
        if watch is not None:
            watch.dealt(deal, match)
        first = deal.ranks is None
        given = deal.exchange_ranks
        counts = [h.bit_count() for h in deal.dealt]
        rank_of = None if first else [r - 1 for r in deal.ranks]
        shown = list(deal.dealt)  # the hinmin and daihinmin see their hands before paying
        to_give = [0] * u.PLAYERS
        if given is not None:
            paid, _ = u.tribute(deal.dealt, given)
            for p, r in enumerate(given):
                to_give[p] = 3 - r  # 2, 1, 0, -1, -2: the negatives go out as 0
                if r <= 2:
                    shown[p] = paid[p]
        for p in mibun:
            s = seats[p]
            if isinstance(s, Connection):
                s.send_table(w.delivery_table(shown[p], to_give[p], counts, rank_of, deal.seats))
        choices: list[int | None] = [None, None]
        erased = [0, 0]  # what a joker written over a card of the rich erases (tndhms)
        if given is not None:
            for i, n in enumerate((2, 1)):
                rich = given.index(i + 1)
                s = seats[rich]
                if isinstance(s, HouseSeat):
                    choices[i] = give(s.strategy, shown[rich], n)
                else:
                    data = await clock.read(s, rich)  # late: the strongest, as tndhms
                    if data is not None:
                        cells = w.cells_of_bytes(data, s.protocol)
                        choices[i] = u.cards_of_cells(*cells)
                        erased[i] = u.erased_by(*cells)
        g, exchanges = u.start_game(deal, rules, *choices, (erased[0], erased[1]))
        gave_seen, paid_seen = exchange_seen(
            u.PLAYERS, ((x.giver, x.receiver, x.cards) for x in exchanges), deal.exchange_ranks
        )
        played = 0  # every card played this game: the house seats' information sets
        if watch is not None:
            watch.started(g, exchanges)
        hands = g.hands
        plays: list[Submission] = []
        outcomes: list[u.Outcome] = []
        late: list[int] = []  # the turns past the time limit: passes, marked in the record
        think_ms: list[float] = []  # each move's, from its table's flush to its answer
        drawn = False
        shown_ranks = None if first else w.rank_cells(mibun)
        while True:
            tables = w.turn_table_bytes(g, shown_ranks, deal.seats, protocols)
            for c_p in tcp:
                seats[c_p].send(tables[c_p])
            p = g.turn
            s = seats[p]
            asked = time.perf_counter()
            if isinstance(s, HouseSeat):
                move = s.answer(g, p, observe(g, p, played, gave_seen[p], paid_seen[p]))
            else:
                data = await clock.read(s, p)  # its read flushes what it is owed
                move = PASS_MOVE if data is None else w.move_of_bytes(data, s.protocol)
                if data is None:
                    late.append(len(plays) + 1)
            think_ms.append((time.perf_counter() - asked) * 1000)
            before = g
            g, done = u.submit(g, p, move)
            if done.accepted:
                played |= done.move.cards
            plays.append(Submission(p, move.text(), move.ones, move.twos))
            outcomes.append(done)
            code = 0
            if isinstance(s, Connection):
                code = w.REJECTED if data is None else w.accept_code(before, done)
            if done.rank:
                mibun[done.rank - 1] = p
                if not first:
                    shown_ranks = w.rank_cells(mibun)
            field_to = g  # the field table shows the submission, before a draw's ranks
            if g.phase == u.DRAW:
                drawn = True
                g = u.settle_draw(g, u.draw_order(g, rng))
            if watch is not None:
                watch.submitted(before, p, move, done, g)
            over = g.phase == u.OVER
            then = None if over else w.CONTINUE
            field_to_all(before, field_to, done, shown_ranks, deal.seats, then, code)
            if over:
                break
        mibun = sorted(range(u.PLAYERS), key=lambda q: g.ranks[q])
        match = u.finish_game(match, deal, g)
        if watch is not None:
            watch.ended(match)
        record = game_record(
            names, deal, exchanges, hands, plays, outcomes, g, drawn, head, seed, late, think_ms,
            rules,
        )  # fmt: skip
        result = on_game(game_no, record, judged_turns(record, outcomes))
        if result is not None:
            flush_all()  # the clients read the game's last tables while it is stored
            await result  # stored before anyone hears the game is over
        int_to_all(w.MATCH_OVER if game_no == games else w.GAME_OVER)
        flush_all()
    for c in conns:
        c.over = True
    return match


class Listener:
    """Accepts connections and reads their handshakes at once; seats them in accept order.

    At most ``max_pending`` connections wait for their handshake or their seat at a
    time; one more is closed as it comes (tndhms seats the first five silent clients
    as 20060 after 2 s; so does this, and a flood of them costs no more than that)."""

    def __init__(
        self, handshake_window: float = w.HANDSHAKE_SECONDS, max_pending: int = MAX_PENDING
    ):
        self.window = handshake_window
        self.max_pending = max_pending
        self.waiting: asyncio.Queue[tuple[Connection, asyncio.Task[bool]]] = asyncio.Queue()
        self.server: asyncio.Server | None = None
        self.port = 0
        self.turned_away = 0
        self.closed = False

    async def start(self, host: str, port: int) -> int:
        loop = asyncio.get_running_loop()
        self.server = await loop.create_server(lambda: Connection(self._accepted), host, port)
        self.port = self.server.sockets[0].getsockname()[1]
        return self.port

    def _accepted(self, conn: Connection) -> None:
        if self.closed:  # accepted just before the listener closed
            conn.refuse()
            return
        if self.waiting.qsize() >= self.max_pending:
            if not self.turned_away:
                log.warning(
                    "more than %d connections wait for a seat: closing more", self.max_pending
                )
            self.turned_away += 1
            conn.refuse()
            return
        self.waiting.put_nowait((conn, asyncio.create_task(read_handshake(conn, self.window))))

    async def seat(self, count: int) -> list[Connection]:
        """The next ``count`` connections whose handshake succeeded, in accept order,
        each sent its player number (0, 1, … in that order) as soon as it is seated.
        The others are closed; so is the listener once all are seated."""
        seated: list[Connection] = []
        while len(seated) < count:
            conn, task = await self.waiting.get()
            if await task:
                conn.send_int(len(seated))
                conn.flush()
                seated.append(conn)
            else:
                conn.refuse()
        await self.close()
        while not self.waiting.empty():
            conn, task = self.waiting.get_nowait()
            task.cancel()
            conn.refuse()
        return seated

    async def close(self) -> None:
        self.closed = True
        if self.server is not None:
            self.server.close()
            self.server = None


class GameWriter:
    """Stores finished games in order, each batch in one transaction on the place's
    database thread (off the loop).

    ``every`` None (the default): each game as it ends, the match waiting for its
    commit before the clients hear the game is over, so that a crash loses at most
    the game in play. A number: the games are written behind the match, each batch
    being the games that ended while the last was written (or within ``every``
    seconds of the first): fewer transactions, and a crash loses the games not yet
    written too (up to ``every`` seconds of them; with 0, the one that just ended).

    The players' profiles count the games stored in the write after
    :data:`COUNT_SECONDS` have passed since they last did, and in the last one
    (``store_match_games``'s ``count``): counting took 40 % of a game's write. It hands
    the store each game's submissions as the match judged them, kept until they are
    counted, so that no stored game is played again to be counted or indexed.
    """

    def __init__(self, place_id: int, games: int, every: float | None = None, most: int = 500):
        self.place_id = place_id
        self.games = games
        self.every = every
        self.most = most
        self.queue: asyncio.Queue[tuple[int, dict, list[UecdaTurn]]] = asyncio.Queue()
        self.players: list | None = None  # the place's, read by the first write
        self.uncounted: dict[int, list[UecdaTurn]] = {}  # stored, judged, not counted yet
        self.counted_at = time.monotonic()  # when the profiles last counted the games
        self.task = None if every is None else asyncio.create_task(self._write())

    def put(self, game_no: int, record: dict, judged: list[UecdaTurn]) -> Awaitable[None] | None:
        """Store a finished game: an awaitable of its commit, or None when written behind."""
        if self.task is None:
            return self._store([(game_no, record, judged)], game_no == self.games)
        self.queue.put_nowait((game_no, record, judged))
        return None

    async def _store(self, games: list[tuple[int, dict, list[UecdaTurn]]], over: bool) -> None:
        from places.realtime import db_thread
        from places.services.uecda import store_match_games

        now = time.monotonic()
        count = count_due(self.counted_at, now)
        self.uncounted.update((no, judged) for no, _, judged in games)
        records = [record for _, record, _ in games]
        self.players = await db_thread.run(
            retried, store_match_games, self.place_id, records, over, self.players, count,
            self.uncounted, place=self.place_id,
        )  # fmt: skip
        if count:
            self.counted_at = now
            self.uncounted = {}

    async def _write(self) -> None:
        last = 0
        while last < self.games:
            batch = [await self.queue.get()]
            if self.every and batch[0][0] < self.games:
                await asyncio.sleep(self.every)
            while len(batch) < self.most and not self.queue.empty():
                batch.append(self.queue.get_nowait())
            last = batch[-1][0]
            await self._store(batch, last == self.games)

    async def finish(self) -> None:
        if self.task is not None:
            await self.task

    def cancel(self) -> None:
        if self.task is not None:
            self.task.cancel()


async def keep_lease(place_id: int) -> None:
    """Renew this process's lease on the place (``renew_match``) while the match lasts."""
    from places.realtime import db_thread
    from places.services.uecda import renew_match

    while True:
        await asyncio.sleep(lease_seconds() / 4)
        await db_thread.run(retried, renew_match, place_id, place=place_id)


async def play_place(
    place_id: int,
    title: str,
    seats: Sequence[Seat],
    games: int,
    seed: str,
    write_every: float | None = None,
    **options,
) -> u.UecdaMatch:
    """Play a running ``uecda`` place's match on its seats (by player number) and store
    each game as it ends (:class:`GameWriter`; ``write_every`` None: committed before its
    clients hear it end), this process keeping its lease on the place meanwhile
    (:func:`keep_lease`): the one way a match here is played and kept, by
    ``uecda_match`` and by the shared server (:mod:`places.uecda.shared`).
    ``options`` go to :func:`play_match`. A write that fails (the place was stopped
    meanwhile: ``store_match_games`` refuses) stops the match, with its error."""
    writer = GameWriter(place_id, games, write_every)
    head = {"id": place_id, "title": title, "games": games}
    watch = await watch_for(place_id, games)
    lease = asyncio.create_task(keep_lease(place_id))
    play = asyncio.ensure_future(play_match(seats, games, seed, head, writer.put, watch, **options))

    def written(task: asyncio.Task) -> None:
        if not task.cancelled() and task.exception() is not None:
            play.cancel()

    if writer.task is not None:
        writer.task.add_done_callback(written)
    try:
        try:
            match = await play
        except BaseException:
            writer.cancel()
            task = writer.task
            failed = task is not None and task.done() and not task.cancelled() and task.exception()
            if failed:
                raise failed from None
            raise
        await writer.finish()  # games written behind: still this process's place meanwhile
    finally:
        lease.cancel()
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
    opened: Callable[[int], None] | None = None,
    seated: Callable[[Sequence[Connection]], None] | None = None,
    handshake_window: float = w.HANDSHAKE_SECONDS,
    write_every: float | None = None,
    move_seconds: float | None = None,
    bank_seconds: float = 0.0,
    poll_seconds: float = POLL_SECONDS,
    rules: Rules = UECDA,
) -> tuple[int, float]:
    """Listen, seat ``5 - len(house)`` clients in accept order (the house strategies
    take the last seats), play and store the match; returns the place and the
    seconds from seating to the last game stored. ``ready(port)`` once listening,
    ``opened(place)`` once the place is made (``uecda_match --watch`` prints its page);
    ``seated(connections)`` once the clients are seated, in player order (the command
    says which names tndhms's 9 characters cut);
    ``write_every``: see :class:`GameWriter`; ``move_seconds`` and ``bank_seconds``:
    the place's time limit and bank (:class:`MoveClock`), checked before listening;
    ``poll_seconds``: how long a read polls before it sleeps (:meth:`Connection._wait`:
    a drop-in has the machine to itself, and its clients are often quick); ``rules``: the
    ``uecda`` variant played (tndhms's cfg, ``uecda_match --config``)."""
    from bots.strategies import resolve
    from places.realtime import db_thread
    from places.services.uecda import abort_orphaned_matches, check_clock, open_match

    check_clock(move_seconds, bank_seconds)
    await db_thread.run(retried, abort_orphaned_matches)
    house_seats = [HouseSeat(f"house-{name}", resolve(name, None, BOOK_UECDA)) for name in house]
    listener = Listener(handshake_window)
    bound = await listener.start(host, port)
    if ready is not None:
        ready(bound)
    try:
        conns = await listener.seat(u.PLAYERS - len(house_seats))
    finally:
        await listener.close()
    if seated is not None:
        seated(conns)
    seats: list[Seat] = [*conns, *house_seats]
    started = asyncio.get_running_loop().time()
    try:
        place_id = await db_thread.run(
            retried, open_match, title, games, seed, [s.name for s in seats], rated,
            move_seconds, bank_seconds, rules.variant,
        )  # fmt: skip
        if opened is not None:
            opened(place_id)
        await play_place(
            place_id, title, seats, games, seed, write_every,
            move_seconds=move_seconds, bank_seconds=bank_seconds, poll_seconds=poll_seconds,
            rules=rules,
        )  # fmt: skip
    finally:
        for c in conns:
            await c.close()
    return place_id, asyncio.get_running_loop().time() - started
