"""A whole place on the real server: daphne, five greedy bot processes, pace 0.

Prints, per transport and database: wall time, turns/s, p50/p99 of the time
from a ``start_turn`` to its ``end_turn`` (as a spectator at ``ws://HOST/``
sees them) and the server's peak memory; the median of several runs.

    python bench/place.py [--games 50] [--runs 3] [--transport http ws] [--db sqlite postgres]
                          [--idle N] [--instructions]

``--instructions`` runs the server under valgrind's callgrind and counts the instructions
it executes from the place's start to its end (all its threads; not the kernel's): a
figure that does not drift with what else the machine does, as CPU seconds do here, for
comparing two databases or two versions of the code (about a hundred times slower: a few
games do). What comes with time rather than turns would weigh a hundred times more
there: the dealer's rounds are made every 5 s instead of 0.2 (at pace 0 the posts drive
the place), and what the server executes a second while waiting, measured for 10 s
before the place, is taken off (the figure with it is printed too).

``--idle N`` adds N idle spectators on ``ws://HOST/`` (in a process of their own, reading
and dropping every frame): what a crowd of listeners costs a place. ``--idle-client raw``
(the default) drains their sockets without parsing frames, the server's cost apart from
the clients'; ``aiohttp`` reads frame by frame, the clients' cost on the same cores.

PostgreSQL runs use ``postgres://postgres@127.0.0.1:5432`` with Redis at
``redis://127.0.0.1:6379/0`` (a fresh database per run); ``--db postgres-noredis`` leaves
Redis out (the in-memory layer, as one process would run): what the database costs
apart from the relay. Not a test: figures.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import websockets  # noqa: E402

from bench.processes import cpu_seconds, peak_memory_mb, reap  # noqa: E402
from bench.raw_websocket import RawWebSocket  # noqa: E402
from harness.server import Server  # noqa: E402

NAMES = ["bench1", "bench2", "bench3", "bench4", "bench5"]
PG_URL = "postgres://postgres@127.0.0.1:5432/postgres"
REDIS_URL = "redis://127.0.0.1:6379/0"


async def spectate(ws_url: str, place_id: int, out: list[tuple[float, dict]], ready: asyncio.Event):
    # no keepalive pings: a server under callgrind answers them late
    async with websockets.connect(ws_url + "/", max_size=2**22, ping_interval=None) as socket:
        ready.set()
        async for text in socket:
            message = json.loads(text)
            if message.get("place") != place_id:
                continue
            out.append((time.perf_counter(), message))
            if message["operation"] == "end_place":
                return


async def idle_listeners(ws_url: str, n: int, client: str) -> None:
    """``n`` spectators reading every frame, until told to report on stdin.

    ``raw``: each drains its socket and counts the bytes (a handshake, then one
    ``recv`` of whatever came, no frame parsed): what the server's writes cost apart
    from the clients', which in a contest run on other machines. ``aiohttp``: each
    reads frame by frame on aiohttp's client (its frame reader is in C), as a
    program watching the stream would; that parsing takes the place's cores too.
    Prints ``ready`` when all listen, then on a line in stdin, once they have read
    all that came, how many are still open and the fewest and most bytes one got
    (``raw``: on the wire; ``aiohttp``: in the messages): the same for all that kept
    up, who share one stream from before the place started (the server's pings aside).
    """
    host, port = ws_url.removeprefix("ws://").rsplit(":", 1)
    async with contextlib.AsyncExitStack() as stack:
        if client == "raw":
            listeners = [_RawListener() for _ in range(n)]
        else:
            import aiohttp

            http = await stack.enter_async_context(
                aiohttp.ClientSession(
                    connector=aiohttp.TCPConnector(limit=0),
                    timeout=aiohttp.ClientTimeout(total=None),
                )
            )
            listeners = [_AiohttpListener(http) for _ in range(n)]
        for listener in listeners:
            await listener.open(stack, host, int(port))
            await asyncio.sleep(0.002)  # not all handshakes at once
        await asyncio.gather(*(listener.opened for listener in listeners))
        print("ready", flush=True)
        await asyncio.to_thread(sys.stdin.readline)
        total = -1
        while total != (total := sum(listener.received for listener in listeners)):
            await asyncio.sleep(0.5)  # until the slowest read what was sent before the end
        counts = [listener.received for listener in listeners if not listener.closed]
        print(len(counts), min(counts, default=0), max(counts, default=0), flush=True)


class _RawListener(RawWebSocket):
    """A WebSocket client that only counts what comes after the handshake."""

    def __init__(self) -> None:
        self.received = 0
        self.closed = False

    async def open(self, stack: contextlib.AsyncExitStack, host: str, port: int) -> None:
        transport = await self.connect(host, port)
        stack.callback(transport.close)

    def after_handshake(self, data: bytes) -> None:
        self.received += len(data)

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        super().connection_lost(exc)


class _AiohttpListener:
    """A spectator on aiohttp's client, reading frame by frame."""

    def __init__(self, http) -> None:
        self.http = http
        self.received = 0
        self.closed = False

    async def open(self, stack: contextlib.AsyncExitStack, host: str, port: int) -> None:
        self.opened = asyncio.get_running_loop().create_future()
        task = asyncio.ensure_future(self.read(f"ws://{host}:{port}/"))
        stack.callback(task.cancel)

    async def read(self, url: str) -> None:
        try:
            async with self.http.ws_connect(url, max_msg_size=2**22) as socket:
                self.opened.set_result(None)
                async for message in socket:
                    self.received += len(message.data)
        finally:
            self.closed = True
            if not self.opened.done():
                self.opened.set_exception(ConnectionError("the handshake failed"))


class CountedServer(Server):
    """The server under callgrind, counting nothing until :meth:`count_from_here`."""

    def command(self) -> list[str]:
        return [
            "valgrind", "--tool=callgrind", "--instr-atstart=no",
            f"--callgrind-out-file={self.workdir}/callgrind.%p", *super().command(),
        ]  # fmt: skip

    def start(self, within: float = 600) -> None:
        super().start(within)

    def wait_for_sessions(self, count: int, within: float = 300) -> None:
        """Until ``count`` sessions are in the database: the bots have logged in."""
        query = "from django.contrib.sessions.models import Session; print(Session.objects.count())"
        deadline = time.monotonic() + within
        while int(self.manage("shell", "--no-imports", "-c", query).stdout.split()[-1]) < count:
            if time.monotonic() > deadline:
                raise RuntimeError(f"fewer than {count} bots logged in within {within:.0f} s")
            time.sleep(2)

    def count_from_here(self) -> None:
        self._control("--instr=on")
        self._since = time.perf_counter()

    def instructions(self) -> tuple[int, float]:
        """The instructions executed since :meth:`count_from_here` or the last call, and
        over how many seconds: a dump of the counts (callgrind zeroes them at each dump)."""
        self._control("--dump")
        now = time.perf_counter()
        seconds, self._since = now - self._since, now
        dumps = sorted(self.workdir.glob("callgrind.*"), key=lambda p: p.stat().st_mtime)
        for line in dumps[-1].read_text().splitlines():
            if line.startswith("totals:"):
                return int(line.split()[1]), seconds
        raise RuntimeError(f"no totals in {dumps[-1]}")

    def _control(self, option: str) -> None:
        subprocess.run(
            ["callgrind_control", option, str(self.process.pid)],
            check=True,
            capture_output=True,
            timeout=120,
        )


def one_run(
    db: str,
    transport: str,
    games: int,
    idle: int = 0,
    asgi: str = "daphne",
    client: str = "raw",
    instructions: bool = False,
) -> dict:
    # as in production; the idle listeners all come from one address
    env = {
        "DEBUG": "0",
        "SECRET_KEY": "bench-only-secret",
        "WS_MAX_SOCKETS_PER_ADDRESS": "100000",
        "ASGI_SERVER": asgi,
    }
    if instructions:  # its rounds come with time, not turns, and a turn takes ~100× longer
        env["DEALER_POLL_SECONDS"] = "5"  # (at pace 0 the posts drive the place)
    saved = {k: os.environ.get(k) for k in ("DATABASE_URL", "REDIS_URL")}
    if db == "postgres":
        os.environ["DATABASE_URL"], os.environ["REDIS_URL"] = PG_URL, REDIS_URL
    elif db == "postgres-noredis":  # the database alone: the in-memory layer of one process
        os.environ["DATABASE_URL"] = PG_URL
        os.environ.pop("REDIS_URL", None)
    else:
        os.environ.pop("DATABASE_URL", None)
        os.environ.pop("REDIS_URL", None)
    try:
        server = (CountedServer if instructions else Server)(
            Path(tempfile.mkdtemp(prefix="bench-place-")), **env
        )
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    server.start()
    crowd = None
    try:
        for name in NAMES:
            server.manage("create_user", name, "--password", "pw")
        players = [a for n in NAMES for a in ("--player", n)]
        place_id = int(
            server.manage(
                "create_place",
                "bench",
                *players,
                "--games",
                str(games),
                "--pace",
                "0",
                "--timeout",
                "10",
                "--seed",
                "bench",
            ).stdout
        )
        if idle:
            crowd = subprocess.Popen(
                [sys.executable, __file__, "idle", server.ws_url, str(idle), client],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
            assert crowd.stdout.readline().strip() == "ready"
        bots = []
        for name in NAMES:
            bots.append(server.bot(place_id, name, "pw", "greedy", transport))
            if instructions:  # one login at a time: its password hash takes seconds there
                server.wait_for_sessions(len(bots))

        server_cpu: list[float] = []
        crowd_cpu: list[float] = []
        # instructions: a second while waiting, and the place's over its span of seconds
        counted = {"idle": 0.0, "span": 0.0, "place": 0}

        async def run() -> list[tuple[float, dict]]:
            seen: list[tuple[float, dict]] = []
            ready = asyncio.Event()
            task = asyncio.ensure_future(spectate(server.ws_url, place_id, seen, ready))
            await ready.wait()
            await asyncio.sleep(10 if instructions else 1.5)  # the bots log in and connect
            if instructions:  # what the server does waiting (pings, timers), a second
                await asyncio.to_thread(server.count_from_here)
                await asyncio.sleep(10)
                idle, seconds = await asyncio.to_thread(server.instructions)
                counted["idle"] = idle / seconds
            await asyncio.to_thread(server.manage, "start_place", str(place_id))
            server_cpu.append(cpu_seconds(server.process.pid))
            crowd_cpu.append(cpu_seconds(crowd.pid) if crowd else 0.0)
            await asyncio.wait_for(task, timeout=3600)
            server_cpu.append(cpu_seconds(server.process.pid))
            crowd_cpu.append(cpu_seconds(crowd.pid) if crowd else 0.0)
            if instructions:  # since the last dump: the place's
                counted["place"], counted["span"] = await asyncio.to_thread(server.instructions)
            return seen

        spectator_cpu = time.process_time()
        seen = asyncio.run(run())
        spectator_cpu = time.process_time() - spectator_cpu
        bots_cpu = sum(reap(bot) for bot in bots)
        memory = peak_memory_mb(server.process.pid)
        kept_up = [0, 0, 0]  # idle spectators still open, the fewest and the most bytes one got
        if crowd is not None:
            crowd.stdin.write("report\n")
            crowd.stdin.flush()
            kept_up = [int(x) for x in crowd.stdout.readline().split()]
    finally:
        if crowd is not None:
            crowd.kill()
            crowd.wait()
        server.stop()
    start = next(t for t, m in seen if m["operation"] == "start_place")
    end = next(t for t, m in seen if m["operation"] == "end_place")
    latencies, opened = [], None
    for t, m in seen:
        if m["operation"] == "start_turn":
            opened = t
        elif m["operation"] == "end_turn" and opened is not None:
            latencies.append((t - opened) * 1000)
            opened = None
    latencies.sort()
    turns = len(latencies)
    return {
        "wall": end - start,
        "turns": turns,
        "turns_per_s": turns / (end - start),
        "p50_ms": latencies[len(latencies) // 2],
        "p99_ms": latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))],
        "memory_mb": memory,
        # CPU per turn: the server's during the place; the bots' and the spectator's in all
        "server_cpu_ms": (server_cpu[1] - server_cpu[0]) * 1000 / turns,
        "bots_cpu_ms": bots_cpu * 1000 / turns,
        "spectator_cpu_ms": spectator_cpu * 1000 / turns,
        "crowd_cpu_ms": (crowd_cpu[1] - crowd_cpu[0]) * 1000 / turns,
        "server_minstr": counted["place"] / 1e6 / turns,
        # less what the server would have done waiting as long (under callgrind)
        "server_minstr_net": (counted["place"] - counted["idle"] * counted["span"]) / 1e6 / turns,
        "idle_minstr_per_s": counted["idle"] / 1e6,
        "crowd_open": kept_up[0],
        "crowd_least": kept_up[1],
        "crowd_most": kept_up[2],
    }


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "idle":
        asyncio.run(idle_listeners(sys.argv[2], int(sys.argv[3]), sys.argv[4]))
        return
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--transport", nargs="+", default=["http", "ws"])
    parser.add_argument(
        "--db",
        nargs="+",
        default=["sqlite", "postgres"],
        choices=["sqlite", "postgres", "postgres-noredis"],
    )
    parser.add_argument("--idle", type=int, default=0, help="idle spectators on ws://HOST/")
    parser.add_argument(
        "--idle-client",
        choices=["raw", "aiohttp"],
        default="raw",
        help="how they read: drain the socket, or frame by frame (aiohttp)",
    )
    parser.add_argument(
        "--server", choices=["daphne", "uvicorn"], default="daphne", help="the ASGI server"
    )
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="count the server's instructions a turn under callgrind (slow: use few games)",
    )
    args = parser.parse_args()
    crowd = f", {args.idle} idle spectators" if args.idle else ""
    print(
        f"{args.games}-game place, pace 0, five greedy bots{crowd}, {args.server}; "
        f"median of {args.runs} runs"
    )
    print(
        f"{'db':9} {'transport':9} {'wall s':>8} {'turns':>6} {'turns/s':>8} "
        f"{'p50 ms':>7} {'p99 ms':>7} {'peak MB':>8}   CPU ms/turn: {'server':>6} {'bots':>6} "
        f"{'watch':>6} {'crowd':>6}"
    )
    counted: dict[tuple[str, str], float] = {}
    for db in args.db:
        for transport in args.transport:
            runs = [
                one_run(
                    db,
                    transport,
                    args.games,
                    args.idle,
                    args.server,
                    args.idle_client,
                    args.instructions,
                )
                for _ in range(args.runs)
            ]
            med = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
            print(
                f"{db:9} {transport:9} {med['wall']:8.1f} {med['turns']:6.0f} "
                f"{med['turns_per_s']:8.1f} {med['p50_ms']:7.1f} {med['p99_ms']:7.1f} "
                f"{med['memory_mb']:8.1f}   {'':12}{med['server_cpu_ms']:6.2f} "
                f"{med['bots_cpu_ms']:6.2f} {med['spectator_cpu_ms']:6.2f} {med['crowd_cpu_ms']:6.2f}",
                flush=True,
            )
            if args.idle:
                print(
                    f"{'':19}idle spectators ({args.idle_client}): "
                    f"{min(r['crowd_open'] for r in runs)} of {args.idle} open to the end, "
                    f"each got {min(r['crowd_least'] for r in runs):,}–"
                    f"{max(r['crowd_most'] for r in runs):,} bytes",
                    flush=True,
                )
            if args.instructions:
                counted[db, transport] = med["server_minstr_net"]
                each = ", ".join(f"{r['server_minstr_net']:.3f}" for r in runs)
                print(
                    f"{'':19}server: {med['server_minstr_net']:.3f} million instructions a turn "
                    f"(each run: {each}), less {med['idle_minstr_per_s']:.2f} million a second "
                    f"spent waiting ({med['server_minstr']:.3f} with them)",
                    flush=True,
                )
    for (db, transport), count in counted.items():
        if db != "sqlite" and ("sqlite", transport) in counted:
            ratio = count / counted["sqlite", transport]
            print(f"instructions a turn, {db} to sqlite over {transport}: {ratio:.2f}×")


if __name__ == "__main__":
    main()
