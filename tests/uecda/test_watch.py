"""``uecda_match --watch PORT``: the match's pages served by the command's own process, on the
embedded defaults (a SQLite file, the in-memory channel layer, no Redis).

The addresses it prints answer while the match waits for its clients, while it plays and
after it (the replay, the records); the live page's socket gets the match's frames; the
pages stay until SIGTERM, or ``--watch-linger`` seconds. Without ``--watch`` the
process listens on the UECda port alone. A taken port or a bad linger is one line and
exit status 1, before the UECda port opens.
"""

from __future__ import annotations

import asyncio
import json
import os
import queue
import re
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from bots.strategies import Strategy, resolve
from bots.uecda import UecdaClient
from daifugo.view import BOOK_UECDA, View
from harness.server import ROOT
from tests.pages.test_live_uecda_browser import frames_until_over
from tests.timing import guard

pytestmark = pytest.mark.e2e

#: The lines ``--watch`` prints: the site before the clients come, the place once it is made.
SITE = re.compile(r"^uecda_match: watch at (http://127\.0\.0\.1:\d+)/ \(")
PAGE = re.compile(r"^uecda_match: watch at (http://127\.0\.0\.1:\d+/places/(\d+)/)$")
LISTENING = re.compile(
    r"^uecda_match: listening on 127\.0\.0\.1:(\d+), \d+ games by the \S+ rules$"
)
STAYS = re.compile(r"^uecda_match: the match is over; its pages stay at \S+ (.+)$")


def embedded_env(folder: Path) -> dict[str, str]:
    """The environment of a bot author's laptop: a migrated SQLite file, no Redis."""
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "DATABASE_URL")}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    env.update(DATABASE_URL=f"sqlite:///{folder / 'db.sqlite3'}", PYTHONUNBUFFERED="1")
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "-v0"],
        cwd=ROOT, env=env, check=True, timeout=120,
    )  # fmt: skip
    return env


@pytest.fixture(scope="module")
def env(tmp_path_factory) -> dict[str, str]:
    return embedded_env(tmp_path_factory.mktemp("uecda-watch"))


class Watched:
    """``uecda_match --watch 0`` (and ``args``) in a subprocess, its stderr's lines read as they
    come (:meth:`line`)."""

    def __init__(self, env: dict[str, str], games: int, *args: str, watch: bool = True):
        self.games = games
        self.process = subprocess.Popen(
            [sys.executable, "manage.py", "uecda_match", "--games", str(games), "--port", "0",
             "--host", "127.0.0.1", "--seed", "watch", *(["--watch", "0"] if watch else []),
             *args],
            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        self.errors: queue.Queue[str] = queue.Queue()
        self.said: list[str] = []  # every stderr line read so far
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.process.stderr:
            self.errors.put(line.rstrip("\n"))

    def line(self, pattern: re.Pattern, timeout: float = 60) -> re.Match:
        """The next stderr line that matches ``pattern``."""
        while True:
            try:
                line = self.errors.get(timeout=timeout)
            except queue.Empty:
                raise AssertionError(f"no line like {pattern.pattern}; said {self.said}") from None
            self.said.append(line)
            found = pattern.match(line)
            if found:
                return found

    def result(self, timeout: float = 120) -> int:
        """The place of the match's last line (stdout: ``uecda_match: place P, N games in S s``),
        the standings printed before it kept in ``standings``."""
        done = queue.Queue()

        def read() -> None:
            for line in self.process.stdout:
                done.put(line)
                if line.startswith("uecda_match: "):
                    return
            done.put("")

        threading.Thread(target=read, daemon=True).start()
        self.standings: list[str] = []
        while (last := done.get(timeout=timeout)) and not last.startswith("uecda_match: "):
            self.standings.append(last.rstrip("\n"))
        found = re.match(rf"uecda_match: place (\d+), {self.games} games in ", last)
        assert found, (last, self.standings)
        return int(found[1])

    def terminate(self) -> int:
        """SIGTERM, and its exit status."""
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(30)

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)


class Gate:
    """Holds the match (its clients' thread) at the first move each of ``whens`` holds, in
    turn, until that stop is released: a client that does not answer holds a match without
    a time limit, as in tndhms. A when is told the clients' moves so far (from 1) and the
    view of this one."""

    def __init__(self, *whens: Callable[[int, View], bool]):
        self.whens = whens
        self.made = 0
        self.at = 0
        self.reached = [threading.Event() for _ in whens]
        self.released = [threading.Event() for _ in whens]

    def wrap(self, strategy: Strategy) -> Strategy:
        def choose(view: View):
            self.made += 1
            if self.at < len(self.whens) and self.whens[self.at](self.made, view):
                stop, self.at = self.at, self.at + 1
                self.reached[stop].set()
                self.released[stop].wait(120)
            return strategy(view)

        return choose

    def release_all(self) -> None:
        for event in self.released:
            event.set()


def play(port: int, gate: Gate, names: tuple[str, ...] = ("ann", "bea")) -> threading.Thread:
    """The project's UECda clients (``bots.uecda``, stock strategy, as ``python -m bots
    --transport uecda`` plays), in a thread, through ``gate``."""
    clients = [
        UecdaClient("127.0.0.1", port, name, gate.wrap(resolve("stock", i, BOOK_UECDA)))
        for i, name in enumerate(names)
    ]

    async def all_clients() -> None:
        await asyncio.gather(*(c.run() for c in clients))

    thread = threading.Thread(target=lambda: asyncio.run(all_clients()), daemon=True)
    thread.start()
    return thread


