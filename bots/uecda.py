"""A UECda client: any UECda strategy over tndhms's TCP protocol (UECDA.md §1–4).

``python -m bots --transport uecda --server HOST:PORT --strategy greedy`` connects
to tndhms or ``manage.py uecda_match``, sends the handshake naming its protocol
(20070, the stock client's, or 20140: ``--protocol``), and plays until the server's
game state says the match is over (2). On each of its turns the strategy sees a
:class:`~daifugo.view.View` built from the tables: the hand from its turn
table, the play to beat from the last field table, the revolution, the 11-back and the
lock from the turn table's flags, and the information set the tables add up to
(:mod:`bots.uecda_seen`: what ``montecarlo`` plays out). The server does not say its
rules: a client told them (``--rules uecda+no-stairs``) leaves out the moves they forbid.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

from bots.strategies import Strategy, give
from bots.uecda_seen import SeenGame, ranks_of
from daifugo import uecda as u
from daifugo import uecda_wire as w
from daifugo.rules import UECDA, Rules
from daifugo.view import BOOK_UECDA, view_uecda

PORT = 42485


class UecdaProtocolError(Exception):
    """The server sent what tndhms never sends (the stock client exits on it too)."""


class NotSeated(ConnectionError):
    """The server closed the connection before it sent a player number: no seat for the
    name (a wrong code, a seat connected already, an entrant with no table now)."""


@dataclass
class Summary:
    """What a client saw of its match: its number, the games, its points, its turns, its
    rejections. ``unseen``: games whose rank it could not see, so that ``points`` leaves
    them out (a 20-pass draw left it in, and no next game's table told its rank)."""

    player: int = -1
    games: int = 0
    turns: int = 0
    rejected: int = 0
    points: int = 0
    unseen: int = 0

    def line(self, name: str) -> str:
        unseen = (
            f" ({self.unseen} games left out: a 20-pass draw hid the rank)" if self.unseen else ""
        )
        return (
            f"{name}: player {self.player}, {self.games} games, {self.points} points{unseen}, "
            f"{self.turns} turns, {self.rejected} rejected"
        )

    def ranked(self, rank: int | None, rules: Rules) -> None:
        """A game of the match ended with this rank (1 best), or None when it is unseen."""
        if rank is None:
            self.unseen += 1
        else:
            self.points += rules.points_for(rank, u.PLAYERS)


def hand_of(table: list[int]) -> int:
    """The cards of a hand table (the joker is the ``2`` at [4][1])."""
    return w.cards_of_table(table)


def position(
    hand: int,
    stage: u.Move | None,
    revolution: bool,
    locked: bool,
    back: bool = False,
    rules: Rules = UECDA,
) -> u.UecdaGame:
    """A one-player position the engine's move listing reads: the client's own view."""
    g = object.__new__(u.UecdaGame)
    g.rules = rules
    g.hands = (hand,)
    g.stage = stage
    g.revolution = revolution
    g.back = back
    g.locked = locked
    g.joker_single = stage is not None and stage.kind == u.JOKER_SINGLE
    g.phase = u.TURN
    g.turn = 0
    return g


class UecdaClient:
    def __init__(
        self,
        host: str,
        port: int,
        name: str,
        strategy: Strategy,
        rules: Rules = UECDA,
        protocol: w.Protocol = w.PROTOCOL_20070,
    ):
        self.host = host
        self.port = port
        self.name = name
        self.strategy = strategy
        self.rules = rules
        self.protocol = protocol
        self.summary = Summary()
        #: The last game ended by a 20-pass draw with this client still in: its rank is
        #: the next hand-delivery table's (row 6), unless that starts a rank period.
        self._rank_pending = False

    async def _table(self, reader: asyncio.StreamReader) -> list[int]:
        data = await reader.readexactly(w.table_bytes(self.protocol))
        try:
            return w.decode(data, self.protocol)
        except w.TableError as e:
            raise UecdaProtocolError(f"the server sent no table: {e}") from None

    async def _int(self, reader: asyncio.StreamReader) -> int:
        return w.decode_int(await reader.readexactly(w.INT_BYTES), self.protocol)

    def _send(self, writer: asyncio.StreamWriter, table: list[int]) -> None:
        writer.write(w.encode(table, self.protocol))

    async def run(self) -> Summary:
        reader, writer = await asyncio.open_connection(self.host, self.port)
        try:
            # the handshake is a 20070 table whatever protocol it names
            writer.write(w.encode(w.handshake(self.name, self.protocol)))
            try:
                self.summary.player = await self._int(reader)
            except asyncio.IncompleteReadError as e:
                raise NotSeated("the server gave no seat (closed before a player number)") from e
            while await self._game(reader, writer):
                pass
        finally:
            writer.close()
        if self._rank_pending:
            self.summary.ranked(None, self.rules)
        return self.summary

    async def _game(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        """Play one game; False when it was the last, or the match ended before it (its
        place was stopped while it waited: the game state 2 came where a hand was due)."""
        try:
            delivered = await self._table(reader)
        except asyncio.IncompleteReadError as e:
            an_int = len(e.partial) == w.INT_BYTES
            if an_int and w.decode_int(e.partial, self.protocol) == w.MATCH_OVER:
                return False
            raise
        if delivered[w.FLAGS] != 1:
            raise UecdaProtocolError("a game began without the hand-delivery table")
        if self._rank_pending:  # the last game's rank, if this game's exchange shows it
            ranks = ranks_of(delivered)
            self.summary.ranked(ranks[self.summary.player] + 1 if any(ranks) else None, self.rules)
            self._rank_pending = False
        seen = SeenGame(self.summary.player, self.rules, delivered)
        n = delivered[w.FLAGS + 1]
        if 0 < n < 100:  # the cards to give back
            cards = give(self.strategy, hand_of(delivered), n)
            seen.gave(cards)
            table = [0] * w.CELLS
            w.put_cells(table, *w.hand_cells(cards))
            self._send(writer, table)
        while True:
            turn = await self._table(reader)
            seen.turn(turn)  # an empty field ([5][4]) clears its play to beat
            if turn[w.FLAGS + 2] == 1:
                view_game = position(
                    hand_of(turn),
                    seen.stage,
                    bool(turn[w.FLAGS + 6]),
                    bool(turn[w.FLAGS + 7]),
                    bool(turn[w.FLAGS + 5]),
                    self.rules,
                )
                view = view_uecda(view_game, 0, seen.info(turn))
                move = BOOK_UECDA.answer(view, self.strategy(view))
                self._send(writer, w.table_of_move(move))
                self.summary.turns += 1
                if await self._int(reader) == w.REJECTED and move is not None:
                    self.summary.rejected += 1
            field_table = await self._table(reader)
            seen.field(field_table)  # the play to beat is what the field table shows
            state = await self._int(reader)
            if state == w.CONTINUE:
                continue
            self.summary.games += 1
            self._ended(seen)
            return state == w.GAME_OVER

    def _ended(self, seen: SeenGame) -> None:
        """The game's rank, as the going out showed it: the order out, the last one left
        fifth; in a 20-pass draw that left this client in, the next game's tables'."""
        me = self.summary.player
        if seen.ranks[me]:
            self.summary.ranked(seen.ranks[me], self.rules)
        elif seen.out == u.PLAYERS - 1:
            self.summary.ranked(u.PLAYERS, self.rules)
        else:
            self._rank_pending = True


async def play_tables(
    host: str,
    port: int,
    name: str,
    strategy: Strategy,
    played: Callable[[Summary], None],
    rules: Rules = UECDA,
    protocol: w.Protocol = w.PROTOCOL_20070,
) -> int:
    """Match after match with one name (a tournament entrant's join code: it seats the
    client at its next table), ``played`` told of each, until the server seats it no more
    (:class:`NotSeated`: no table left); the number of matches. ``NotSeated`` before the
    first: the code seats it nowhere."""
    matches = 0
    while True:
        try:
            summary = await UecdaClient(host, port, name, strategy, rules, protocol).run()
        except NotSeated:
            if matches:
                return matches
            raise
        matches += 1
        played(summary)
