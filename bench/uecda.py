"""UECda over TCP: games/s of ``uecda_match`` and, when built, of tndhms. Not a test.

    python bench/uecda.py [--games 1000] [--runs 3]
    TNDHMS=…/server/src/tndhms UECDA_CLIENT=…/client/client python bench/uecda.py
    REDIS_URL=redis://127.0.0.1:6379/N python bench/uecda.py   # and with live frames

Prints, median of ``--runs`` runs: ``uecda_match`` with five project UECda clients
(``python -m bots --transport uecda``, greedy); and when TNDHMS and UECDA_CLIENT
name a built tndhms and stock client (UECDA.md), tndhms with five stock clients
and ``uecda_match`` with five stock clients: by default (each game committed before
its clients hear it end), with ``--poll 0`` (the server sleeps at once while a client
thinks: what polling buys), and with ``--write-every 0`` and ``1`` (games written
behind the match: what that durability costs). Each figure is the match's games over
the wall time from the start of the fifth client to the server's exit (storing
every game included, on a fresh SQLite database), with the server's CPU a turn
(user + system, from wait4) and its peak memory (max RSS). The runs of the
configurations are interleaved, so the machine's load falls on each alike; each
``uecda_match`` run with stock clients is also given as a ratio to the tndhms run of its
round, and the median of those ratios (:func:`compare`). With
REDIS_URL, also ``uecda_match`` whose live frames are built and sent (a server on
that Redis receives them, as it would for its spectators); without it none is built.

What ``--watch`` costs the match: ``uecda_match`` with one project client (stock) and
four house bots (stock), without and with ``--watch`` (its pages served from its own
process, on the embedded defaults) and a spectator without a browser reading the live
page's socket from the place's start to the end; and the same for five project
clients.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable


@dataclass
class Run:
    games: int
    turns: int
    seconds: float
    cpu: float  # the server's user + system seconds
    peak_kb: int


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_listening(port: int, proc: subprocess.Popen, timeout: float = 30.0) -> None:
    """Until the server accepts (a probe connection would take a seat: watch ss instead)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise SystemExit(f"the server exited with {proc.returncode}")
        out = subprocess.run(["ss", "-ltnH", f"sport = :{port}"], capture_output=True, text=True)
        if out.stdout.strip():
            return
        time.sleep(0.05)
    raise SystemExit(f"nothing listens on {port}")


def wait4(proc: subprocess.Popen) -> tuple[float, int]:
    _, _, usage = os.wait4(proc.pid, 0)
    proc.returncode = 0
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def start_clients(
    command, port: int, gap: float, count: int = 5
) -> tuple[list[subprocess.Popen], float]:
    clients = []
    started = 0.0
    for i in range(count):
        started = time.monotonic()
        clients.append(
            subprocess.Popen(
                command(i, port), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT
            )
        )
        if i < count - 1:
            time.sleep(gap)  # tndhms listens with a backlog of 1: one client at a time
    return clients, started


class Spectator:
    """``uecda_match --watch``'s stderr read to its end; once it names the place's live page,
    a spectator without a browser reads that page's socket (``/ws/places/P/live/``) until
    the server closes it, counting its frames."""

    PAGE = re.compile(r"watch at (http://\S+/places/(\d+)/)$")

    def __init__(self, stderr):
        self.frames = 0
        self.reader: threading.Thread | None = None
        self.lines = threading.Thread(target=self._lines, args=(stderr,), daemon=True)
        self.lines.start()

    def _lines(self, stderr) -> None:
        for line in stderr:
            found = self.PAGE.search(line.strip())
            if found and self.reader is None:
                url = found[1].replace("http://", "ws://").replace("/places/", "/ws/places/")
                self.reader = threading.Thread(target=self._read, args=(url + "live/",))
                self.reader.start()

    def _read(self, url: str) -> None:
        import websockets

        async def read() -> None:
            async with websockets.connect(url, max_size=None) as socket:
                async for _ in socket:
                    self.frames += 1

        with contextlib.suppress(websockets.ConnectionClosed, OSError):
            asyncio.run(read())

    def done(self) -> int:
        """The frames read (the server has exited)."""
        self.lines.join(30)
        if self.reader is not None:
            self.reader.join(30)
        return self.frames


def project_client(i: int, port: int, strategy: str = "greedy") -> list[str]:
    return [
        PYTHON, "-m", "bots", "--transport", "uecda", "--server", f"127.0.0.1:{port}",
        "--strategy", strategy, "--name", f"bot{i}",
    ]  # fmt: skip


