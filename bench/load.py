"""A contest's load on the production layout: nginx in front of P server processes
(``deploy/serve_prod.py``) on PostgreSQL and Redis, for P = 1 and 2.

20 places of five greedy bots at pace 0 at once (the bots are tasks in a few worker
processes, over WebSockets), and 500 spectators (in two more): a fifth on the
every-place stream ``ws://HOST/``, the rest on the places' numbered live streams. Prints, per P:
aggregate turns/s, p50/p99 of a post's latency (as the bots see it), p99 of the
delay from an event's commit to a live spectator's frame, errors (posts refused or
failed, turns timed out, bot tasks failed; the misses the greedy strategy makes on its
own, two in the default deals, are counted apart), events lost,
duplicated and out of order (the live streams against the event log; the
every-place stream by count), peak memory per server process, the CPU seconds each
part took while the places ran (the servers, nginx, PostgreSQL, Redis, the bots, the
spectators: all on the same cores; their total over the bots' own, a figure that drifts
less with the machine's speed) and what each server process's ``/metrics`` saw
(the relay's delay, the event loop's lag, events read back from the log); then the
ratio of two processes to one, and one line:

    load: T turns/s, p99 P ms, spectator p99 S ms, lost L, duplicated D, errors E

    python bench/load.py [--places 20] [--games 10] [--spectators 500] [--processes 1 2]

Goals on the 2-core machine (docs/benchmarks.md): ≥ 500 turns/s, post p99 < 100 ms,
spectator p99 < 250 ms, nothing lost. A benchmark, not a test.

Every wait is bounded (:data:`JOIN_SECONDS`, ``--timeout``): a bot that cannot log in,
a worker that dies, places that do not end are reported, and the bench exits 1; so it
does when a run counted errors, lost or duplicated events (after printing its figures).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.processes import cpu_by_pid, cpu_seconds, peak_memory_mb, reap  # noqa: E402
from bench.raw_websocket import RawWebSocket  # noqa: E402

PG_URL = "postgres://postgres@127.0.0.1:5432/postgres"
REDIS_URL = "redis://127.0.0.1:6379/0"
WORKERS = 4
SPECTATOR_WORKERS = 2
#: Seconds the bots (and the spectators) have to log in and open their sockets.
JOIN_SECONDS = 180
METRICS_TOKEN = "a-benchmark-metrics-token"
#: What each process's ``/metrics`` tells of where a spectator's delay goes.
WATCHED = {
    "daihinmin_relay_delay_seconds": "relay delay",
    "daihinmin_loop_lag_seconds": "loop lag",
}


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q / 100 * len(ordered)))]


# -- the bots' worker processes -----------------------------------------------------------


async def run_worker(url: str, seats: list[tuple[int, str]], ready: str, timeout: float) -> dict:
    """Play the seats (bots over WebSockets) until their places end, ``timeout`` seconds at
    most after they are all in; their post latencies and errors. Raises when a bot cannot
    get in within :data:`JOIN_SECONDS` (or stops before the start)."""
    from bots.client import Bot
    from bots.strategies import greedy_player
    from daifugo.plays import Miss

    latencies: list[float] = []
    errors: Counter[str] = Counter()  # by what went wrong
    chosen_misses = 0  # the strategy's own (greedy misses a few deals), not the server's

    class TimedBot(Bot):
        async def post_cards(self, cards, **retrying):
            nonlocal chosen_misses
            started = time.perf_counter()
            try:
                result = await super().post_cards(cards, **retrying)
            except Exception as e:  # refused (the turn moved on) or failed
                errors[getattr(e, "code", type(e).__name__)] += 1
                raise
            finally:
                latencies.append(time.perf_counter() - started)
            if result.get("result") == "miss":
                if result.get("reason") == Miss.TIMEOUT:  # answered after the deadline
                    errors[Miss.TIMEOUT] += 1
                else:
                    chosen_misses += 1
            return result

    bots = [TimedBot(url, p, n, f"{n}-pw", greedy_player(), transport="ws") for p, n in seats]
    runs = [asyncio.ensure_future(b.run()) for b in bots]
    # a bot that joins a running place may act twice on its first turn (bots/client.py's
    # catch-up and the start_turn it then reads): the places start when all are in
    deadline = time.monotonic() + JOIN_SECONDS
    while not all(b.connected for b in bots):
        ended = [(b, r) for b, r in zip(bots, runs, strict=True) if r.done()]
        if ended or time.monotonic() > deadline:
            for r in runs:
                r.cancel()
            if ended:
                bot, run = ended[0]
                why = repr(run.exception()) if not run.cancelled() else "cancelled"
                raise RuntimeError(f"{len(ended)} bots ended before the start: {bot.name}: {why}")
            late = [b.name for b in bots if not b.connected]
            raise RuntimeError(f"{len(late)} bots not in after {JOIN_SECONDS} s: {late[:3]}")
        await asyncio.sleep(0.05)
    Path(ready).touch()
    done, late = await asyncio.wait(runs, timeout=timeout)
    for run in late:
        run.cancel()
    if late:
        errors[f"bot task: not done after {timeout:g} s"] += len(late)
    for run in done:
        if run.exception() is not None:
            errors[f"bot task: {type(run.exception()).__name__}"] += 1
    return {"latencies": latencies, "errors": errors, "chosen_misses": chosen_misses}


def worker_main(url: str, spec: str, out: str, timeout: str) -> None:
    """A bots' worker: its figures in ``out``; or, when it failed, why in ``{out}.failed``
    (its own output is not shown: the bots' retries would flood it) and exit status 1."""
    import uvloop

    seats = [tuple(s) for s in json.loads(spec)]
    try:
        result = uvloop.run(run_worker(url, seats, f"{out}.ready", float(timeout)))
    except Exception as e:
        Path(f"{out}.failed").write_text(f"{type(e).__name__}: {e}")
        sys.exit(1)
    Path(out).write_text(json.dumps(result))


# -- spectators -------------------------------------------------------------------------


class Spectator(RawWebSocket):
    """A spectator's WebSocket: every frame kept with the time it came, until ``places``
    places ended (``done``).

    Frames are read here in a few lines of Python over the raw socket, not by a client
    library: 500 spectators on the same two cores as the server read several hundred
    frames a turn, and aiohttp's client (its frame reader is in C, the rest of a message's
    way to the reader is not) took more CPU a turn than the server's nginx and
    PostgreSQL together (docs/benchmarks.md). The server's frames come unmasked; a ping
    is answered, a fragmented message or a close before the end is a failure."""

    def __init__(self, url: str, frames: list, places: int) -> None:
        self.url, self.frames, self.places = url, frames, places
        self.ended = 0
        self.unread = b""  # the start of a frame whose end has not come yet
        self.done = asyncio.get_running_loop().create_future()

    async def open(self) -> asyncio.Transport:
        host, _, path = self.url.removeprefix("ws://").partition("/")
        name, port = host.rsplit(":", 1)
        transport = await self.connect(name, int(port), f"/{path}")
        await self.opened
        return transport

    def after_handshake(self, data: bytes) -> None:
        at = time.time()  # the frames of one read came together
        buf = self.unread + data if self.unread else data
        i, n = 0, len(buf)
        while n - i >= 2:
            first, length = buf[i], buf[i + 1]
            if length & 0x80:
                self._fail("a masked frame from the server")
                return
            start = i + 2
            if length == 126:
                start = i + 4
                length = int.from_bytes(buf[i + 2 : start], "big")
            elif length == 127:
                start = i + 10
                length = int.from_bytes(buf[i + 2 : start], "big")
            if start + length > n:
                break
            self._frame(first, buf[start : start + length], at)
            i = start + length
        self.unread = buf[i:]

    def _frame(self, first: int, payload: bytes, at: float) -> None:
        opcode = first & 0x0F
        if opcode == 0x1 and first & 0x80:
            self.frames.append((at, payload))
            if b'"operation":"end_place"' in payload:
                self.ended += 1
                if self.ended == self.places and not self.done.done():
                    self.done.set_result(None)
        elif opcode == 0x9:  # a ping: the pong is masked, as a client's frames must be
            mask = os.urandom(4)
            masked = bytes(b ^ mask[k % 4] for k, b in enumerate(payload))
            self.transport.write(bytes([0x8A, 0x80 | len(payload)]) + mask + masked)
        elif opcode == 0x8:
            self._fail("closed by the server")
        elif opcode != 0xA:
            self._fail(f"a frame of opcode {opcode} (fin {first >> 7}): not one event a frame")

    def _fail(self, why: str) -> None:
        if not self.done.done():
            self.done.set_exception(RuntimeError(f"{self.url}: {why}"))

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        self._fail(f"connection lost: {exc!r}")


async def spectate(url: str, frames: list, ready: asyncio.Event, places: int) -> None:
    """One spectator (:class:`Spectator`), until its places ended."""
    spectator = Spectator(url, frames, places)
    transport = await spectator.open()
    ready.set()
    try:
        await spectator.done  # cancelled by the caller when it waits no longer
    finally:
        transport.close()


async def watch(urls: list[str], places: int, ready: str) -> dict:
    """One process's share of the spectators, until each saw its places end: per URL, a
    live stream's ``[time, seq]`` of every frame, the every-place stream's frames by place.

    The spectators are spread over a few processes like the bots: in one process they
    fell behind the server on two busy cores (megabytes waiting unread in their sockets),
    and their lag was counted as the server's."""
    frames: list[list] = [[] for _ in urls]
    readies = [asyncio.Event() for _ in urls]
    tasks = []
    for i, url in enumerate(urls):  # a few handshakes at a time, as a crowd arrives
        ends = 1 if url.endswith("/live/") else places
        tasks.append(asyncio.ensure_future(spectate(url, frames[i], readies[i], ends)))
        if i % 25 == 24:
            await asyncio.gather(*(r.wait() for r in readies[: i + 1]))
    await asyncio.wait_for(asyncio.gather(*(r.wait() for r in readies)), timeout=JOIN_SECONDS)
    Path(ready).touch()
    await asyncio.wait(tasks, timeout=900)  # what one never gets is lost
    for task in tasks:
        task.cancel()
    failures = [
        repr(r)
        for r in await asyncio.gather(*tasks, return_exceptions=True)
        if isinstance(r, BaseException) and not isinstance(r, asyncio.CancelledError)
    ]
    seen: list = []
    for url, got in zip(urls, frames, strict=True):
        if url.endswith("/live/"):
            seen.append([[at, json.loads(text)["seq"]] for at, text in got])
        else:
            seen.append(Counter(json.loads(text).get("place") for _, text in got))
    return {"seen": seen, "failures": failures}


def spectators_main(spec: str, out: str) -> None:
    import uvloop

    urls, places = json.loads(spec)
    result = uvloop.run(watch(urls, places, f"{out}.ready"))
    Path(out).write_text(json.dumps(result))


# -- one run ------------------------------------------------------------------------------


async def wait_ready(processes: list[subprocess.Popen], outs: list[Path], what: str) -> None:
    """Until each worker says (``{out}.ready``) that its sockets are open; raises when one
    ended first (with what it wrote in ``{out}.failed``) or after :data:`JOIN_SECONDS`."""
    deadline = time.monotonic() + JOIN_SECONDS + 60  # the workers' own bound comes first
    while not all(Path(f"{out}.ready").exists() for out in outs):
        for p, out in zip(processes, outs, strict=True):
            if p.poll() is not None:
                failed = Path(f"{out}.failed")
                why = failed.read_text() if failed.exists() else f"exit status {p.returncode}"
                raise RuntimeError(f"{what} ended before its sockets were open: {why}")
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what} did not open its sockets in {JOIN_SECONDS + 60} s")
        await asyncio.sleep(0.1)


