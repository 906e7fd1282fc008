"""A UECda match's live frames (``places/uecda/watch.py``): played over TCP by the
project's clients and house seats, its frames replay with the engine to the records
stored, turn by turn, and show no card a spectator may not see."""

from __future__ import annotations

import asyncio
import json

import pytest
from asgiref.sync import sync_to_async
from channels.layers import InMemoryChannelLayer

from bots.strategies import resolve
from bots.uecda import UecdaClient
from daifugo import uecda as u
from daifugo.view import BOOK_UECDA
from places.presentation.replay_uecda import positions
from places.reads.records import place_records
from places.realtime import broadcast
from places.uecda import watch
from tests.uecda.test_match import serve

pytestmark = pytest.mark.django_db(transaction=True)

PUBLIC = ("table", "owner", "lock", "revolution", "passed", "ranks", "turn", "event")


@pytest.fixture
def sent(monkeypatch) -> list[tuple[int, dict]]:
    """The frames the match sends, as if a server's spectators could listen."""
    frames: list[tuple[int, dict]] = []
    monkeypatch.setattr(broadcast, "may_reach_spectators", lambda: True)
    monkeypatch.setattr(
        broadcast,
        "send_frames",
        lambda place_id, texts: frames.extend((place_id, json.loads(t)["uecda"]) for t in texts),
    )
    return frames


def check_frames_replay(records: list[dict], frames: list[dict], games: list[int]) -> int:
    """Each of ``games``' frames, in order: the deal, the exchange, one a submission that
    agrees with the record's move at that turn and with the engine's position after it.
    Returns how many frames showed a lock."""
    locks = 0
    for record in records:
        if record["game"] not in games:
            continue
        mine = [f for f in frames if f["game"] == record["game"]]
        first = record["ranks_before"] is None
        dealt, start, *turns = mine if not first else [None, *mine]
        if not first:
            assert dealt["phase"] == "exchange" and dealt["turn"] is None
            assert dealt["ranks_before"] == record["ranks_before"]
        assert start["phase"] == "play" and start["at"] == 0
        # the exchange: who gave whom how many; the cards stay the record's
        assert [(x["from"], x["to"], x["count"]) for x in start["exchange"]] == [
            (x["from"], x["to"], len(x["cards"])) for x in record["exchange"]
        ]
        assert start["seats"] == record["seats"]
        assert len(turns) == len(record["actions"])
        steps = positions(record)
        assert start["counts"] == [len(h) for h in steps[0]["hands"]]
        for k, (frame, action) in enumerate(zip(turns, record["actions"], strict=True), 1):
            assert frame["at"] == k
            assert frame["last"]["player"] == action["player"]
            assert u.move_of_text(frame["last"]["cells"]).text() == action["table"]
            assert {key: frame[key] for key in PUBLIC} == {key: steps[k][key] for key in PUBLIC}
            assert frame["counts"] == [len(h) for h in steps[k]["hands"]]
            assert "hands" not in frame
            locks += frame["lock"] is not None
        assert turns[-1]["phase"] == "over" and turns[-1]["ranks"] == record["ranks"]
        earned = [
            sum(u.points_for(r["ranks"][p]) for r in records[: record["game"]]) for p in range(5)
        ]
        assert turns[-1]["points"] == earned
    return locks


async def test_a_match_over_tcp_sends_frames_that_replay_to_its_records(
    sent, close_thread_connections
):
    task, port = await serve(8, seed="frames", house=["shedder", "random"])
    clients = [
        UecdaClient("127.0.0.1", port, name, resolve("greedy", None, BOOK_UECDA))
        for name in ("ann", "bea", "cy")
    ]
    await asyncio.wait_for(asyncio.gather(*(c.run() for c in clients)), 120)
    place_id, _ = await asyncio.wait_for(task, 60)
    assert {pid for pid, _ in sent} == {place_id}
    frames = [f for _, f in sent]
    players = frames[0]["players"]  # the clients in accept order, then the house seats
    assert sorted(players[:3]) == ["ann", "bea", "cy"]
    assert players[3:] == ["house-shedder", "house-random"]
    records = await sync_to_async(lambda: list(place_records(place_id, chunk=64)))()
    assert len(records) == 8
    assert check_frames_replay(records, frames, list(range(1, 9))) > 0


async def test_nothing_is_built_when_no_spectator_can_listen(monkeypatch, close_thread_connections):
    # no server's loop here, and a channel layer of this process alone (no Redis)
    monkeypatch.setattr(watch, "get_channel_layer", lambda: InMemoryChannelLayer())
    monkeypatch.setattr(watch.TableWatch, "_send", lambda *a: pytest.fail("a frame was built"))
    assert not broadcast.may_reach_spectators()
    assert await watch.watch_for(1, 3) is None
    task, port = await serve(2, seed="quiet", house=["greedy"] * 5)
    await asyncio.wait_for(task, 60)
