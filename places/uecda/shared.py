"""The shared server's UECda port: the clients of every ``uecda`` place, each in its seat.

``python -m daihinmin.serve`` opens it (``UECDA_PORT``, 42485) on daphne's loop, so a
match runs in the process whose sockets its spectators read. A client sends the
handshake (20070, or 20140: its protocol for the match) with its seat's join code as
its name (the stock client's ``-n``, 14 characters); the code names the place and the
seat (:mod:`places.reads.join_codes`), and the client is sent that seat's number as
its player number. A ``uecda`` tournament entrant's one code names its seat at its
first table not over, in table order: its client connects again after each match for
the next table. A 20060 client (no handshake: no name), a code that opens no waiting
seat, or the code of a seat already connected gets no seat and is told nothing: the
connection is closed. So is an entrant's code while its tournament has not started,
while its table is played, or once it has no table left (logged with that reason; not
a name that opens no seat, below). A client that leaves, or sends a table, before its
match starts frees its seat.

What one client address may take (an IPv6 address's /64 counts as one, :func:`address_of`):

- **Handshakes under way.** At most :data:`~places.uecda.match.MAX_PENDING` connections
  wait for their handshake (or their code's lookup) at a time, and at most
  :data:`PENDING_PER_ADDRESS` of one address. A connection past either is closed as it
  comes, unless the port is full and another address holds more than its own: then the
  oldest connection of the address holding the most gives up its slot. A silent
  connection holds its slot for the handshake window (tndhms's 2 s) at most; so one
  address, or a few, re-opening silent connections as fast as they can never keep
  another address's client from its seat.
- **Names that open no seat** (a wrong code, or none: a 20060 client). After
  :data:`WRONG_CODES_PER_ADDRESS` of them within :data:`WRONG_CODES_SECONDS` of its
  first, the address's connections are closed as they come, unheard, until that window
  ends. Counted in this process: the port has one process (the first of
  ``deploy/serve_prod.py``'s), and a count on the loop costs a guess no round trip.

The log says what an address did, not each connection: its first refusal of each kind
at INFO (its first name that opens no seat, its first connection closed as it came), a
WARNING when it is held back, and at its window's end one INFO line with the counts,
when there was more than one of either.

A place stopped while it waits (staff's Stop: its ``end_place`` event, heard as any
listener of the every-place stream hears it, from this process or through the relay of
another) ends its seated clients as a match's end does: the game state 2 (match over),
then the close. Without Redis another process's events reach nobody here
(``manage.py stop_place`` stops a waiting place in its own process): every
:data:`STOP_POLL_SECONDS` the port reads which of its waiting places are over, and ends
those too.

Once every seat of a place that no house bot plays is connected, the match starts
(:func:`places.services.uecda_seats.begin_match`): the house seats are
:class:`~places.uecda.match.HouseSeat`s of their bots' strategies, and
:func:`~places.uecda.match.play_place` plays the place's games and stores each as it
ends. The connections are closed after the last game, as tndhms does.
"""

from __future__ import annotations

import asyncio
import collections
import hashlib
import ipaddress
import logging
import socket
from dataclasses import dataclass, field

from bots.strategies import resolve
from daifugo import uecda as u
from daifugo import uecda_wire as w
from daifugo.view import BOOK_UECDA
from places import errors
from places.locked import retried
from places.reads.join_codes import NoSeatNow, ended_among, seat_of_code
from places.realtime import broadcast, db_thread
from places.services import uecda_seats
from places.uecda.match import (
    MAX_PENDING,
    Connection,
    HouseSeat,
    Seat,
    play_place,
    read_handshake,
)

log = logging.getLogger(__name__)

