"""Two server processes on one database and one Redis: a place is played across both,
and the login limits are counted across both.

Bots and spectators connect to either process; each process sends the events
of the moves made through it to its own sockets directly and to the other
process through its relay channel (``places/broadcast.py``). Every socket, on
either side, must see the whole stream, in order, once.

Needs Redis (the in-memory channel layer reaches no other process): CI runs it
in its PostgreSQL + Redis step.
"""

from __future__ import annotations

import asyncio

import httpx
import pytest

from harness.server import Server
from tests.e2e.event_replay import check_stream
from tests.e2e.marks import NEEDS_REDIS
from tests.e2e.test_place_with_bots import NAMES, create_place, finish_bots, watch_all

pytestmark = [pytest.mark.e2e, NEEDS_REDIS]


@pytest.fixture
def second(server):
    other = server.sibling()
    other.start()
    yield other
    other.stop()


@pytest.mark.parametrize("transport", ["http", "ws"])
async def test_a_place_played_through_two_processes_reaches_every_socket_on_both(
    server, second, transport
):
    place_id = create_place(server, games=2, seed="two")
    streams, watchers = await watch_all({"first": server.ws_url, "second": second.ws_url}, place_id)
    # alice, charlie and eve act through the first process; bob and dave through the second
    bots = [
        (server if i % 2 == 0 else second).bot(place_id, n, f"{n}-pw", "greedy", transport)
        for i, n in enumerate(NAMES)
    ]
    server.manage("start_place", str(place_id))
    for task, done in watchers:
        await asyncio.wait_for(done.wait(), timeout=120)
        await task
    await asyncio.to_thread(finish_bots, bots)

    log = server.events(place_id)
    assert streams["first"] == log
    assert streams["second"] == log
    summary = check_stream(log, NAMES, game_count=2, seed="two")
    assert sum(summary.points) == 2 * 10


def test_failed_logins_at_one_process_count_at_the_other(tmp_path):
    """The login limits live in the shared cache: a guesser spreading its attempts
    over two processes gets no more tries than against one."""
    first = Server(tmp_path, LOGIN_FAILURE_LIMIT="3")
    first.start()
    other = first.sibling()
    other.start()
    try:
        first.manage("create_user", "alice", "--password", "alice-pw")
        wrong = {"name": "alice", "password": "guess"}
        answers = [
            httpx.post(f"{srv.url}/login.json", data=wrong).status_code
            for srv in (first, other, first)
        ]
        assert answers == [401, 401, 401]
        refused = httpx.post(f"{other.url}/login.json", data={**wrong, "password": "alice-pw"})
        assert refused.status_code == 429
        assert refused.json()["error"]["code"] == "TOO_MANY_ATTEMPTS"
    finally:
        other.stop()
        first.stop()


async def test_two_deployments_on_one_redis_keep_their_events_apart(tmp_path):
    """Each deployment has its own ``REDIS_PREFIX`` (harness/server.py gives every server
    one): a place of one reaches only its own spectators, though the other's place has
    the same id and runs at the same time. With one prefix, each process would take the
    other for a sibling and relay it its events (Redis' Pub/Sub ignores the database
    number)."""
    deployments = {}
    for label in ("one", "other"):
        (tmp_path / label).mkdir()
        deployments[label] = Server(tmp_path / label)
    assert deployments["one"].env["REDIS_PREFIX"] != deployments["other"].env["REDIS_PREFIX"]
    for srv in deployments.values():
        srv.start()
    try:
        ids = {label: create_place(srv, games=1, seed=label) for label, srv in deployments.items()}
        assert ids["one"] == ids["other"]  # the same id on both: the events must not mix
        place_id = ids["one"]
        streams, watchers = await watch_all(
            {label: srv.ws_url for label, srv in deployments.items()}, place_id
        )
        bots = [
            srv.bot(place_id, n, f"{n}-pw", "greedy", "ws")
            for srv in deployments.values()
            for n in NAMES
        ]
        for srv in deployments.values():
            srv.manage("start_place", str(place_id))
        for task, done in watchers:
            await asyncio.wait_for(done.wait(), timeout=120)
            await task
        await asyncio.to_thread(finish_bots, bots)

        for label, srv in deployments.items():
            log = srv.events(place_id)
            assert streams[label] == log, label
            check_stream(log, NAMES, game_count=1, seed=label)
        assert streams["one"] != streams["other"]
    finally:
        for srv in deployments.values():
            srv.stop()
