"""Faults under a running place, in the production layout (nginx in front of two server
processes on PostgreSQL and Redis): the process driving the place killed, Redis
restarted, the database's connections killed. Each time the place goes on to its end,
every spectator that stays connected sees every event once and in order (the database's
event log), and that log replays with the engine.

The figures (the takeover time, how soon the place goes on) go to ``artifacts/faults.txt``. Needs Redis and nginx:
CI runs it in its PostgreSQL + Redis step.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import time
from pathlib import Path

import httpx
import psycopg
import pytest

from harness.server import ROOT, Server
from harness.stack import PrivateRedis, Stack
from tests.e2e.event_replay import check_stream
from tests.e2e.test_place_with_bots import NAMES, create_place, finish_bots, watch_all

pytestmark = [
    pytest.mark.e2e,
    # PostgreSQL's connections are killed here: CI's step 2 runs it
    pytest.mark.needs("postgresql", "redis-server", "nginx"),
]

GAMES = 3  # the fault strikes as game 2 starts: a game before it and one after
PACE = "0.02"  # the dealer, not the bots' posts, opens each turn: its process matters
TRANSPORTS = ["ws", "http", "ws", "http", "ws"]
REPORT = ROOT / "artifacts" / "faults.txt"


@pytest.fixture
def redis(tmp_path):
    r = PrivateRedis(tmp_path)
    yield r
    r.stop()


@pytest.fixture
def stack(tmp_path, redis):
    server = Server(tmp_path, REDIS_URL=redis.url)
    s = Stack(server)
    yield s
    s.stop()
    server.stop()


def report(line: str) -> None:
    REPORT.parent.mkdir(parents=True, exist_ok=True)
    with REPORT.open("a") as f:
        f.write(line + "\n")
    print(line)


def database(stack: Stack) -> psycopg.Connection:
    return psycopg.connect(stack.env["DATABASE_URL"], autocommit=True)


def driver_of(stack: Stack, place_id: int) -> str:
    with database(stack) as conn:
        return conn.execute("SELECT driver FROM places_place WHERE id = %s", [place_id]).fetchone()[
            0
        ]


async def until(predicate, timeout: float = 60, every: float = 0.05) -> float:
    """Wait for ``predicate()``; returns the seconds it took."""
    start = time.monotonic()
    while not predicate():
        if time.monotonic() - start > timeout:
            raise AssertionError("timed out waiting")
        await asyncio.sleep(every)
    return time.monotonic() - start


def game_started(events: list[dict], no: int) -> bool:
    return any(e["operation"] == "start_game" and e["game"]["no"] == no for e in events)


async def play(
    stack: Stack, seed: str, fault, transports: list[str] = TRANSPORTS
) -> tuple[dict, list[dict]]:
    """A place through nginx, a spectator on each process; ``fault(place_id, streams, bots)``
    mid-place.

    Returns the streams of the spectators the fault left connected, and the log."""
    server, front = stack.server, stack.front()
    place_id = create_place(server, games=GAMES, pace=PACE, seed=seed)
    urls = {port: stack.process_ws_url(i) for i, port in enumerate(stack.ports)}
    streams, watchers = await watch_all(urls, place_id)
    bots = [
        front.bot(place_id, n, f"{n}-pw", "greedy", t)
        for n, t in zip(NAMES, transports, strict=True)
    ]
    server.manage("start_place", str(place_id))
    await until(lambda: game_started(streams[stack.ports[0]], 2))
    kept = await fault(place_id, streams, bots)
    for (task, done), port in zip(watchers, stack.ports, strict=True):
        if port in kept:
            await asyncio.wait_for(done.wait(), timeout=180)
            await task
        else:
            task.cancel()
    await asyncio.to_thread(finish_bots, bots, 180)
    log = front.events(place_id)
    summary = check_stream(log, NAMES, game_count=GAMES, seed=seed)
    assert sum(summary.points) == GAMES * 10
    return {port: streams[port] for port in kept}, log


class CuttableProxy:
    """A TCP proxy to nginx whose connections a test can cut, as a network would."""

    def __init__(self, target_port: int):
        self.target_port = target_port
        self.writers: set[asyncio.StreamWriter] = set()
        self.cuts = 0

    async def start(self) -> str:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return f"http://127.0.0.1:{self.server.sockets[0].getsockname()[1]}"

    async def _serve(self, reader, writer) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        self.writers |= {writer, up_writer}

        async def pipe(src, dst):
            try:
                while data := await src.read(65536):
                    dst.write(data)
                    await dst.drain()
            except (ConnectionError, OSError):
                pass
            finally:
                dst.close()

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))
        self.writers -= {writer, up_writer}

    def cut(self) -> None:
        for w in list(self.writers):
            w.transport.abort()
        self.cuts += 1

    def close(self) -> None:
        self.server.close()


async def test_a_bot_whose_socket_drops_mid_turn_reconnects_and_plays_on(stack):
    server, front = stack.server, stack.front()
    proxy = CuttableProxy(int(stack.url.rsplit(":", 1)[1]))
    through_proxy = stack.front()
    through_proxy.url = await proxy.start()
    place_id = create_place(server, games=3, pace=PACE, timeout="10", seed="drop")
    streams, watchers = await watch_all({"spectator": stack.process_ws_url(0)}, place_id)
    events = streams["spectator"]
    slow = NAMES[0]
    bots = [through_proxy.bot(place_id, slow, f"{slow}-pw", "tests.e2e.slow_bot:thinker", "ws")]
    bots += [front.bot(place_id, n, f"{n}-pw", "greedy", "ws") for n in NAMES[1:]]
    server.manage("start_place", str(place_id))

    def slow_turn_open() -> bool:
        turns = [e for e in events if e["operation"] in ("start_turn", "end_turn")]
        return (
            len(turns) > 20
            and turns[-1]["operation"] == "start_turn"
            and (turns[-1]["player"] == slow)
        )

    await until(slow_turn_open, every=0.005)
    proxy.cut()  # while it thinks: its answer has no socket to go out on
    ((task, done),) = watchers
    await asyncio.wait_for(done.wait(), timeout=180)
    await task
    outputs = await asyncio.to_thread(finish_bots, bots, 180)
    proxy.close()
    # its answer went out over HTTP (the socket gone), with the post's idempotency key
    assert "never retrieved" not in outputs[0] and "Traceback" not in outputs[0]
    with database(stack) as conn:
        timeouts = conn.execute(
            "SELECT count(*) FROM places_turn t JOIN places_game g ON g.id = t.game_id "
            "WHERE g.place_id = %s AND t.outcome = 'timeout'",
            [place_id],
        ).fetchone()[0]
    assert timeouts == 0  # it answered its open turn after reconnecting, in time
    log = front.events(place_id)
    assert events == log
    check_stream(log, NAMES, game_count=3, seed="drop")
    report("a bot's socket cut mid-turn: it reconnected and answered in time (no timeout)")


async def test_sigkill_of_the_driving_process_another_takes_the_place_over(stack):
    async def kill_the_driver(place_id: int, streams: dict, bots: list) -> list[int]:
        driver = driver_of(stack, place_id)
        pid = int(driver.split(":")[1])
        killed = next(p for p in stack.ports if stack.pid_of(p) == pid)
        os.kill(pid, signal.SIGKILL)
        took = await until(lambda: driver_of(stack, place_id) not in ("", driver), every=0.02)
        report(f"SIGKILL of the driving process: taken over after {took:.2f} s (lease 1 s)")
        return [p for p in stack.ports if p != killed]

    kept, log = await play(stack, "kill", kill_the_driver)
    for port, events in kept.items():
        assert events == log, port


async def test_redis_restarted_mid_place_every_spectator_still_gets_every_event(stack, redis):
    async def restart_redis(place_id: int, streams: dict, bots: list) -> list[int]:
        redis.stop()
        await asyncio.sleep(1.0)
        redis.start()
        report("Redis stopped for 1 s mid-place: every spectator's stream checked")
        return list(stack.ports)

    kept, log = await play(stack, "redis", restart_redis)
    for port, events in kept.items():
        assert events == log, port


class Log:
    """A log file of the stack, read from a point on."""

    def __init__(self, path: Path):
        self.path = path
        self.start = path.stat().st_size if path.exists() else 0

    def since(self) -> str:
        with self.path.open("rb") as f:
            f.seek(self.start)
            return f.read().decode(errors="replace")


def failed_requests(access_log: str) -> list[str]:
    """nginx's lines (its combined format) of requests answered 5xx."""
    return [line for line in access_log.splitlines() if re.search(r'" 5\d\d ', line)]


