"""A bot's socket actions are paired with their replies, across reconnections (``bots/client.py``).

These drive one action over the socket (``Bot._ask``); what the bot does when it fails
(it tries again, over HTTP while the socket is gone) is ``test_retries.py``'s.
"""

from __future__ import annotations

import asyncio
import json

import pytest

from bots.client import Bot
from bots.strategies import greedy_player


class FakeSocket:
    """What ``Bot`` uses of an aiohttp socket: ``send_str`` and ``closed``."""

    def __init__(self):
        self.sent: list[dict] = []
        self.closed = False

    async def send_str(self, text: str) -> None:
        self.sent.append(json.loads(text))


def bot() -> Bot:
    return Bot("http://server", 1, "alice", "pw", greedy_player(), transport="ws")


async def test_an_action_whose_socket_dropped_fails_instead_of_taking_the_next_reply():
    b = bot()
    b._socket = old = FakeSocket()
    asking = asyncio.ensure_future(b._ask({"action": "get_hand"}))
    await asyncio.sleep(0)
    assert old.sent == [{"action": "get_hand"}]
    b._socket_lost()  # the server restarted before answering
    with pytest.raises(ConnectionError):
        await asking
    # the next socket's replies go to the next socket's actions, in step
    b._socket = FakeSocket()
    posting = asyncio.ensure_future(b.post_cards(["2-3"]))
    await asyncio.sleep(0)
    b._on_reply({"reply": "post_cards", "result": "play", "reason": None, "reset_place": False})
    assert (await posting)["result"] == "play"
    getting = asyncio.ensure_future(b.get_hand())
    await asyncio.sleep(0)
    b._on_reply({"reply": "get_hand", "cards": [{"card": {"id": 20}}]})
    assert await getting == [20]


async def test_a_reply_nobody_asked_for_is_dropped():
    b = bot()
    b._socket = FakeSocket()
    b._on_reply({"reply": "get_hand", "cards": []})  # e.g. late, from an action given up
    posting = asyncio.ensure_future(b.post_cards([]))
    await asyncio.sleep(0)
    b._on_reply({"reply": "get_hand", "cards": []})  # not the reply to this action
    assert not posting.done()
    b._on_reply({"reply": "post_cards", "result": "pass", "reason": None, "reset_place": False})
    assert (await posting)["result"] == "pass"


async def test_actions_sent_one_after_another_get_their_own_replies_in_order():
    b = bot()
    b._socket = FakeSocket()
    first = asyncio.ensure_future(b.post_cards(["2-3"]))
    await asyncio.sleep(0)
    # an 8-cut: the reply, then our next turn opens before the first action has resumed
    b._on_reply({"reply": "post_cards", "result": "play", "reason": None, "reset_place": True})
    second = asyncio.ensure_future(b.post_cards(["2-4"]))
    await asyncio.sleep(0)
    b._on_reply({"reply": "post_cards", "result": "play", "reason": None, "reset_place": False})
    assert (await first)["reset_place"] is True
    assert (await second)["reset_place"] is False


async def test_without_a_socket_an_action_fails_at_once():
    with pytest.raises(ConnectionError):
        await bot()._ask({"action": "get_hand"})


class BrokenSocket(FakeSocket):
    async def send_str(self, text: str) -> None:
        raise ConnectionResetError("Cannot write to closing transport")


async def test_an_action_that_could_not_be_sent_waits_for_no_reply():
    b = bot()
    b._socket = BrokenSocket()
    with pytest.raises(ConnectionResetError):
        await b._ask({"action": "get_hand"})
    assert not b._waiting  # the next reply is not taken for it


async def test_connected_while_a_socket_is_open_and_not_after():
    b = bot()
    assert not b.connected
    b._socket = socket = FakeSocket()
    assert b.connected
    socket.closed = True  # closing, before the bot has noticed
    assert not b.connected
    b._socket = FakeSocket()
    b._socket_lost()
    assert not b.connected