def setup(stack, places: int, games: int) -> list[int]:
    code = (
        "from django.contrib.auth import get_user_model\n"
        "from places import services\n"
        "ids = []\n"
        f"for p in range({places}):\n"
        "    names = [f'load{p}-{i}' for i in range(5)]\n"
        "    for n in names:\n"
        "        get_user_model().objects.create_user(n, password=n + '-pw')\n"
        f"    ids.append(services.create_place(f'Load {{p}}', names, game_count={games},"
        " pace=0, time_limit=10, seed=f'load{p}').id)\n"
        "print(' '.join(map(str, ids)))\n"
    )
    out = stack.server.manage("shell", "--no-imports", "-c", code).stdout
    return [int(x) for x in out.split()]


def event_log(database_url: str, place_ids: list[int]) -> dict[int, dict[int, float]]:
    import psycopg

    log: dict[int, dict[int, float]] = {p: {} for p in place_ids}
    with psycopg.connect(database_url) as conn:
        rows = conn.execute(
            "SELECT place_id, seq, created_at FROM places_placeevent WHERE place_id = ANY(%s)",
            [place_ids],
        ).fetchall()
    for place_id, seq, created in rows:
        log[place_id][seq] = created.timestamp()
    return log


#: The machine's processes of the parts the bench does not start itself, by name.
SERVICES = {"postgres": "PostgreSQL", "redis-server": "Redis", "nginx": "nginx"}


