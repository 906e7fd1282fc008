"""The production layout in a test: ``deploy/serve_prod.py`` (nginx in front of several
server processes, production settings) on a :class:`Server`'s database and Redis."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

from harness import Missing
from harness.server import ROOT, Server, free_port

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"


def require_nginx() -> None:
    """nginx is part of the layout: CI installs it (``.ci/run``); :class:`Missing` if absent."""
    if not Path(NGINX).exists():
        raise Missing(f"{NGINX} is missing: apt-get install -y nginx (.ci/run does it)")


def free_ports(n: int) -> int:
    """The first of ``n`` consecutive free ports."""
    for _ in range(100):
        first = free_port()
        if all(bindable(first + i) for i in range(1, n)):
            return first
    raise RuntimeError(f"no {n} consecutive free ports")


def bindable(port: int) -> bool:
    """Whether this machine's loopback port can be bound now."""
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


class Stack:
    """nginx on ``url`` in front of ``processes`` server processes on ``ports``."""

    def __init__(
        self,
        server: Server,
        processes: int = 2,
        legacy: bool = False,
        tls: tuple[Path, Path] | None = None,
        **env: str,
    ):
        """``legacy``: nginx serves the 2011 event stream too; ``tls``: a certificate and
        its key, for nginx to serve https:// and wss://."""
        require_nginx()
        self.server = server
        listen = free_port()
        first = free_ports(processes)
        self.ports = [first + i for i in range(processes)]
        secure = "s" if tls else ""
        self.url = f"http{secure}://127.0.0.1:{listen}"
        self.ws_url = f"ws{secure}://127.0.0.1:{listen}"
        #: nginx's port for the 2011 event stream (``legacy``), 0 when none.
        self.legacy_port = free_port() if legacy else 0
        self.env = {
            **server.env,
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "SECRET_KEY": "a-test-stack-secret-key-of-some-length-0123456789",
            "LEGACY_WS_PORT": str(self.legacy_port),
            **env,
        }
        self.log_path = server.workdir / "stack.log"
        self.log = open(self.log_path, "ab")  # noqa: SIM115 - closed in stop()
        command = [sys.executable, "deploy/serve_prod.py", "--processes", str(processes)]
        command += ["--listen", f"127.0.0.1:{listen}", "--first-port", str(first)]
        if legacy:  # each process's own 2011 port, behind nginx's
            command += ["--first-legacy-port", str(free_ports(processes))]
        self.run_dir = server.workdir / "nginx"
        command += ["--run-dir", str(self.run_dir)]
        if tls:
            command += ["--tls-certificate", str(tls[0]), "--tls-key", str(tls[1])]
        self.process = subprocess.Popen(
            command, cwd=ROOT, env=self.env, stdout=self.log, stderr=subprocess.STDOUT
        )
        # a guard against a hang, not a figure: a loaded machine took more than 90 s
        deadline = time.monotonic() + 240
        while f"serve_prod: {self.url}" not in self.log_path.read_text(errors="replace"):
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"serve_prod did not come up: see {self.log_path}")
            time.sleep(0.2)

    def front(self) -> Server:
        """A :class:`Server` whose URLs are nginx's (its bots and reads go through nginx)."""
        front = self.server.sibling()
        front.url, front.ws_url = self.url, self.ws_url
        return front

    def process_ws_url(self, i: int) -> str:
        return f"ws://127.0.0.1:{self.ports[i]}"

    def get(self, path: str) -> httpx.Response:
        return httpx.get(self.url + path, timeout=10)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
        self.log.close()

    def pid_of(self, port: int) -> int:
        """The pid of the server process on ``port`` now (``serve_prod`` restarts the dead)."""
        return int((self.run_dir / f"server-{port}.pid").read_text())


class PrivateRedis:
    """A Redis of the test's own on a free port, to stop and start at will."""

    def __init__(self, workdir: Path):
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.workdir = workdir
        self.process: subprocess.Popen | None = None
        self.start()

    def start(self) -> None:
        command = ["redis-server", "--bind", "127.0.0.1", "--port", str(self.port)]
        command += ["--save", "", "--appendonly", "no", "--dir", str(self.workdir)]
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while not self.answers():
            if time.monotonic() > deadline:
                raise RuntimeError("redis-server did not start")
            time.sleep(0.05)

    def answers(self) -> bool:
        ping = subprocess.run(
            ["redis-cli", "-p", str(self.port), "ping"], capture_output=True, text=True
        )
        return ping.stdout.strip() == "PONG"

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(10)
