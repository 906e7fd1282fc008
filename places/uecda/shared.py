"""The shared server's UECda port: the clients of every ``uecda`` place, each in its seat.

``python -m daihinmin.serve`` opens it (``UECDA_PORT``, 42485) on daphne's loop, so a
match runs in the process whose sockets its spectators read. A client sends the
20070 handshake with its seat's join code as its name (the stock client's ``-n``,
14 characters); the code names the place and the seat (:mod:`places.reads.join_codes`),
and the client is sent that seat's number as its player number. A 20060 client (no
handshake: no name), a code that opens no waiting seat, or the code of a seat already
connected gets no seat and is told nothing: the connection is closed (logged at INFO).
A client that leaves, or sends a table, before its match starts frees its seat. At
most :data:`~places.uecda.match.MAX_PENDING` connections wait for their handshake at
a time; one more is closed as it comes.

Once every seat of a place that no house bot plays is connected, the match starts
(:func:`places.services.uecda_seats.begin_match`): the house seats are
:class:`~places.uecda.match.HouseSeat`s of their bots' strategies, and
:func:`~places.uecda.match.play_place` plays the place's games and stores each as it
ends. The connections are closed after the last game, as tndhms does.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import socket
from dataclasses import dataclass, field

from bots.strategies import resolve_uecda
from places import errors
from places.engine import uecda as u
from places.reads.join_codes import seat_of_code
from places.realtime import db_thread
from places.services import uecda_seats
from places.uecda import wire as w
from places.uecda.match import (
    MAX_PENDING,
    Connection,
    HouseSeat,
    Seat,
    play_place,
    read_handshake,
)

log = logging.getLogger(__name__)


@dataclass
class Waiting:
    """A place's seats connected so far, and the tasks that notice a client leave."""

    coded: int
    conns: dict[int, Connection] = field(default_factory=dict)
    watches: dict[int, asyncio.Task] = field(default_factory=dict)


def _peer(conn: Connection) -> str:
    peer = None if conn.transport is None else conn.transport.get_extra_info("peername")
    return f"{peer[0]}:{peer[1]}" if isinstance(peer, tuple) else "?"


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
    ):
        self.window = handshake_window
        self.write_every = write_every
        self.max_pending = max_pending
        self.waiting: dict[int, Waiting] = {}
        #: The places whose match is starting or being played here.
        self.playing: set[int] = set()
        #: The matches being played (the loop keeps only weak references to tasks).
        self.matches: set[asyncio.Task] = set()
        self._handshakes: set[asyncio.Task] = set()
        self.server: asyncio.Server | None = None

    async def start(self, sock: socket.socket) -> asyncio.Server:
        """Serve on a bound, listening socket, from the running loop; first abort the
        matches a stopped server left running."""
        aborted = await db_thread.run(uecda_seats.abort_unplayed)
        if aborted:
            log.warning("UECda places %s were running when the server stopped: aborted", aborted)
        self.server = await asyncio.get_running_loop().create_server(
            lambda: Connection(self._accepted), sock=sock
        )
        return self.server

    def _accepted(self, conn: Connection) -> None:
        if len(self._handshakes) >= self.max_pending:
            log.info(
                "UECda client %s: %d handshakes pending: closed", _peer(conn), self.max_pending
            )
            conn.refuse()
            return
        task = asyncio.ensure_future(self._admit_or_close(conn))
        self._handshakes.add(task)
        task.add_done_callback(self._handshakes.discard)

    async def _admit_or_close(self, conn: Connection) -> None:
        try:
            await self._admit(conn)
        except Exception:  # the database, most likely: this client only is turned away
            log.exception("UECda client %s: could not be seated: closed", _peer(conn))
            await conn.close()

    async def _admit(self, conn: Connection) -> None:
        """Seat a new connection by the code its handshake names, or close it."""
        if not await read_handshake(conn, self.window, w.HANDSHAKE_CHARS):
            await conn.close()
            return
        code = "" if conn.native else conn.name
        conn.name = ""  # never a code in a log line or a record
        seat = await db_thread.run(seat_of_code, code) if code else None
        if seat is None:
            log.info(
                "UECda client %s: no seat for its name (a wrong code, or none): closed", _peer(conn)
            )
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

    async def _play(self, place_id: int, conns: dict[int, Connection]) -> None:
        """Start the place, play its match and store it; close its clients at the end."""
        try:
            try:
                plan = await db_thread.run(uecda_seats.begin_match, place_id, place=place_id)
            except errors.Refused as e:
                log.info("UECda place %d does not start: %s", place_id, e.message)
                return
            except Exception:
                log.exception("UECda place %d could not start: its clients are closed", place_id)
                return
            seats: list[Seat] = [
                conns.get(p)
                or HouseSeat(plan.names[p], resolve_uecda(plan.house[p], house_seed(plan.seed, p)))
                for p in range(u.PLAYERS)
            ]
            log.info("UECda place %d: its match starts (%d games)", place_id, plan.game_count)
            try:
                await play_place(
                    place_id, plan.title, seats, plan.game_count, plan.seed, self.write_every,
                    move_seconds=plan.time_limit, bank_seconds=plan.time_bank,
                )  # fmt: skip
            except errors.Refused as e:  # stopped by staff meanwhile
                log.info("UECda place %d: its match ends: %s", place_id, e.message)
            except Exception:
                log.exception("UECda place %d: its match failed: aborted", place_id)
                await db_thread.run(uecda_seats.abort_match, place_id, place=place_id)
        finally:
            self.playing.discard(place_id)
            for conn in conns.values():
                await conn.close()

    async def close(self) -> None:
        """Stop taking clients and end the matches in play (their places stay running,
        to be aborted by the next listener)."""
        if self.server is not None:
            self.server.close()
        for task in [*self._handshakes, *self.matches]:
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