def upper_quantile(buckets: list[tuple[float, float]], q: float) -> float:
    """The upper bound of the histogram bucket holding quantile ``q`` (``buckets``:
    Prometheus' cumulative ``(le, count)``)."""
    total = buckets[-1][1]
    return next((le for le, count in buckets if total and count >= q * total), float("nan"))


def process_figures(port: int) -> str:
    """A server process's own view, from its ``/metrics``: the relay's delay and the loop's
    lag (p50 and p99, as bucket bounds), events read back from the log."""
    import httpx
    from prometheus_client.parser import text_string_to_metric_families

    text = httpx.get(
        f"http://127.0.0.1:{port}/metrics",
        headers={"Authorization": f"Bearer {METRICS_TOKEN}"},
        timeout=10,
    ).text
    parts = []
    for family in text_string_to_metric_families(text):
        if family.name in WATCHED:
            buckets = [
                (float(x.labels["le"]), x.value)
                for x in family.samples
                if x.name.endswith("_bucket")
            ]
            if not buckets[-1][1]:
                parts.append(f"{WATCHED[family.name]}: none observed")
                continue
            p50, p99 = (upper_quantile(buckets, q) * 1000 for q in (0.5, 0.99))
            parts.append(
                f"{WATCHED[family.name]} p50 ≤ {p50:g} ms, p99 ≤ {p99:g} ms "
                f"({buckets[-1][1]:.0f} observed)"
            )
        elif family.name == "daihinmin_events_filled":
            parts.append(f"events read back from the log {family.samples[0].value:.0f}")
    return "; ".join(parts)