def player_session(stack: Stack, name: str, place_id: int, password: str = "") -> httpx.Response:
    """A login through nginx (``password``: the player's own unless given)."""
    return httpx.post(
        stack.url + "/sessions.json",
        data={"name": name, "password": password or f"{name}-pw", "place_id": place_id},
        timeout=10,
    )


async def test_redis_stopped_while_bots_post_over_http_no_request_fails(stack, redis):
    """The limits count in each process while Redis does not answer (``api/counts.py``):
    the bots' posts, the players' reads and the logins are answered, none with a 500."""
    access = Log(stack.run_dir / "access.log")

    async def stop_redis(place_id: int, streams: dict, bots: list) -> list[int]:
        alice = await asyncio.to_thread(player_session, stack, NAMES[0], place_id)
        assert alice.status_code == 200
        redis.stop()
        stopped = time.monotonic()
        try:
            with httpx.Client(base_url=stack.url, cookies=alice.cookies, timeout=10) as client:
                reads = [
                    (await asyncio.to_thread(client.get, "/get_hand.json")).status_code
                    for _ in range(20)
                ]
            login = await asyncio.to_thread(player_session, stack, NAMES[1], place_id)
            guess = await asyncio.to_thread(player_session, stack, NAMES[2], place_id, "guess")
            await asyncio.sleep(2.0)  # the bots post meanwhile
        finally:
            down = time.monotonic() - stopped
            redis.start()
        assert reads == [200] * 20
        assert (login.status_code, guess.status_code) == (200, 401)
        report(f"Redis stopped for {down:.1f} s under HTTP bots: reads, posts, logins answered")
        return list(stack.ports)

    kept, log = await play(stack, "redis-http", stop_redis, transports=["http"] * len(NAMES))
    for port, events in kept.items():
        assert events == log, port
    assert not failed_requests(access.since())


