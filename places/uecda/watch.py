"""A UECda table's live frames: what spectators see of a match, turn by turn.

:func:`places.uecda.match.play_match` calls a :class:`TableWatch` at the deal,
after the exchange, after every submission and at each game's end, with the
engine's state. Each call makes one frame (``{"uecda":{…}}``, docs/protocol.md,
"UECda live frames"), sent within ``FLUSH_SECONDS`` with those made meanwhile
through the event path of every place (``broadcast.send_frames``: this process's
live pages, and other processes' through their relays), to the place's live pages
alone.

A frame is live only and complete in itself: the whole public table (seats,
counts, the field, the lock and its suits, the revolution, who passed, ranks,
the exchange's directions, points), so a page that comes late or misses one
needs no snapshot of the game in play. Nothing is logged: the game's record,
stored when it ends, is its durable form. A frame shows what a 2011 spectator
sees: how many cards each holds, never which; the cards of the exchange and the
rich's choice are the record's (``places/reads/disclosure.py`` says when).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from channels.layers import get_channel_layer

from daifugo import uecda as u
from daifugo.uecda_record import DRAW, OUT
from places.presentation.replay_uecda import after_submission, at_deal
from places.reads.seats import seats_of
from places.realtime import broadcast, db_thread
from places.wire.codec import compact

#: How long a frame waits at most to go to the sender with the next ones: a match plays
#: thousands of turns a second, and one hand-over a turn cost it a fifth of its speed;
#: a live page's frames wait 0.1 s anyway (``WS_LIVE_FLUSH_SECONDS``).
FLUSH_SECONDS = 0.01


class TableWatch:
    """Builds and sends the live frames of one place's match."""

    def __init__(self, place_id: int, names: Sequence[str], games: int):
        self.place_id = place_id
        self.head = {"place": place_id, "games": games, "players": list(names)}
        self.game: dict = {}
        self.fixed: str | None = None  # the JSON of head and game, without its closing brace
        self.points: tuple[int, ...] = (0,) * u.PLAYERS
        self.at = 0  # submissions so far in this game
        #: Frames made and not yet handed to the sender (see ``FLUSH_SECONDS``).
        self.unsent: list[str] = []
        #: The last submission's frame (table, counts, last), held for the game's end.
        self.final: tuple[dict, list[int], dict] | None = None

    def _send(self, phase: str, table: dict, counts: Sequence[int], last: dict | None) -> None:
        turn = {
            "phase": phase,
            "at": self.at,
            "points": list(self.points),
            "counts": list(counts),
            "last": last,
            **table,
        }
        if self.fixed is None:  # what stays the same in a game's frames, encoded once
            self.fixed = compact({**self.head, **self.game})[:-1]
        self.unsent.append(f'{{"uecda":{self.fixed},{compact(turn)[1:]}}}')
        if len(self.unsent) == 1:
            asyncio.get_running_loop().call_later(FLUSH_SECONDS, self.flush)

    def flush(self) -> None:
        """Hand the frames made since the last flush to the sender, together."""
        if self.unsent:
            texts, self.unsent = self.unsent, []
            broadcast.send_frames(self.place_id, texts)

    def dealt(self, deal: u.Deal, match: u.UecdaMatch) -> None:
        """A game is dealt: a frame when its exchange is still to come."""
        self.points = match.points
        self.at = 0
        self.fixed = None
        self.game = {
            "game": deal.game_no,
            "seats": list(deal.seats),
            "ranks_before": None if deal.ranks is None else list(deal.ranks),
            "exchange": [],
        }
        if deal.exchange_ranks is not None:  # the exchange is to come
            table = {**at_deal(u.new_game(match.rules, deal.dealt, deal.seats)), "turn": None}
            self._send("exchange", table, [h.bit_count() for h in deal.dealt], None)

    def started(self, g: u.UecdaGame, exchanges: Sequence[u.Exchange]) -> None:
        """The exchange is over (who gave whom how many: the cards are the record's)."""
        self.fixed = None
        self.game["exchange"] = [
            {"from": x.giver, "to": x.receiver, "count": x.cards.bit_count(), "chosen": x.chosen}
            for x in exchanges
        ]
        self._send("play", at_deal(g), [h.bit_count() for h in g.hands], None)

    def submitted(
        self, before: u.UecdaGame, player: int, move: u.Move, done: u.Outcome, g: u.UecdaGame
    ) -> None:
        """A submission was judged (``g``: after it, a draw's ranks settled). The one that
        ends the game is sent by :meth:`ended`, with the points that count it."""
        self.at += 1
        last = {"player": player, "cells": move.text()}
        table = after_submission(before, player, move, done, g)
        counts = [h.bit_count() for h in g.hands]
        if g.phase == u.OVER:
            table["event"]["end"] = DRAW if done.draw else OUT  # as the record says
            self.final = (table, counts, last)
        else:
            self._send("play", table, counts, last)

    def ended(self, match: u.UecdaMatch) -> None:
        """The game is over: its last submission's frame, the points counting it."""
        self.points = match.points
        if self.final is not None:
            self._send("over", *self.final)
            self.final = None
        if match.games == self.head["games"]:  # the match is over: nothing waits
            self.flush()


async def watch_for(place_id: int, games: int) -> TableWatch | None:
    """The watch of a UECda place's match, or None when no spectator can be listening:
    then nothing is built. A process with a shared channel layer (Redis) starts its
    sender and relay here (a server's are started already): spectators connected to any
    server process see the frames."""
    if not broadcast.may_reach_spectators() and broadcast.is_shared(get_channel_layer()):
        await broadcast.attach()
    if not broadcast.may_reach_spectators():
        return None
    seats = await db_thread.run(seats_of, place_id, place=place_id)
    return TableWatch(place_id, [s.name for s in seats], games)