def cpu_of_services(before: dict, after: dict) -> Counter[str]:
    """CPU seconds each service spent between two :func:`cpu_by_pid` readings (a process
    that ended meanwhile, such as a command's database connection, is not counted)."""
    spent: Counter[str] = Counter()
    for pid, (name, seconds) in after.items():
        spent[SERVICES[name]] += seconds - before.get(pid, (name, 0.0))[1]
    return spent


async def one_run(processes: int, places: int, games: int, spectators: int, timeout: float) -> dict:
    from harness.server import Server
    from harness.stack import Stack

    workdir = Path(tempfile.mkdtemp(prefix="load-"))
    os.environ["DATABASE_URL"], os.environ["REDIS_URL"] = PG_URL, REDIS_URL  # a fresh database
    server = Server(
        workdir,
        DEBUG="0",
        SECRET_KEY="a-benchmark-secret-key-of-some-length-0123456789",
        ALLOWED_HOSTS="127.0.0.1,localhost",
        WS_MAX_SOCKETS_PER_ADDRESS="100000",
        METRICS_TOKEN=METRICS_TOKEN,
    )
    stack = Stack(server, processes=processes)
    children: list[subprocess.Popen] = []  # the workers, killed if the run fails
    try:
        place_ids = setup(stack, places, games)
        firehose_n = spectators // 5
        plan = [stack.ws_url + "/"] * firehose_n + [
            f"{stack.ws_url}/ws/places/{place_ids[i % places]}/live/"
            for i in range(spectators - firehose_n)
        ]
        crowd = [plan[w::SPECTATOR_WORKERS] for w in range(SPECTATOR_WORKERS)]
        crowd_outs = [workdir / f"spectators-{w}.json" for w in range(SPECTATOR_WORKERS)]
        watchers = [
            subprocess.Popen(
                [sys.executable, __file__, "spectators", json.dumps([urls, places]), str(out)],
                cwd=ROOT,
            )
            for urls, out in zip(crowd, crowd_outs, strict=True)
        ]
        children += watchers
        await wait_ready(watchers, crowd_outs, "a spectators' worker")

        seats = [(p, f"load{i}-{k}") for i, p in enumerate(place_ids) for k in range(5)]
        shares = [seats[w::WORKERS] for w in range(WORKERS)]
        outs = [workdir / f"worker-{w}.json" for w in range(WORKERS)]
        workers = [
            subprocess.Popen(
                [sys.executable, __file__, "worker", stack.url, json.dumps(share), str(out)]
                + [str(timeout)],
                cwd=ROOT,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            for share, out in zip(shares, outs, strict=True)
        ]
        children += workers
        await wait_ready(workers, outs, "a bots' worker")  # every bot listening
        servers = [stack.pid_of(port) for port in stack.ports]
        cpu_before = cpu_by_pid(set(SERVICES))
        servers_before = [cpu_seconds(pid) for pid in servers]
        spectators_before = sum(cpu_seconds(w.pid) for w in watchers)
        started = time.monotonic()
        start = f"from places import services\nfor p in {place_ids!r}: services.schedule_start(p)"
        await asyncio.to_thread(stack.server.manage, "shell", "--no-imports", "-c", start)
        bots_cpu = [await asyncio.to_thread(reap, w, timeout + 60) for w in workers]
        for w, out in zip(workers, outs, strict=True):
            if w.returncode != 0:
                failed = Path(f"{out}.failed")
                why = failed.read_text() if failed.exists() else f"exit status {w.returncode}"
                raise RuntimeError(f"a bots' worker failed: {why}")
        wall = time.monotonic() - started
        cpu = cpu_of_services(cpu_before, cpu_by_pid(set(SERVICES)))
        cpu["servers"] = sum(cpu_seconds(pid) for pid in servers) - sum(servers_before)
        cpu["bots"] = sum(bots_cpu)  # from their start: joining costs them little
        cpu["spectators"] = sum(cpu_seconds(w.pid) for w in watchers) - spectators_before
        results = [json.loads(out.read_text()) for out in outs]
        # every spectator reads to its places' end (a crowd of Python clients on two cores
        # may lag behind the server)
        drain = time.monotonic()
        for w in watchers:
            await asyncio.to_thread(w.wait, 900)  # TimeoutExpired past that
        drain = time.monotonic() - drain
        watched = [json.loads(out.read_text()) for out in crowd_outs]
        failures = [f for part in watched for f in part["failures"]]
        if failures:
            print(f"{len(failures)} spectators failed: {failures[0]}", flush=True)
        seen = [
            (url, got)
            for urls, part in zip(crowd, watched, strict=True)
            for url, got in zip(urls, part["seen"], strict=True)
        ]
        memory = [peak_memory_mb(pid) for pid in servers]
        figures = [process_figures(port) for port in stack.ports]

        log = event_log(stack.env["DATABASE_URL"], place_ids)
        count = "from places.models import Turn; print(Turn.objects.exclude(outcome='').count())"
        turns = int(stack.server.manage("shell", "--no-imports", "-c", count).stdout.split()[-1])
        lost = duplicated = disorder = 0
        delays: list[float] = []
        for url, got in seen:
            if url.endswith("/live/"):
                place_id = int(url.rstrip("/").split("/")[-2])
                seqs = []
                for at, seq in got:
                    seqs.append(seq)
                    if seq in log[place_id]:
                        delays.append(at - log[place_id][seq])
                duplicated += len(seqs) - len(set(seqs))
                disorder += sum(1 for a, b in itertools.pairwise(seqs) if b <= a)
                lost += len(set(log[place_id]) - set(seqs))
            else:
                for p in place_ids:
                    diff = got.get(str(p), 0) - len(log[p])  # JSON's keys are strings
                    lost += max(0, -diff)
                    duplicated += max(0, diff)
        if os.environ.get("LOAD_DEBUG"):
            print(
                "delays of the first live spectator:",
                [round(d, 3) for d in delays[:: max(1, len(delays) // 40)]],
            )
        if os.environ.get("LOAD_DEBUG"):
            total = {p: len(log[p]) for p in place_ids}
            print("log sizes", sorted(total.values())[:3], "...", sum(total.values()))
            for url, got in seen[:: max(1, len(seen) // 12)]:
                print("frames", len(got) if url.endswith("/live/") else sum(got.values()), url)
        latencies = [x for r in results for x in r["latencies"]]
        errors = sum((Counter(r["errors"]) for r in results), Counter())
        return {
            "processes": processes,
            "turns": turns,
            "wall": wall,
            "turns_per_s": turns / wall,
            "post_p50_ms": percentile(latencies, 50) * 1000,
            "post_p99_ms": percentile(latencies, 99) * 1000,
            "spectator_p99_ms": percentile(delays, 99) * 1000,
            "spectator_p50_ms": percentile(delays, 50) * 1000,
            "errors": errors.total(),
            "errors_by_kind": dict(sorted(errors.items())),
            "chosen_misses": sum(r["chosen_misses"] for r in results),
            "lost": lost,
            "duplicated": duplicated,
            "out_of_order": disorder,
            "spectator_failures": len(failures),
            "memory_mb": memory,
            "drain_s": drain,
            "cpu_s": dict(cpu),
            "figures": figures,
        }
    finally:
        for child in children:
            if child.poll() is None:
                child.kill()
        stack.stop()
        server.stop()


#: What a clean run has none of.
FAULTS = ("errors", "lost", "duplicated", "out_of_order", "spectator_failures")


def show(r: dict) -> None:
    memory = ", ".join(f"{m:.0f}" for m in r["memory_mb"])
    kinds = f" {r['errors_by_kind']}" if r["errors"] else ""
    print(
        f"P={r['processes']}: {r['turns']} turns in {r['wall']:.1f} s = {r['turns_per_s']:.0f} turns/s; "
        f"post p50 {r['post_p50_ms']:.1f} ms, p99 {r['post_p99_ms']:.1f} ms; "
        f"spectator p50 {r['spectator_p50_ms']:.0f} ms, p99 {r['spectator_p99_ms']:.0f} ms; "
        f"errors {r['errors']}{kinds}, "
        f"the strategy's own misses {r['chosen_misses']}, "
        f"lost {r['lost']}, duplicated {r['duplicated']}, "
        f"out of order {r['out_of_order']}; peak memory per process {memory} MB; "
        f"the spectators' workers done {r['drain_s']:.1f} s after the bots (reading, then counting)",
        flush=True,
    )
    cpu = r["cpu_s"]
    parts = ", ".join(f"{name} {seconds:.1f}" for name, seconds in cpu.items())
    print(
        f"     CPU seconds while the places ran ({os.cpu_count() * r['wall']:.0f} on "
        f"{os.cpu_count()} cores): {parts}; "
        f"total {sum(cpu.values()):.1f}; the servers' CPU a turn "
        f"{cpu['servers'] * 1000 / r['turns']:.2f} ms; all parts per second of the bots' "
        f"{sum(cpu.values()) / cpu['bots']:.2f} (the bots' work is the same in every run: "
        "comparable across hours, when the machine's speed drifts)",
        flush=True,
    )
    for i, figures in enumerate(r["figures"], 1):
        print(f"     process {i}: {figures}", flush=True)


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "worker":
        worker_main(*sys.argv[2:6])
        return
    if len(sys.argv) > 1 and sys.argv[1] == "spectators":
        spectators_main(sys.argv[2], sys.argv[3])
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--places", type=int, default=20)
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--spectators", type=int, default=500)
    parser.add_argument("--processes", type=int, nargs="+", default=[1, 2])
    parser.add_argument(
        "--timeout", type=float, default=1800, help="seconds the places may play (default 1800)"
    )
    args = parser.parse_args()
    print(
        f"load: {args.places} places x {args.games} games, {args.spectators} spectators, "
        f"{datetime.now():%Y-%m-%d}",
        flush=True,
    )
    runs = []
    for p in args.processes:
        try:
            r = asyncio.run(one_run(p, args.places, args.games, args.spectators, args.timeout))
        except (RuntimeError, TimeoutError, subprocess.SubprocessError) as e:
            sys.exit(f"load: P={p} failed: {type(e).__name__}: {e}")
        show(r)
        runs.append(r)
    if len(runs) == 2:
        print(f"2 processes / 1: {runs[1]['turns_per_s'] / runs[0]['turns_per_s']:.2f}x turns/s")
    last = runs[-1]
    print(
        f"load: {last['turns_per_s']:.0f} turns/s, p99 {last['post_p99_ms']:.0f} ms, "
        f"spectator p99 {last['spectator_p99_ms']:.0f} ms, lost {last['lost']}, "
        f"duplicated {last['duplicated']}, errors {last['errors']}"
    )
    wrong = [
        f"P={r['processes']}: " + ", ".join(f"{k} {r[k]}" for k in FAULTS if r[k])
        for r in runs
        if any(r[k] for k in FAULTS)
    ]
    if wrong:
        sys.exit("load: the figures above are not a clean run: " + "; ".join(wrong))


if __name__ == "__main__":
    main()
