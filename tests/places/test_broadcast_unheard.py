"""A change sent from a process with no server loop (a command, a test, a bench) on the
in-memory layer: with no listener here it costs no event loop; with one it is delivered."""

from __future__ import annotations

from collections import defaultdict

import pytest

from places.realtime import broadcast


class Listener:
    """A local socket that takes each event the ASGI way."""

    def __init__(self) -> None:
        self.got: list[tuple[str, int]] = []

    def write_frame(self, message: dict, frames: dict) -> bool:
        return False

    async def deliver(self, message: dict) -> None:
        self.got.append((message["group"], message["seq"]))


@pytest.fixture
def unattached(monkeypatch, settings):
    """This process has no sender loop, no listener and an in-memory layer, as a command on
    SQLite (an earlier test's sockets may still be listed in this worker)."""
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    monkeypatch.setattr(broadcast, "_listeners", defaultdict(set))
    monkeypatch.setattr(broadcast, "_loop", None)
    monkeypatch.setattr(broadcast, "_sequencer", None)
    from channels.layers import channel_layers

    monkeypatch.setattr(channel_layers, "backends", {})


def test_a_change_nobody_here_listens_to_starts_no_event_loop(unattached, monkeypatch):
    def no_loop(_coroutine):
        raise AssertionError("an event loop was started for nobody")

    monkeypatch.setattr(broadcast, "async_to_sync", no_loop)
    broadcast.send_events(7, [(1, '{"n":1}'), (2, '{"n":2}')])


@pytest.mark.parametrize(
    "group", [broadcast.place_group(7), broadcast.ALL_PLACES_GROUP], ids=["place", "every-place"]
)
def test_a_listener_here_gets_the_change_in_order(unattached, group):
    listener = Listener()
    broadcast._listeners[group].add(listener)
    try:
        broadcast.send_events(7, [(1, '{"n":1}'), (2, '{"n":2}')])
    finally:
        broadcast.unlisten(group, listener)
    assert listener.got == [(group, 1), (group, 2)]


def test_a_live_frame_reaches_a_live_listener(unattached):
    listener = Listener()
    group = broadcast.live_group(7)
    broadcast._listeners[group].add(listener)
    try:
        broadcast.send_frames(7, ['{"frame":1}'])
    finally:
        broadcast.unlisten(group, listener)
    assert listener.got == [(group, None)]


class SharedLayer:
    """A layer that reaches other processes (as Redis does): records the loop of each send."""

    def __init__(self) -> None:
        self.sent: list[tuple[int, object]] = []

    async def group_send(self, group: str, message: dict) -> None:
        import asyncio

        changes = message["changes"]
        self.sent.append((changes[0][1][0][0], asyncio.get_running_loop()))


def test_unheard_changes_reach_other_processes_through_one_loop_of_this_one(
    unattached, monkeypatch
):
    layer = SharedLayer()
    monkeypatch.setattr(broadcast, "get_channel_layer", lambda: layer)
    monkeypatch.setattr(broadcast, "is_shared", lambda _layer: True)

    def no_loop(_coroutine):
        raise AssertionError("a loop a change")

    monkeypatch.setattr(broadcast, "async_to_sync", no_loop)
    for seq in (1, 2, 3):
        broadcast.send_events(7, [(seq, f'{{"n":{seq}}}')])
    assert [seq for seq, _ in layer.sent] == [1, 2, 3]  # each sent, in order, before the return
    assert len({id(loop) for _, loop in layer.sent}) == 1
