"""Sending a place's events to its WebSocket listeners, after commit, in order.

Each event goes to two groups: the place's own stream and the stream of every
place (``ws://HOST/``, as in 2011). The JSON text is encoded once, where the
event is built; consumers forward it unchanged.

In the server, events are handed to one sender task on the server's event
loop (``attach``), through a queue: the committing thread does not wait for
the fan-out, the order of commits is the order of sending, and the loop is
woken properly (sending on a loop's channel layer from another thread's loop
would leave the listeners asleep until something else woke it). Elsewhere
(tests, commands, scripts) events are sent in line: to this process's listeners on
the caller's loop, else to the other processes through a loop of this process's own
(``_own_loop``), else, when none hears them, not at all.

Sockets of this process get each event straight from the sender (a registry
of local listeners per group): the channel layer would copy the message per
channel and wake each consumer through a queue. The layer is used only when
it reaches other processes (Redis), and then once per other process and per
send, not once per socket and per event: each process has one relay channel,
the changes committed since its last send go to each other process's relay as
one message, and each relay hands what other processes sent to its own
listeners of both streams. The relays know each other by a hello in one group
(``RELAY_GROUP``), sent on start and every ``RENEW_SECONDS``, answered by a relay
that did not know the sender; a relay unheard of for ``PEER_SECONDS`` is gone. A
process alone sends nothing to Redis, and none gets its own changes back. A relay
that meets another catches up from the event log (what the other committed before it
knew of this one). (A ``group_send`` costs channels-redis several Redis
commands; one per event and stream took 40 % of a turn's server time.)

A place's **live frames** (a UECda table's, ``places/uecda/watch.py``) take the same
path, as events without a number (``send_frames``): each is complete in itself, so
none is logged, none waits for another in the sequencer, and one lost is mended by
the next; they go to the place's live pages alone (``live_group``), never to the
2011 streams.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
import uuid
from collections import defaultdict

from asgiref.sync import async_to_sync
from channels.layers import InMemoryChannelLayer, get_channel_layer

from places import metrics
from places.reads import log
from places.realtime import db_thread
from places.realtime.sequencer import Sequencer

logger = logging.getLogger(__name__)

ALL_PLACES_GROUP = "places"
#: The channel layer group of the processes' relays.
RELAY_GROUP = "daihinmin.relays"
#: Tags this process's messages on a shared channel layer.
PROCESS = uuid.uuid4().hex

_listeners: defaultdict[str, set] = defaultdict(set)

_loop: asyncio.AbstractEventLoop | None = None
_outbox: asyncio.Queue | None = None
#: This process's channel on a shared layer, and the order keeper of the events
#: of several processes.
_relay: str | None = None
_sequencer: Sequencer | None = None
#: Memberships of a channel layer group expire (channels-redis: a day), and a restarted
#: Redis forgets them: renewed this often, with a hello to the other relays.
RENEW_SECONDS = 5
#: A relay not heard of for this long is gone: nothing more is sent to it.
PEER_SECONDS = 3 * RENEW_SECONDS
#: The other processes' relays: their process tag -> (their channel, when last heard).
_peers: dict[str, tuple[str, float]] = {}
#: Changes handed to the sender and not yet sent on (to the sockets and other processes).
_unsent = 0
#: The sender hands out events for at most this long before the loop runs what else
#: waits (HTTP requests, sockets' writes), then goes on: a place at pace 0 ends in one
#: change of thousands of events, handed out in one turn of the loop, it held every
#: request behind it.
SLICE_SECONDS = 0.005
_slice_ends = 0.0  # loop time


def place_group(place_id: int) -> str:
    return f"place.{place_id}"


def live_group(place_id: int) -> str:
    """The group of a place's live frames: its live pages' sockets listen to it."""
    return f"live.{place_id}"


async def listen(group: str, listener) -> None:
    """Deliver this group's events to ``listener.deliver(message)`` (a local socket).

    On a shared layer (whose relay joined its group in :func:`attach`, so
    nothing another process sends after this returns is missed), the group's
    numbering starts (``places/realtime/sequencer.py``).
    """
    if _sequencer is not None and not group.startswith("live."):  # frames are not numbered
        await _sequencer.start(group, _place_of(group))
    _listeners[group].add(listener)


def _place_of(group: str) -> int | None:
    return None if group == ALL_PLACES_GROUP else int(group.removeprefix("place."))


def unlisten(group: str, listener) -> None:
    _listeners[group].discard(listener)


async def attach() -> None:
    """Send from now on through a sender task on the running loop (the server's).

    With a shared layer, also open this process's relay channel and start
    handing what other processes send to the local listeners.
    """
    global _loop, _outbox, _relay, _sequencer
    loop = asyncio.get_running_loop()
    if _loop is loop:
        return
    _loop, _outbox = loop, asyncio.Queue()
    layer = get_channel_layer()
    # a "specific" channel like the consumers': channels-redis reads all of a process's
    # channels through one of them, and a channel of another prefix would never be read
    _relay = await layer.new_channel() if is_shared(layer) else None
    _sequencer = Sequencer(_hand_out, _read_log, _read_marks) if _relay is not None else None
    if _relay is not None:
        await layer.group_add(RELAY_GROUP, _relay)
        await _hello(layer)
    loop.create_task(_drain(_outbox))
    if _relay is not None:
        loop.create_task(_relay_loop(layer, _relay))
        loop.create_task(_renew_loop(layer, _relay))


def is_shared(layer) -> bool:
    """Whether the channel layer reaches other processes (Redis)."""
    return layer is not None and not isinstance(layer, InMemoryChannelLayer)


def may_reach_spectators() -> bool:
    """Whether a live frame sent now could reach a socket: this process's sender runs
    (a server's loop, or a process that shares a channel layer with servers)."""
    return _loop is not None and not _loop.is_closed()


def send_frames(place_id: int, texts: list[str]) -> None:
    """Live frames of a place, in order (see the module doc): unnumbered events."""
    send_events(place_id, [(None, text) for text in texts])


def send_events(place_id: int, batch: list[tuple[int | None, str]]) -> None:
    """Send ``(seq, text)`` events of one place, in order (from any thread)."""
    if not batch:
        return
    loop, outbox = _loop, _outbox
    if loop is not None and outbox is not None and not loop.is_closed():
        if asyncio._get_running_loop() is loop:  # on the loop (a UECda match): no wake-up
            _hand_over(outbox, (place_id, batch))
        else:
            loop.call_soon_threadsafe(_hand_over, outbox, (place_id, batch))
        return
    layer = get_channel_layer()
    if _sequencer is None and not _listened(place_id):  # none of this process hears it
        if is_shared(layer):  # the other processes do: through this process's own loop
            asyncio.run_coroutine_threadsafe(_send(layer, place_id, batch), _own_loop()).result()
        return  # else none at all
    async_to_sync(_send)(layer, place_id, batch)


_own: asyncio.AbstractEventLoop | None = None
_own_lock = threading.Lock()


def _own_loop() -> asyncio.AbstractEventLoop:
    """One loop in a thread of its own, for the sends of a process without a server's loop
    that no listener here waits on (a command's, a test's): ``async_to_sync`` cost each
    change a thread and a loop, and on Redis a connection, now that house moves commit one
    by one."""
    global _own
    with _own_lock:
        if _own is None:
            _own = asyncio.new_event_loop()
            threading.Thread(target=_own.run_forever, name="event sender", daemon=True).start()
        return _own


def _listened(place_id: int) -> bool:
    """Whether a listener of this process hears any of a place's groups."""
    groups = (place_group(place_id), ALL_PLACES_GROUP, live_group(place_id))
    return any(_listeners.get(group) for group in groups)


def _hand_over(outbox: asyncio.Queue, change: tuple) -> None:
    """On the loop: a change for the sender (counted in its thread: see :func:`sent`)."""
    global _unsent
    _unsent += 1
    outbox.put_nowait(change)


async def _drain(outbox: asyncio.Queue) -> None:
    """The sender: this process's sockets first; other processes' through a second task.

    A send to Redis takes round trips; done in line, it would hold back the
    local delivery of the next event of the same turn.
    """
    layer = get_channel_layer()
    remote: asyncio.Queue | None = asyncio.Queue() if is_shared(layer) else None
    if remote is not None:
        asyncio.get_running_loop().create_task(_forward(layer, remote))
    global _unsent
    while True:
        place_id, batch = await outbox.get()
        for message in _messages(place_id, batch):
            await _deliver(message)
        if remote is not None:
            remote.put_nowait((place_id, batch))
        else:
            _unsent -= 1


async def _forward(layer, remote: asyncio.Queue) -> None:
    """The changes committed since the last send, in commit order, as one message to each
    other relay: one send a change would fall behind a busy loop (a round trip each)."""
    global _unsent
    while True:
        changes = [await remote.get()]
        while not remote.empty():
            changes.append(remote.get_nowait())
        for channel in live_peers():
            await _send_to(layer, channel, changes)
        _unsent -= len(changes)


async def sent(timeout: float = 5.0) -> None:
    """Until the sender has sent on what it was handed (at most ``timeout`` s): a process
    about to end (``manage.py uecda_match``) lets its last frames leave first."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while _unsent > 0 and loop.time() < end:
        await asyncio.sleep(0.01)


async def _send(layer, place_id: int, batch: list[tuple[int, str]]) -> None:
    """Without a sender task (tests, scripts): everything in line, and to every relay (this
    process has none, so it knows of none)."""
    for message in _messages(place_id, batch):
        await _deliver(message)
    if is_shared(layer):
        try:
            await layer.group_send(RELAY_GROUP, _relayed([(place_id, batch)]))
        except Exception:  # a broken layer must not stop the sender (the log fills the gap)
            logger.exception("sending events %s- of place %s failed", batch[0][0], place_id)


def _relayed(changes: list[tuple[int, list[tuple[int, str]]]]) -> dict:
    """Changes of places, each its ``(place_id, [(seq, text), …])``, as a relay's message
    (with the time it was sent, for ``daihinmin_relay_delay_seconds``)."""
    return {"type": "place.events", "changes": changes, "origin": PROCESS, "sent": time.time()}


def _messages(place_id: int, batch: list[tuple[int | None, str]]) -> list[dict]:
    """Each event once for its place's group and once for the every-place group; a
    live frame (no number) once for the place's live group."""
    numbered = (place_group(place_id), ALL_PLACES_GROUP)
    live = (live_group(place_id),)
    return [
        {
            "type": "place.event",
            "group": group,
            "place": place_id,
            "seq": seq,
            "text": text,
        }
        for seq, text in batch
        for group in (live if seq is None else numbered)
    ]


async def _send_to(layer, channel: str, changes: list[tuple[int, list[tuple[int, str]]]]) -> None:
    """Changes' events to another process's relay, as one message."""
    try:
        await layer.send(channel, _relayed(changes))
    except Exception:  # a broken layer must not stop the sender (the log fills the gap)
        logger.exception("sending the events of %s changes failed", len(changes))


def live_peers(now: float | None = None) -> list[str]:
    """The channels of the other relays heard of within ``PEER_SECONDS``."""
    now = time.monotonic() if now is None else now
    return [channel for channel, heard in _peers.values() if now - heard < PEER_SECONDS]


def meet(origin: str, channel: str, now: float | None = None) -> bool:
    """A relay was heard of; True when it is new here (or back after it was gone)."""
    now = time.monotonic() if now is None else now
    known = _peers.get(origin)
    _peers[origin] = (channel, now)
    return known is None or now - known[1] >= PEER_SECONDS or known[0] != channel


async def _hello(layer) -> None:
    """Make this process's relay known to the others (they answer if it is new to them)."""
    try:
        await layer.group_send(
            RELAY_GROUP, {"type": "relay.hello", "origin": PROCESS, "channel": _relay}
        )
    except Exception:
        logger.exception("relay: saying hello failed")


async def _deliver(message: dict) -> None:
    """To this process's listeners, in each place's order when several processes send;
    past its slice of time (``SLICE_SECONDS``), after what else waits on the loop."""
    global _slice_ends
    if _sequencer is not None and message["seq"] is not None:
        await _sequencer.receive(message)
    else:
        await _hand_out(message)
    loop = asyncio.get_running_loop()
    if loop.time() >= _slice_ends:
        await asyncio.sleep(0)
        _slice_ends = loop.time() + SLICE_SECONDS


async def _hand_out(message: dict) -> None:
    """To this process's listeners of the message's group.

    Under daphne a socket writes the event's frame straight to its connection
    (``Socket.write_frame``): built once for all the sockets of a kind, no coroutine
    and no copy per socket, and the frames of one change leave together. Elsewhere
    (tests' communicators) each socket is sent to the ASGI way.
    """
    frames: dict[str, bytes] = {}
    for listener in tuple(_listeners.get(message["group"], ())):
        try:
            if not listener.write_frame(message, frames):
                await listener.deliver(message)
        except Exception:  # one broken socket must not stop the others
            logger.exception(
                "delivering event %s of place %s failed", message["seq"], message["place"]
            )


async def _relay_loop(layer, channel: str) -> None:
    """Other processes' events, from the relay channel to the local listeners."""
    while True:
        try:
            message = await layer.receive(channel)
        except asyncio.CancelledError:
            raise
        except Exception:  # the layer is down: wait, rejoin, catch up, listen again
            logger.exception("relay: receiving failed")
            await _rejoin(layer, channel)
            continue
        kind, origin = message.get("type"), message.get("origin")
        if origin == PROCESS:
            continue  # its own hello, back through the group
        if kind == "relay.hello" and isinstance(message.get("channel"), str):
            if meet(origin, message["channel"]):
                logger.info("relay: met the relay of process %s", origin)
                await _hello(layer)  # so that it knows this one at once
                if _sequencer is not None:
                    await _sequencer.catch_up()  # what it sent before it knew this one
        elif kind == "place.events":
            if isinstance(message.get("sent"), float):
                metrics.RELAY_DELAY_SECONDS.observe(max(0.0, time.time() - message["sent"]))
            for place_id, events in message["changes"]:
                batch = [(seq, text) for seq, text in events]
                metrics.EVENTS_RELAYED.inc(len(batch))
                for event in _messages(place_id, batch):
                    await _deliver(event)


async def _rejoin(layer, channel: str) -> None:
    """Once the layer answers again: the relay's group again (a restarted Redis lost it),
    then whatever other processes sent meanwhile, from the event log."""
    while True:
        await asyncio.sleep(1)
        try:
            await layer.group_add(RELAY_GROUP, channel)
        except Exception:
            logger.warning("relay: the channel layer is still down")
            continue
        logger.info("relay: rejoined; catching up from the event log")
        await _hello(layer)
        if _sequencer is not None:
            await _sequencer.catch_up()
        return


async def _renew_loop(layer, channel: str) -> None:
    """Keep the relay's group membership from expiring, and the others hearing of it."""
    while True:
        await asyncio.sleep(RENEW_SECONDS)
        try:
            await layer.group_add(RELAY_GROUP, channel)
        except Exception:
            logger.exception("relay: renewing its membership failed")
            continue
        await _hello(layer)


async def _read_log(place_id: int, first: int, last: int) -> list[tuple[int, str]]:
    events = await db_thread.run(log.events_between, place_id, first, last, place=place_id)
    metrics.EVENTS_FILLED.inc(len(events))
    return events


async def _read_marks(place_id: int | None) -> dict[int, int]:
    return await db_thread.run(log.last_numbers, place_id)
