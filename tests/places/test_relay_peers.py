"""The relays of several processes know each other (``places/realtime/broadcast.py``):
a change's events go to each other relay heard of lately, and to none when a process
is alone; the changes committed during a send leave together, and reach the other
process's listeners in order. (tests/e2e/test_two_servers.py and test_faults.py play places across two
real processes on Redis.)"""

from __future__ import annotations

import asyncio
import time

import pytest
from asgiref.sync import sync_to_async

from places import services
from places.metrics import REGISTRY
from places.realtime import broadcast


@pytest.fixture(autouse=True)
def no_peers():
    saved = dict(broadcast._peers)
    broadcast._peers.clear()
    yield
    broadcast._peers.clear()
    broadcast._peers.update(saved)


def test_alone_a_process_sends_to_nobody():
    assert broadcast.live_peers(now=100.0) == []


def test_a_relay_heard_of_is_sent_to_until_it_is_silent_too_long():
    gone = broadcast.PEER_SECONDS
    assert broadcast.meet("b", "specific.b!1", now=100.0)  # new: answer and catch up
    assert broadcast.live_peers(now=100.0 + gone - 0.1) == ["specific.b!1"]
    assert not broadcast.meet("b", "specific.b!1", now=104.0)  # its heartbeat: known
    assert broadcast.live_peers(now=104.0 + gone - 0.1) == ["specific.b!1"]
    assert broadcast.live_peers(now=104.0 + gone) == []  # silent too long: gone
    assert broadcast.meet("b", "specific.b!1", now=104.0 + gone + 1)  # back: new again


def test_a_process_restarted_with_a_new_channel_is_met_again():
    assert broadcast.meet("b", "specific.b!1", now=100.0)
    assert broadcast.meet("b", "specific.b!2", now=101.0)
    assert broadcast.live_peers(now=101.0) == ["specific.b!2"]


def test_several_relays_each_get_the_events():
    broadcast.meet("b", "specific.b!1", now=100.0)
    broadcast.meet("c", "specific.c!1", now=101.0)
    assert sorted(broadcast.live_peers(now=102.0)) == ["specific.b!1", "specific.c!1"]


class RecordingLayer:
    """A channel layer that keeps what is sent, and lets the test say when a send ends."""

    def __init__(self):
        self.sent: list[tuple[str, dict]] = []
        self.release = asyncio.Event()

    async def send(self, channel: str, message: dict) -> None:
        self.sent.append((channel, message))
        await self.release.wait()


async def test_changes_committed_during_a_send_leave_together_in_order():
    """A busy loop would fall behind with a send a change: what waited goes as one message."""
    broadcast.meet("b", "specific.b!1")
    layer, remote = RecordingLayer(), asyncio.Queue()
    forwarding = asyncio.ensure_future(broadcast._forward(layer, remote))
    try:
        remote.put_nowait((1, [(1, "a")]))
        await asyncio.sleep(0)
        for change in [(2, [(1, "b"), (2, "c")]), (1, [(2, "d")]), (3, [(1, "e")])]:
            remote.put_nowait(change)  # while the first send is in flight
        layer.release.set()
        while len(layer.sent) < 2:
            await asyncio.sleep(0)
    finally:
        forwarding.cancel()
    assert [(channel, m["changes"]) for channel, m in layer.sent] == [
        ("specific.b!1", [(1, [(1, "a")])]),
        ("specific.b!1", [(2, [(1, "b"), (2, "c")]), (1, [(2, "d")]), (3, [(1, "e")])]),
    ]
    assert all(
        m["type"] == "place.events" and m["origin"] == broadcast.PROCESS for _, m in layer.sent
    )


async def test_a_relayed_message_of_several_changes_reaches_the_listeners_in_order(monkeypatch):
    """And its delay from the send is measured (``daihinmin_relay_delay_seconds``)."""
    got: list[tuple[str, int, int]] = []
    delays = REGISTRY.get_sample_value("daihinmin_relay_delay_seconds_sum") or 0.0

    async def deliver(message: dict) -> None:
        got.append((message["group"], message["place"], message["seq"]))

    monkeypatch.setattr(broadcast, "_deliver", deliver)

    class OneMessage:
        def __init__(self):
            self.messages = [
                {
                    "type": "place.events",
                    "origin": "b",
                    "changes": [[2, [[7, "x"]]], [1, [[3, "y"], [4, "z"]]]],
                    "sent": time.time() - 0.5,
                }
            ]

        async def receive(self, channel: str) -> dict:
            if self.messages:
                return self.messages.pop(0)
            await asyncio.Event().wait()  # nothing more

    relay = asyncio.ensure_future(broadcast._relay_loop(OneMessage(), "specific.a!1"))
    try:
        while len(got) < 6:
            await asyncio.sleep(0)
    finally:
        relay.cancel()
    assert got == [
        ("place.2", 2, 7),
        ("places", 2, 7),
        ("place.1", 1, 3),
        ("places", 1, 3),
        ("place.1", 1, 4),
        ("places", 1, 4),
    ]
    assert REGISTRY.get_sample_value("daihinmin_relay_delay_seconds_sum") - delays >= 0.5


@pytest.mark.django_db(transaction=True)
async def test_events_read_back_from_the_log_are_counted(make_place):
    place = await sync_to_async(make_place)()
    await sync_to_async(services.start_place)(place.id)
    before = REGISTRY.get_sample_value("daihinmin_events_filled_total") or 0.0
    events = await broadcast._read_log(place.id, 1, 4)
    assert [seq for seq, _ in events] == [1, 2, 3]
    assert REGISTRY.get_sample_value("daihinmin_events_filled_total") - before == 3