def project_stock_client(i: int, port: int) -> list[str]:
    return project_client(i, port, "stock")


#: The matches run without and with ``--watch``: house bots, the clients, what they are.
WATCHED = (
    (4, project_stock_client, "1 project client + 4 house bots, stock"),
    (0, project_client, "5 project clients"),
)


def stock_client(i: int, port: int) -> list[str]:
    return [os.environ["UECDA_CLIENT"], "-h", "127.0.0.1", "-p", str(port), "-n", f"stock{i}"]


def uecda_match(
    games: int,
    client,
    migrated: Path,
    work: Path,
    every: float | None = None,
    redis: str = "",
    poll: float | None = None,
    house: int = 0,
    watch: bool = False,
) -> Run:
    """``every``: its ``--write-every`` (None: the default, each game committed before its
    clients hear it end). ``redis``: the channel layer it shares with a server (its live
    frames are built and sent); none: no spectator can listen, no frame is built.
    ``poll``: its ``--poll`` (None: the default). ``house``: stock house bots in the last
    seats, ``5 - house`` clients. ``watch``: with ``--watch`` and a :class:`Spectator`."""
    db = work / "run.sqlite3"
    shutil.copy(migrated, db)
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{db}", "DEBUG": "0", "SECRET_KEY": "bench"}
    env.pop("REDIS_URL", None)
    if redis:
        env["REDIS_URL"] = redis
    port = free_port()
    server = subprocess.Popen(
        [PYTHON, "manage.py", "uecda_match", "--games", str(games), "--port", str(port),
         "--host", "127.0.0.1", "--seed", "bench",
         *([] if every is None else ["--write-every", str(every)]),
         *([] if poll is None else ["--poll", str(poll)]),
         *["--house", "stock"] * house,
         *(["--watch", "0", "--watch-linger", "0"] if watch else [])],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True,
        stderr=subprocess.PIPE if watch else subprocess.DEVNULL,
    )  # fmt: skip
    spectator = Spectator(server.stderr) if watch else None
    wait_listening(port, server)
    clients, started = start_clients(client, port, 0.05, 5 - house)
    cpu, peak = wait4(server)
    seconds = time.monotonic() - started
    last = server.stdout.read().strip().splitlines()[-1]
    for c in clients:
        c.wait()
    if not re.match(rf"uecda_match: place \d+, {games} games in ", last):
        raise SystemExit(f"uecda_match said {last!r}")
    if spectator is not None and not spectator.done():
        raise SystemExit("the spectator's socket read no frame")
    turns = subprocess.run(
        [PYTHON, "manage.py", "shell", "-c",
         "from places.models import Game;"
         "print(sum(len(g.record['actions']) for g in Game.objects.all()))"],
        cwd=ROOT, env=env, capture_output=True, text=True, check=True,
    ).stdout.split()[-1]  # fmt: skip
    return Run(games, int(turns), seconds, cpu, peak)