#: Handshakes one address may have under way at once (of ``MAX_PENDING`` in all): a
#: client's lasts the milliseconds its code's lookup takes, a silent one's the
#: handshake window; room for a machine starting a table's clients all at once.
PENDING_PER_ADDRESS = 16
#: Names that open no seat (a wrong code, none) one address may send in a window of
#: ``WRONG_CODES_SECONDS`` from its first; past them its connections are closed as
#: they come until the window ends (a mistyped code is retried a few times, never 20).
WRONG_CODES_PER_ADDRESS = 20
WRONG_CODES_SECONDS = 60.0
#: The places whose ``end_place`` was heard lately: a client whose code's lookup saw
#: its place waiting just before the stop is not seated in it (a place that ended
#: never waits again).
ENDED_REMEMBERED = 256
#: Seconds between two reads of which waiting places are over (stopped by another process).
STOP_POLL_SECONDS = 1.0


@dataclass
class Waiting:
    """A place's seats connected so far, and the tasks that notice a client leave."""

    coded: int
    conns: dict[int, Connection] = field(default_factory=dict)
    watches: dict[int, asyncio.Task] = field(default_factory=dict)


@dataclass
class Strikes:
    """What one address did in its window (:data:`WRONG_CODES_SECONDS` from its first
    strike), for its bound and its log lines."""

    wrong: int = 0  # names that opened no seat
    turned_away: int = 0  # connections closed as they came
    timer: asyncio.TimerHandle | None = None


def _peer(conn: Connection) -> str:
    peer = None if conn.transport is None else conn.transport.get_extra_info("peername")
    return f"{peer[0]}:{peer[1]}" if isinstance(peer, tuple) else "?"


def address_of(conn: Connection) -> str:
    """Whom a connection's bounds count it for: its IPv4 address (an IPv4-mapped IPv6
    one too), or its IPv6 address's /64, which one machine gets whole."""
    peer = None if conn.transport is None else conn.transport.get_extra_info("peername")
    if not isinstance(peer, tuple):
        return "?"
    try:
        ip = ipaddress.ip_address(str(peer[0]).split("%", 1)[0])
    except ValueError:
        return str(peer[0])
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


def tell_over(conn: Connection) -> None:
    """Queue the game state 2 (the match is over), as a match's end sends it: the client
    of a place that ended before its match reads it where it waits for its hand."""
    conn.send_int(w.MATCH_OVER)
    conn.over = True  # its close is expected


