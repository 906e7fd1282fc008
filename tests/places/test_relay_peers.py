"""The relays of several processes know each other (``places/realtime/broadcast.py``):
a change's events go to each other relay heard of lately, and to none when a process
is alone. (tests/e2e/test_two_servers.py and test_faults.py play places across two
real processes on Redis.)"""

from __future__ import annotations

import pytest

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