def tndhms(games: int, work: Path) -> Run:
    binary = Path(os.environ["TNDHMS"])
    port = free_port()
    run_dir = Path(tempfile.mkdtemp(dir=work))
    (run_dir / "logs").mkdir()
    cfg = (binary.parent / "tndhms.cfg").read_text()
    for key, value in (
        ("WINDOW_TYPE", "none"), ("GRAPH_WINDOW", "none"), ("FLAG_LOGGER", "yes"),
        ("GAME_NUMBER", str(games)), ("PORT_NUMBER", str(port)),
    ):  # fmt: skip
        cfg = re.sub(rf"^{key}.*$", f"{key}\t{value}", cfg, flags=re.M)
    (run_dir / "tndhms.cfg").write_text(cfg)
    server = subprocess.Popen(
        [str(binary), "-c", "tndhms.cfg"],
        cwd=run_dir, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    wait_listening(port, server)
    clients, started = start_clients(stock_client, port, 0.3)
    cpu, peak = wait4(server)
    seconds = time.monotonic() - started
    for c in clients:
        c.wait()
    log_text = "\n".join(p.read_text(errors="replace") for p in (run_dir / "logs").iterdir())
    turns = sum(
        len(re.findall(r"\d(?:[SHDCJKLMN][x0-9TJQKA2])*EE", line.split("% ", 1)[1]))
        for line in log_text.splitlines()
        if re.match(r"%\d{5}%play%", line)
    )
    return Run(games, turns, seconds, cpu, peak)


def spectated_server(migrated: Path, work: Path, redis: str) -> subprocess.Popen:
    """A server on ``redis`` whose relay receives a match's live frames (as its spectators'
    would), on a copy of the database."""
    db = work / "server.sqlite3"
    shutil.copy(migrated, db)
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{db}", "DEBUG": "0", "SECRET_KEY": "bench",
           "REDIS_URL": redis, "LEGACY_WS_PORT": "0", "DEALER_AUTOSTART": "0"}  # fmt: skip
    port = free_port()
    server = subprocess.Popen(
        [PYTHON, "-m", "daihinmin.serve", "-b", "127.0.0.1", "-p", str(port),
         "daihinmin.asgi:application"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    wait_listening(port, server)
    return server


def migrated_db(work: Path) -> Path:
    db = work / "migrated.sqlite3"
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{db}", "DEBUG": "0", "SECRET_KEY": "bench"}
    subprocess.run([PYTHON, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    return db


def report(name: str, runs: list[Run]) -> None:
    rate = statistics.median(r.games / r.seconds for r in runs)
    cpu_turn = statistics.median(r.cpu / max(r.turns, 1) for r in runs)
    peak = max(r.peak_kb for r in runs)
    turns = statistics.median(r.turns / r.games for r in runs)
    print(
        f"{name}: {rate:,.1f} games/s (median of {len(runs)}), {turns:.1f} turns a game, "
        f"server CPU {cpu_turn * 1e6:,.0f} µs a turn, peak {peak / 1024:,.1f} MiB",
        flush=True,
    )


def compare(results: dict[str, list[Run]]) -> None:
    """Each ``uecda_match`` configuration with stock clients against tndhms: the ratio of
    their games/s in each run (the two ran minutes apart, on the machine as it was then),
    and the median of those ratios, steadier than a ratio of medians on a machine whose
    speed drifts."""
    base = results["tndhms, 5 stock clients"]
    for name, runs in results.items():
        if name.startswith("uecda_match") and "stock" in name:
            ratios = [
                (r.games / r.seconds) / (t.games / t.seconds)
                for r, t in zip(runs, base, strict=True)
            ]
            each = ", ".join(f"{x:.2f}" for x in ratios)
            print(f"{name} / tndhms: {statistics.median(ratios):.2f}× (runs: {each})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    stock = bool(os.environ.get("TNDHMS") and os.environ.get("UECDA_CLIENT"))
    redis = os.environ.get("REDIS_URL", "")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        migrated = migrated_db(work)
        server = spectated_server(migrated, work, redis) if redis else None
        results: dict[str, list[Run]] = {}
        for _ in range(args.runs):
            for house, client, clients in WATCHED:
                for watch in (False, True):  # what serving the pages costs the match
                    name = "uecda_match --watch (a socket reading)" if watch else "uecda_match"
                    results.setdefault(f"{name}, {clients}", []).append(
                        uecda_match(args.games, client, migrated, work, house=house, watch=watch)
                    )
            if redis:  # the live frames built and sent to a server's relay through Redis
                results.setdefault("uecda_match, 5 project clients, live frames", []).append(
                    uecda_match(args.games, project_client, migrated, work, redis=redis)
                )
            if stock:
                results.setdefault("tndhms, 5 stock clients", []).append(tndhms(args.games, work))
                results.setdefault("uecda_match, 5 stock clients", []).append(
                    uecda_match(args.games, stock_client, migrated, work)
                )
                results.setdefault("uecda_match --poll 0, 5 stock clients", []).append(
                    uecda_match(args.games, stock_client, migrated, work, poll=0.0)
                )  # what polling before sleeping buys
                for every in (0.0, 1.0):  # games written behind the match: what durability costs
                    results.setdefault(
                        f"uecda_match --write-every {every:g}, 5 stock clients", []
                    ).append(uecda_match(args.games, stock_client, migrated, work, every))
                if redis:
                    results.setdefault("uecda_match, 5 stock clients, live frames", []).append(
                        uecda_match(args.games, stock_client, migrated, work, redis=redis)
                    )
        if server is not None:
            server.terminate()
            server.wait()
        print(f"{args.games} games a match, {os.cpu_count()} cores")
        for name, runs in results.items():
            report(name, runs)
        if stock:
            compare(results)
        else:
            print("tndhms: not run (set TNDHMS and UECDA_CLIENT to a built tndhms and client)")
        if not redis:
            print("live frames: not run (set REDIS_URL: a server there receives them)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