def terminate_every_backend(stack: Stack) -> int:
    """End every connection the servers have to the test's database, each while it is idle
    (between two of the server's transactions: a connection cut under a query fails that
    query, a fault of another kind); returns how many. Waits until all have gone."""
    with database(stack) as conn:
        mine = "datname = current_database() AND pid <> pg_backend_pid()"
        pids = [p for (p,) in conn.execute(f"SELECT pid FROM pg_stat_activity WHERE {mine}")]
        left = pids
        deadline = time.monotonic() + 30
        while left:
            assert time.monotonic() < deadline, f"backends still there: {left}"
            conn.execute(  # checked and ended in one statement: idle when ended
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE pid = ANY(%s) AND state = 'idle'",
                [left],
            )
            time.sleep(0.05)
            left = [
                p
                for (p,) in conn.execute(
                    "SELECT pid FROM pg_stat_activity WHERE pid = ANY(%s)", [left]
                )
            ]
    return len(pids)


async def test_every_database_connection_killed_mid_place_nothing_fails_after(stack):
    """Each dead connection is found before it is used (``daihinmin/postgresql``): after
    every backend of both processes was ended, no request is answered 500, the dealer
    loses no round and the place goes on at once, and no bot's move is lost."""
    access, server_log = Log(stack.run_dir / "access.log"), Log(stack.log_path)
    after: dict = {}

    async def terminate_backends(place_id: int, streams: dict, bots: list) -> list[int]:
        for bot in bots:  # quiet while the backends are ended: none of them is mid-query
            os.kill(bot.pid, signal.SIGSTOP)
        try:
            killed = await asyncio.to_thread(terminate_every_backend, stack)
        finally:
            after["access"], after["server"] = Log(access.path), Log(server_log.path)
            seen = len(streams[stack.ports[0]])
            resumed = time.monotonic()
            for bot in bots:
                os.kill(bot.pid, signal.SIGCONT)
        assert killed >= 2  # at least each process's dealer
        went_on = await until(lambda: len(streams[stack.ports[0]]) > seen + 2, every=0.01)
        pages = [
            (await asyncio.to_thread(stack.get, f"/places/{place_id}/state.json")).status_code
            for _ in range(20)  # each borrows a connection from its process's pool
        ]
        assert pages == [200] * 20
        report(
            f"pg_terminate_backend of all {killed} connections of both processes: the place "
            f"went on {went_on:.2f} s after (bots resumed {time.monotonic() - resumed:.1f} s ago)"
        )
        return list(stack.ports)

    kept, log = await play(stack, "pgkill", terminate_backends)
    for port, events in kept.items():
        assert events == log, port
    assert not failed_requests(after["access"].since())
    assert "round failed" not in after["server"].since()
    place_id = log[0]["place"]
    with database(stack) as conn:
        timeouts = conn.execute(
            "SELECT count(*) FROM places_turn t JOIN places_game g ON g.id = t.game_id "
            "WHERE g.place_id = %s AND t.outcome = 'timeout'",
            [place_id],
        ).fetchone()[0]
    assert timeouts == 0  # no move lost
