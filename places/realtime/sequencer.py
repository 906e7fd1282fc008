"""Events of several server processes, handed to this process's sockets in order, once.

With one process, the order of sending is the order of commits (one sender
task). With several, a process gets its own commits at once and the others'
through Redis a little later: an event committed by another process can
arrive after a later one committed here. Every event carries its place's
sequence number, so each process keeps, per group and place, the next number
its sockets are owed: an event ahead of it waits for the gap to fill (from
Redis, or after ``GRACE_SECONDS`` from the event log in the database), one
behind it was already handed out (or precedes the sockets) and is dropped.

A group's numbering starts when its first socket of this process listens
(:meth:`Sequencer.start`): the numbers the database has then are behind.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

logger = logging.getLogger(__name__)

Message = dict
#: How long an event waits for an earlier one before the log is read.
GRACE_SECONDS = 0.25


class Sequencer:
    """Per ``(group, place)``: the next sequence number owed, and what waits for a gap.

    ``hand_out(message)`` gives a message to the local listeners;
    ``read_log(place_id, first, last)`` returns ``[(seq, text)]`` with
    ``first <= seq < last`` from the event log; ``read_marks(place_id | None)``
    returns ``{place_id: last seq}`` of one place (or of every running place).
    """

    def __init__(
        self,
        hand_out: Callable[[Message], Awaitable[None]],
        read_log: Callable[[int, int, int], Awaitable[list[tuple[int, str]]]],
        read_marks: Callable[[int | None], Awaitable[dict[int, int]]],
    ):
        self.hand_out = hand_out
        self.read_log = read_log
        self.read_marks = read_marks
        self.next: dict[tuple[str, int], int] = {}
        self.held: dict[tuple[str, int], dict[int, Message]] = {}
        self.started: dict[str, int | None] = {}  # group -> its place (None: every place)
        self.filling: set[tuple[str, int]] = set()

    async def start(self, group: str, place_id: int | None) -> None:
        """Begin numbering ``group`` (one place's, or every place's when None) from now."""
        if group in self.started:
            return
        marks = await self.read_marks(place_id)
        self.started[group] = place_id
        for pid, seq in marks.items():
            key = (group, pid)
            self.next[key] = max(self.next.get(key, 0), seq + 1)

    async def catch_up(self) -> None:
        """Hand out what the log has beyond what each numbered place was owed.

        After the channel layer failed (Redis restarted: its groups are gone until
        rejoined), events other processes sent meanwhile reached nobody here, and the
        last of a place's may have no later one to reveal the gap.
        """
        for key in list(self.next):
            group, place_id = key
            try:
                last = (await self.read_marks(place_id)).get(place_id, 0)
                if last < self.next[key]:
                    continue
                missing = await self.read_log(place_id, self.next[key], last + 1)
            except Exception:
                logger.exception("catching up with place %s failed", place_id)
                continue
            for seq, text in missing:
                if seq == self.next[key]:
                    await self._hand_out_from(key, _message(group, place_id, seq, text))

    async def receive(self, message: Message) -> None:
        group, place_id, seq = message["group"], message["place"], message["seq"]
        if group not in self.started:  # no socket here listens: nothing is owed
            return await self.hand_out(message)
        key = (group, place_id)
        # a place first seen in the every-place stream started after it was numbered
        expected = self.next.setdefault(key, 1)
        if seq < expected:
            return  # handed out already, or from before the sockets listened
        if seq > expected:
            self.held.setdefault(key, {})[seq] = message
            if key not in self.filling:
                self.filling.add(key)
                asyncio.get_running_loop().call_later(
                    GRACE_SECONDS, lambda: asyncio.ensure_future(self._fill(key))
                )
            return
        await self._hand_out_from(key, message)

    async def _hand_out_from(self, key: tuple[str, int], message: Message) -> None:
        """Hand out ``message`` (the one owed) and whatever was waiting right behind it."""
        held = self.held.get(key, {})
        while message is not None:
            self.next[key] = message["seq"] + 1
            await self.hand_out(message)
            message = held.pop(self.next[key], None)
        if not held:
            self.held.pop(key, None)

    async def _fill(self, key: tuple[str, int]) -> None:
        """A gap outlived the grace: read the missing events from the log."""
        try:
            held = self.held.get(key)
            if not held:
                return
            group, place_id = key
            first, last = self.next[key], min(held)
            if first < last:
                try:
                    missing = await self.read_log(place_id, first, last)
                except Exception:
                    logger.exception(
                        "reading events %s-%s of place %s failed", first, last, place_id
                    )
                    missing = []
                for seq, text in missing:
                    if seq == self.next[key]:
                        await self._hand_out_from(key, _message(group, place_id, seq, text))
            held = self.held.get(key)
            if held and min(held) > self.next[key]:  # the log lacked them: never wait forever
                logger.error("place %s: events %s-%s lost", place_id, self.next[key], min(held) - 1)
                first_held = held.pop(min(held))
                await self._hand_out_from(key, first_held)
        finally:
            self.filling.discard(key)
            if self.held.get(key):  # a new gap opened meanwhile
                self.filling.add(key)
                asyncio.get_running_loop().call_later(
                    GRACE_SECONDS, lambda: asyncio.ensure_future(self._fill(key))
                )


def _message(group: str, place_id: int, seq: int, text: str) -> Message:
    return {"type": "place.event", "group": group, "place": place_id, "seq": seq, "text": text}