def listening_ports(pid: int) -> set[int]:
    """The TCP ports a process listens on (its sockets' inodes in /proc/net/tcp{,6})."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        target = os.readlink(fd) if fd.is_symlink() else ""
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    ports = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for row in Path(table).read_text().splitlines()[1:]:
            cells = row.split()
            if cells[3] == "0A" and cells[9] in inodes:  # 0A: LISTEN
                ports.add(int(cells[1].rsplit(":", 1)[1], 16))
    return ports


def port_of(url: str) -> int:
    return int(url.rsplit(":", 1)[1].split("/")[0])


def test_the_printed_addresses_serve_the_match_live_and_after_it(env):
    games = 20
    match = Watched(env, games, "--house", "stock", "--house", "greedy", "--house", "shedder")
    gate = Gate(lambda made, view: True)  # the first move: the socket opens meanwhile
    try:
        site = match.line(SITE)[1]
        port = int(match.line(LISTENING)[1])
        home = httpx.get(f"{site}/", timeout=30)  # before any client: the site answers
        assert home.status_code == 200
        assert httpx.get(f"{site}/static/js/live-uecda.js", timeout=30).status_code == 200
        assert listening_ports(match.process.pid) == {port, port_of(site)}
        clients = play(port, gate)
        found = match.line(PAGE)
        page, place = found[1], int(found[2])
        live = httpx.get(page, timeout=30)
        assert live.status_code == 200 and 'id="live"' in live.text
        assert gate.reached[0].wait(60)
        frames: list[dict] = []
        opened = threading.Event()
        url = page.replace("http://", "ws://").replace("/places/", "/ws/places/") + "live/"
        reader = threading.Thread(
            target=lambda: asyncio.run(frames_until_over(url, games, frames, opened)),
            daemon=True,
        )
        reader.start()
        assert opened.wait(30)
        gate.release_all()
        assert match.result() == place
        # the standings, read off the pages' loop, came before the last line
        assert match.standings[0].split()[:3] == ["#", "player", "points"]
        assert len(match.standings) == 6
        reader.join(60)
        clients.join(60)
        # the frames of every game, in order, in this process without Redis
        assert [f["game"] for f in frames if f["phase"] == "over"] == list(range(1, games + 1))
        steps = [(f["game"], f["at"]) for f in frames]
        assert steps == sorted(steps)
        assert match.line(STAYS)[1] == "until Ctrl-C or SIGTERM"
        # after the match: the pages stay, the replay and the records are there
        replay = httpx.get(f"{site}/places/{place}/games/{games}/replay", timeout=30)
        assert replay.status_code == 200
        records = httpx.get(f"{site}/places/{place}/records.jsonl", timeout=30).text
        assert [json.loads(r)["game"] for r in records.splitlines()] == list(range(1, games + 1))
        assert match.process.poll() is None
        assert match.terminate() == 0
        with pytest.raises(httpx.ConnectError):
            httpx.get(f"{site}/", timeout=5)
    finally:
        gate.release_all()
        match.kill()


def test_without_watch_the_process_listens_on_the_uecda_port_alone(env):
    match = Watched(env, 1, watch=False)
    try:
        port = int(match.line(LISTENING)[1])  # it waits for its clients now
        assert listening_ports(match.process.pid) == {port}
        assert not any("watch at" in line for line in match.said)
    finally:
        match.kill()


def test_the_pages_stay_for_the_linger_and_the_command_exits_by_itself(env):
    houses = [a for name in ("stock", "greedy", "shedder", "random", "stock")
              for a in ("--house", name)]  # fmt: skip
    match = Watched(env, 3, *houses, "--watch-linger", "1.5")  # no client: five house bots
    try:
        site = match.line(SITE)[1]
        place = match.result()
        assert match.line(STAYS)[1] == "for 1.5 s"
        assert httpx.get(f"{site}/places/{place}/", timeout=30).status_code == 200
        assert match.process.wait(30) == 0
    finally:
        match.kill()


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--watch-linger", "-1"], "CommandError: --watch-linger takes seconds, 0 or more"),
        (["--watch", "TAKEN"], "CommandError: cannot serve --watch on 127.0.0.1:TAKEN: "
         "Address already in use"),
    ],
)  # fmt: skip
def test_a_bad_watch_is_one_line_before_the_uecda_port_opens(env, args, says):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        args = [a.replace("TAKEN", port) for a in args]
        done = subprocess.run(
            [sys.executable, "manage.py", "uecda_match", "--games", "1", "--port", "0",
             "--watch", "0", *args],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=guard(60),
        )  # fmt: skip
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [says.replace("TAKEN", port)]


def test_the_printed_address_is_one_a_browser_here_opens():
    from places.uecda.watch_pages import site_url

    assert site_url("127.0.0.1", 8000) == "http://127.0.0.1:8000"
    assert site_url("0.0.0.0", 8000) == "http://127.0.0.1:8000"  # every interface: loopback's
    assert site_url("::", 8000) == "http://[::1]:8000"
    assert site_url("[::1]", 8001) == "http://[::1]:8001"
    assert site_url("192.0.2.7", 80) == "http://192.0.2.7:80"
