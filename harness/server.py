"""A real server for end-to-end tests and benchmarks: daphne in a subprocess, on its own
database.

pytest-django's live_server has no WebSockets, so the tests start daphne
themselves, on a free port, with a database of their own (a SQLite file, or a
fresh PostgreSQL database when DATABASE_URL points at PostgreSQL) and the
channel layer of the environment (Redis when REDIS_URL is set).
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import httpx

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


#: The database every server of this test process starts from, migrated once: a SQLite
#: file's path or a PostgreSQL database's name. ``manage.py migrate`` in a subprocess
#: costs seconds a server; a copy of its result (SQLite's backup, PostgreSQL's
#: ``CREATE DATABASE … TEMPLATE``) is the same database in a fraction of that.
_templates: dict[str, str] = {}


def _migrated_template(env: dict[str, str], psql, parts) -> str:
    """This process's migrated template database (made on the first call), dropped at exit."""
    if "db" in _templates:
        return _templates["db"]
    env = dict(env)
    if psql is None:
        folder = Path(tempfile.mkdtemp(prefix="daihinmin-e2e-template-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        template = str(folder / "migrated.sqlite3")
        env["DATABASE_URL"] = f"sqlite:///{template}"
    else:
        template = f"daihinmin_e2e_template_{uuid.uuid4().hex[:10]}"
        psql(f'CREATE DATABASE "{template}"')
        atexit.register(psql, f'DROP DATABASE IF EXISTS "{template}" WITH (FORCE)')
        env["DATABASE_URL"] = urlunsplit(parts._replace(path=f"/{template}"))
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput"],
        cwd=ROOT, env=env, capture_output=True, text=True, check=True, timeout=120,
    )  # fmt: skip
    _templates["db"] = template
    return template


class Server:
    def __init__(self, workdir: Path, legacy: bool = False, uecda: bool = False, **env: str):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.ws_url = f"ws://127.0.0.1:{self.port}"
        self.workdir = workdir
        self.env = {
            **os.environ,
            "DEBUG": "1",
            "DEALER_AUTOSTART": "1",
            "DEALER_LEASE_SECONDS": "1",
            "PYTHONUNBUFFERED": "1",
            # no 2011 stream unless a test asks for one on a free port (legacy=True):
            # 8081 may be another server's
            "LEGACY_WS_PORT": str(free_port()) if legacy else "0",
            # nor a UECda port unless asked (uecda=True): 42485 may be another server's
            "UECDA_PORT": str(free_port()) if uecda else "0",
            # events and counts of its own on a shared Redis (its siblings share them)
            "REDIS_PREFIX": f"e2e-{uuid.uuid4().hex[:10]}",
            # record files of its own database (a place's id is another in another)
            "RECORDS_CACHE_DIR": str(workdir / "records"),
            **env,
        }
        self.env.pop("DJANGO_SETTINGS_MODULE", None)
        #: The 2011 event stream's port (places/realtime/legacy.py), 0 when none.
        self.legacy_port = int(self.env["LEGACY_WS_PORT"])
        #: The UECda clients' port (places/uecda/shared.py), 0 when none.
        self.uecda_port = int(self.env["UECDA_PORT"])
        self._pg_admin_url: str | None = None
        base = os.environ.get("DATABASE_URL", "")
        if base.startswith(("postgres://", "postgresql://")):
            name = f"daihinmin_e2e_{uuid.uuid4().hex[:10]}"
            parts = urlsplit(base)
            self._pg_admin_url = urlunsplit(parts._replace(path="/postgres"))
            self._pg_db = name
            template = _migrated_template(self.env, self._psql, parts)
            self._psql(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
            self.env["DATABASE_URL"] = urlunsplit(parts._replace(path=f"/{name}"))
        else:
            template = _migrated_template(self.env, None, None)
            database = workdir / "e2e.sqlite3"
            with (
                contextlib.closing(sqlite3.connect(template)) as source,
                contextlib.closing(sqlite3.connect(database)) as target,
            ):
                source.backup(target)
            self.env["DATABASE_URL"] = f"sqlite:///{database}"
        self.process: subprocess.Popen | None = None
        self.log = open(workdir / "daphne.log", "ab")  # noqa: SIM115 - closed in stop()

    def sibling(self, **env: str) -> Server:
        """Another daphne process on the same database and channel layer (not started).

        Stopping it leaves the database to this server, which created it.
        """
        other = Server.__new__(Server)
        other.port = free_port()
        other.url = f"http://127.0.0.1:{other.port}"
        other.ws_url = f"ws://127.0.0.1:{other.port}"
        other.workdir = self.workdir
        other.env = {**self.env, **env}
        if self.legacy_port and "LEGACY_WS_PORT" not in env:
            other.env["LEGACY_WS_PORT"] = str(free_port())
        other.legacy_port = int(other.env["LEGACY_WS_PORT"])
        if "UECDA_PORT" not in env:
            other.env["UECDA_PORT"] = "0"  # one process owns the UECda port
        other.uecda_port = int(other.env["UECDA_PORT"])
        other._pg_admin_url = None
        other.process = None
        other.log = open(self.workdir / f"daphne-{other.port}.log", "ab")  # noqa: SIM115
        return other

    def _psql(self, sql: str) -> None:
        import psycopg

        with psycopg.connect(self._pg_admin_url, autocommit=True) as conn:
            conn.execute(sql)

    def manage(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            check=check,
            timeout=120,
        )

    def manage_all(self, *commands: list[str]) -> list[str]:
        """Several management commands in one process, what each wrote: ``call_command``
        parses each one's arguments as its command line would be. A process a command
        costs a Django start-up each (seconds on a busy machine)."""
        code = (
            "import io, json; from django.core.management import call_command\n"
            "written = []\n"
            f"for args in {[list(c) for c in commands]!r}:\n"
            "    out = io.StringIO()\n"
            "    call_command(*args, stdout=out)\n"
            "    written.append(out.getvalue())\n"
            "print(json.dumps(written))\n"
        )
        done = self.manage("shell", "--no-imports", "-c", code)
        return json.loads(done.stdout.splitlines()[-1])

    def command(self) -> list[str]:
        """daphne, on uvloop, as ``make serve`` runs it; ``ASGI_SERVER=uvicorn`` in the
        environment runs uvicorn instead (its C parsers, uvloop; ``bench/place.py``)."""
        if self.env.get("ASGI_SERVER") == "uvicorn":
            return [
                sys.executable, "-m", "uvicorn", "daihinmin.asgi:application",
                "--host", "127.0.0.1", "--port", str(self.port),
                "--loop", "uvloop", "--http", "httptools", "--ws", "websockets",
                "--no-access-log", "--log-level", "warning",
            ]  # fmt: skip
        return [
            sys.executable, "-m", "daihinmin.serve",
            "-b", "127.0.0.1", "-p", str(self.port), "daihinmin.asgi:application",
        ]  # fmt: skip

    def start(self, within: float = 90) -> None:
        """Start the process; return once it answers ``/healthz`` (in ``within`` seconds:
        a process that dies says so at once, and one that lives may take half a minute to
        answer on two cores under load, as CI's may be)."""
        self.process = subprocess.Popen(
            self.command(),
            cwd=ROOT,
            env=self.env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{self.url}/healthz", timeout=1).status_code == 200:
                    # the dealer starts with the first connection
                    return
            except httpx.HTTPError:
                pass
            if self.process.poll() is not None:
                raise RuntimeError(f"daphne exited: see {self.workdir / 'daphne.log'}")
            time.sleep(0.1)
        raise RuntimeError(f"daphne did not answer within {within:.0f} s")

    def kill(self) -> None:
        """Kill -9: no clean shutdown, as a crash or a power cut."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(10)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()
        self.log.close()
        if self._pg_admin_url:
            self._psql(f'DROP DATABASE IF EXISTS "{self._pg_db}" WITH (FORCE)')

    def bot(
        self,
        place_id: int,
        name: str,
        password: str,
        strategy: str = "greedy",
        transport: str = "http",
        through: str | None = None,
    ) -> subprocess.Popen:
        """A bot process of this server; ``through``: the URL of a proxy its HTTP goes
        through (its socket still comes here)."""
        via = ["--ws-server", self.ws_url] if through else []
        return subprocess.Popen(
            [
                sys.executable,
                "-m",
                "bots",
                *via,
                "--server",
                through or self.url,
                "--place",
                str(place_id),
                "--name",
                name,
                "--password",
                password,
                "--strategy",
                strategy,
                "--transport",
                transport,
            ],
            cwd=ROOT,
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )

    def events_after(self, place_id: int, after: int) -> tuple[int, list[dict]]:
        """One answer of the event log over HTTP: the last number and the events after ``after``."""
        body = httpx.get(
            f"{self.url}/places/{place_id}/events.json", params={"after": after}, timeout=10
        ).json()
        assert body["first_seq"] == after + 1
        return body["last_seq"], body["events"]

    def events(self, place_id: int) -> list[dict]:
        """The place's whole event log, read back over HTTP (of a place that has stopped:
        a running one may grow faster than it is read)."""
        out: list[dict] = []
        after = 0
        while True:
            last, events = self.events_after(place_id, after)
            out.extend(events)
            if last == after:
                return out
            after = last

    def events_from_database(self, place_id: int) -> list[dict]:
        """The event log read with a management command: works while the server is down."""
        code = (
            "import json; from places.models import PlaceEvent; "
            f"print(json.dumps([json.loads(m) for m in PlaceEvent.objects.filter(place_id={place_id})"
            ".order_by('seq').values_list('message', flat=True)]))"
        )
        return json.loads(self.manage("shell", "--no-imports", "-c", code).stdout)