def house_seed(place_seed: str, seat: int) -> int:
    """A house seat's strategy seed, from the place's seed: a seeded place replays."""
    digest = hashlib.sha256(f"daihinmin-uecda-house:{place_seed}:{seat}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


class SharedListener:
    """Seats clients by join code, and plays each place's match once its seats are full."""

    def __init__(
        self,
        handshake_window: float = w.HANDSHAKE_SECONDS,
        write_every: float | None = None,
        max_pending: int = MAX_PENDING,
        pending_per_address: int = PENDING_PER_ADDRESS,
        wrong_codes: int = WRONG_CODES_PER_ADDRESS,
        wrong_codes_seconds: float = WRONG_CODES_SECONDS,
        stop_poll: float = STOP_POLL_SECONDS,
    ):
        self.window = handshake_window
        self.write_every = write_every
        self.max_pending = max_pending
        self.pending_per_address = pending_per_address
        self.wrong_codes = wrong_codes
        self.wrong_codes_seconds = wrong_codes_seconds
        self.stop_poll = stop_poll
        self._poller: asyncio.Task | None = None
        #: The connections under way, by address, each with when it came (oldest first).
        self.pending: dict[str, list[tuple[float, Connection]]] = {}
        self.strikes: dict[str, Strikes] = {}
        self.ended: collections.deque[int] = collections.deque(maxlen=ENDED_REMEMBERED)
        self.waiting: dict[int, Waiting] = {}
        #: The places whose match is starting or being played here.
        self.playing: set[int] = set()
        #: The matches being played (the loop keeps only weak references to tasks).
        self.matches: set[asyncio.Task] = set()
        self._handshakes: set[asyncio.Task] = set()
        self._closing: set[asyncio.Task] = set()
        self.server: asyncio.Server | None = None

    async def start(self, sock: socket.socket) -> asyncio.Server:
        """Serve on a bound, listening socket, from the running loop; first abort the
        matches a stopped server left running."""
        aborted = await db_thread.run(uecda_seats.abort_unplayed)
        if aborted:
            log.warning("UECda places %s were running when the server stopped: aborted", aborted)
        await broadcast.attach()  # the events of this process's changes, and of others'
        await broadcast.listen(broadcast.ALL_PLACES_GROUP, self)
        self.server = await asyncio.get_running_loop().create_server(
            lambda: Connection(self._accepted), sock=sock
        )
        self._poller = asyncio.ensure_future(self._poll_stops())
        return self.server

    async def _poll_stops(self) -> None:
        """End the waiting places that are over, however they ended (:data:`STOP_POLL_SECONDS`)."""
        while True:
            await asyncio.sleep(self.stop_poll)
            if not self.waiting:
                continue
            try:
                over = await db_thread.run(ended_among, list(self.waiting))
            except Exception:  # the database, most likely: the next round reads again
                log.exception("UECda port: could not read which waiting places are over")
                continue
            for place_id in over:
                self._ended(place_id)

    def _accepted(self, conn: Connection) -> None:
        address = address_of(conn)
        strikes = self.strikes.get(address)
        if strikes is not None and strikes.wrong >= self.wrong_codes:
            self._turn_away(conn, address, "its address sent too many names that open no seat")
            return
        held = self.pending.get(address, [])
        if len(held) >= self.pending_per_address:
            self._turn_away(conn, address, f"{len(held)} handshakes pending from its address")
            return
        under_way = sum(map(len, self.pending.values()))
        if under_way >= self.max_pending and not self._make_room(len(held)):
            self._turn_away(conn, address, f"{self.max_pending} handshakes pending")
            return
        self.pending.setdefault(address, []).append((asyncio.get_running_loop().time(), conn))
        task = asyncio.ensure_future(self._admit_or_close(conn, address))
        self._handshakes.add(task)
        task.add_done_callback(self._handshakes.discard)

    def _make_room(self, holding: int) -> bool:
        """The port is full: the oldest connection under way of the address holding the
        most gives up its slot, if it holds more than ``holding`` (the newcomer's)."""
        most = max(self.pending, key=lambda a: len(self.pending[a]), default=None)
        if most is None or len(self.pending[most]) <= holding:
            return False
        top = len(self.pending[most])
        address = min(
            (a for a, held in self.pending.items() if len(held) == top),
            key=lambda a: self.pending[a][0][0],
        )
        _, oldest = self.pending[address][0]
        self._settled(address, oldest)
        self._turn_away(oldest, address, "the port is full and its address holds the most")
        return True

    def _settled(self, address: str, conn: Connection) -> None:
        """``conn`` no longer waits for its handshake or its code's lookup."""
        held = self.pending.get(address)
        if held is None:
            return
        held[:] = [entry for entry in held if entry[1] is not conn]
        if not held:
            del self.pending[address]

    def _strike(self, address: str) -> Strikes:
        """The address's strikes in its window, which starts now if it had none."""
        strikes = self.strikes.get(address)
        if strikes is None:
            strikes = self.strikes[address] = Strikes()
            strikes.timer = asyncio.get_running_loop().call_later(
                self.wrong_codes_seconds, self._window_over, address
            )
        return strikes

    def _window_over(self, address: str) -> None:
        """The address's window ends: its bound is lifted, and what was not logged one
        line a connection is counted in one."""
        strikes = self.strikes.pop(address, None)
        if strikes is not None and (strikes.wrong > 1 or strikes.turned_away > 1):
            log.info(
                "UECda address %s in %g s: %d names opened no seat, %d connections closed "
                "as they came",
                address, self.wrong_codes_seconds, strikes.wrong, strikes.turned_away,
            )  # fmt: skip

    def _turn_away(self, conn: Connection, address: str, why: str) -> None:
        """Close a connection as it comes, unheard; logged once an address and window."""
        strikes = self._strike(address)
        strikes.turned_away += 1
        if strikes.turned_away == 1:
            log.info("UECda client %s: %s: closed", _peer(conn), why)
        conn.refuse()

    def _wrong_name(self, conn: Connection, address: str) -> None:
        """A name that opens no seat: counted against its address; logged once a window,
        and once more when the address is held back."""
        strikes = self._strike(address)
        strikes.wrong += 1
        if strikes.wrong == 1:
            log.info(
                "UECda client %s: no seat for its name (a wrong code, or none): closed", _peer(conn)
            )
        if strikes.wrong == self.wrong_codes:
            log.warning(
                "UECda address %s: %d names that open no seat within %g s: its connections "
                "are closed as they come until then",
                address, strikes.wrong, self.wrong_codes_seconds,
            )  # fmt: skip

    async def _admit_or_close(self, conn: Connection, address: str) -> None:
        try:
            await self._admit(conn, address)
        except Exception:  # the database, most likely: this client only is turned away
            log.exception("UECda client %s: could not be seated: closed", _peer(conn))
            await conn.close()
        finally:
            self._settled(address, conn)

    async def _admit(self, conn: Connection, address: str) -> None:
        """Seat a new connection by the code its handshake names, or close it."""
        if not await read_handshake(conn, self.window, w.HANDSHAKE_CHARS):
            await conn.close()
            return
        code = "" if conn.protocol == w.PROTOCOL_20060 else conn.name
        conn.name = ""  # never a code in a log line or a record
        seat = await db_thread.run(seat_of_code, code) if code else None
        self._settled(address, conn)  # seated or closed from here on, without waiting
        if isinstance(seat, NoSeatNow):  # an entrant's right code, and no table for it now
            log.info("UECda client %s: %s: closed", _peer(conn), seat.why)
            await conn.close()
            return
        if seat is None or seat.place_id in self.ended:
            self._wrong_name(conn, address)
            await conn.close()
            return
        waiting = self.waiting.get(seat.place_id)
        if seat.place_id in self.playing or (waiting is not None and seat.seat in waiting.conns):
            log.info(
                "UECda client %s: seat %d of place %d is connected already: closed",
                _peer(conn), seat.seat, seat.place_id,
            )  # fmt: skip
            await conn.close()
            return
        if waiting is None:
            waiting = self.waiting[seat.place_id] = Waiting(seat.coded)
        conn.name = seat.name
        waiting.conns[seat.seat] = conn
        conn.send_int(seat.seat)
        conn.flush()
        if seat.place_id in self.playing:
            return  # a client seated meanwhile started the match, this one in it
        if not conn.alive:  # gone before it read its number
            self._free(seat.place_id, seat.seat, conn)
            await conn.close()
            return
        log.info(
            "UECda client %s is %s, seat %d of place %d",
            _peer(conn), seat.name, seat.seat, seat.place_id,
        )  # fmt: skip
        if len(waiting.conns) < waiting.coded:
            waiting.watches[seat.seat] = asyncio.ensure_future(
                self._watch(seat.place_id, seat.seat, conn)
            )
            return
        del self.waiting[seat.place_id]
        self.playing.add(seat.place_id)
        for watch in waiting.watches.values():
            watch.cancel()
        match = asyncio.ensure_future(self._play(seat.place_id, waiting.conns))
        self.matches.add(match)
        match.add_done_callback(self.matches.discard)

    async def _watch(self, place_id: int, seat: int, conn: Connection) -> None:
        """Free the seat of a client that leaves (or sends a table) before its match."""
        await conn.wait_table()  # until a table comes or the client is gone
        if not self._free(place_id, seat, conn):
            return
        log.info(
            "UECda client %s left seat %d of place %d before its match: the seat is free",
            _peer(conn), seat, place_id,
        )  # fmt: skip
        await conn.close()

    def _free(self, place_id: int, seat: int, conn: Connection) -> bool:
        """Give up ``conn``'s seat while its place waits; False if it holds none."""
        waiting = self.waiting.get(place_id)
        if waiting is None or waiting.conns.get(seat) is not conn:
            return False
        del waiting.conns[seat]
        waiting.watches.pop(seat, None)
        if not waiting.conns:
            del self.waiting[place_id]
        return True

    # -- the every-place stream (``broadcast``): a place that ends while it waits

    def write_frame(self, message: dict, built: dict[str, bytes]) -> bool:
        """An event of any place, on the loop: an ``end_place`` ends the place's waiting
        clients (:meth:`_ended`). Cheap for the others: most events are turns."""
        if '"operation":"end_place"' in message["text"]:
            self._ended(message["place"])
        return True

    async def deliver(self, message: dict) -> None:
        self.write_frame(message, {})

    def _ended(self, place_id: int) -> None:
        """The place is over (staff stopped it): its seated clients are told that the match
        is over and closed, and its seats take nobody any more."""
        self.ended.append(place_id)
        waiting = self.waiting.pop(place_id, None)
        if waiting is None:
            return
        log.info(
            "UECda place %d ended while it waited: its %d clients are told so and closed",
            place_id, len(waiting.conns),
        )  # fmt: skip
        for watch in waiting.watches.values():
            watch.cancel()
        for conn in waiting.conns.values():
            tell_over(conn)
            task = asyncio.ensure_future(conn.close())
            self._closing.add(task)
            task.add_done_callback(self._closing.discard)

    async def _play(self, place_id: int, conns: dict[int, Connection]) -> None:
        """Start the place, play its match and store it; close its clients at the end."""
        try:
            try:
                plan = await db_thread.run(
                    retried, uecda_seats.begin_match, place_id, place=place_id
                )
            except errors.Refused as e:
                log.info("UECda place %d does not start: %s", place_id, e.message)
                for conn in conns.values():
                    tell_over(conn)
                return
            except Exception:
                log.exception("UECda place %d could not start: its clients are closed", place_id)
                return
            seats: list[Seat] = [
                conns.get(p)
                or HouseSeat(
                    plan.names[p], resolve(plan.house[p], house_seed(plan.seed, p), BOOK_UECDA)
                )
                for p in range(u.PLAYERS)
            ]
            log.info("UECda place %d: its match starts (%d games)", place_id, plan.game_count)
            try:
                await play_place(
                    place_id, plan.title, seats, plan.game_count, plan.seed, self.write_every,
                    move_seconds=plan.time_limit, bank_seconds=plan.time_bank, rules=plan.rules,
                    duplicate=plan.duplicate,
                )  # fmt: skip
            except errors.Refused as e:  # stopped by staff meanwhile
                log.info("UECda place %d: its match ends: %s", place_id, e.message)
            except Exception:
                log.exception("UECda place %d: its match failed: aborted", place_id)
                await db_thread.run(retried, uecda_seats.abort_match, place_id, place=place_id)
        finally:
            self.playing.discard(place_id)
            for conn in conns.values():
                await conn.close()

    async def close(self) -> None:
        """Stop taking clients and end the matches in play (their places stay running,
        to be aborted by the next listener)."""
        if self.server is not None:
            self.server.close()
        broadcast.unlisten(broadcast.ALL_PLACES_GROUP, self)
        for strikes in self.strikes.values():
            if strikes.timer is not None:
                strikes.timer.cancel()
        self.strikes.clear()
        if self._poller is not None:
            self._poller.cancel()
        for task in [*self._handshakes, *self.matches, *self._closing]:
            task.cancel()
        for waiting in list(self.waiting.values()):
            for watch in waiting.watches.values():
                watch.cancel()
            for conn in waiting.conns.values():
                await conn.close()
        self.waiting.clear()


async def serve(sock: socket.socket) -> SharedListener:
    """The shared UECda port on a bound, listening socket, served from the running loop."""
    listener = SharedListener()
    await listener.start(sock)
    return listener
