"""Fuzz the player API with schemathesis against a real daphne (CI step 3).

    .venv/bin/python tests/fuzz_api.py     # FUZZ_MAX_EXAMPLES=100, FUZZ_KEEP=1 keeps the logs

It serves the project with daphne on a free port (production settings: DEBUG off,
a secret key, ALLOWED_HOSTS=127.0.0.1; the dealer on, a temporary SQLite file),
creates five users and a running place whose turns time out quickly (so the place
keeps moving while the fuzzer posts), logs the first player in, and runs
``schemathesis run`` on ``/api/schema/?paths=each`` (every path apart: the published
description merges a route's formats into one ``{format}`` operation, whose plain form
schemathesis cannot generate) with that session cookie. The checks:
no server error, and every answer as the schema the server publishes says it is
(status, content type, headers, the body against the response schema, Allow).
The logout paths are fuzzed last, on their own, so that they do not end the
session in the middle. The server is stopped and the files removed at exit.
Exits non-zero when schemathesis finds a failure or the run exceeds its time.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
SCHEMATHESIS = str(Path(PYTHON).parent / "schemathesis")
MAX_EXAMPLES = int(os.environ.get("FUZZ_MAX_EXAMPLES", "100"))
#: The answers must be what the published schema says (``FUZZ_CHECKS`` to choose others).
CHECKS = os.environ.get(
    "FUZZ_CHECKS",
    "not_a_server_error,status_code_conformance,content_type_conformance,"
    "response_headers_conformance,response_schema_conformance,allow_header_conformance",
)
#: Seconds for both schemathesis runs: a bound for a hang, not a speed check. Both take
#: about 85 s on an idle 2-core machine; a loaded one ran them 3 times slower, over the
#: 240 s this was, and CI failed with no error found.
RUN_TIMEOUT = float(os.environ.get("FUZZ_TIMEOUT", "600"))
NAMES = ["fuzz1", "fuzz2", "fuzz3", "fuzz4", "fuzz5"]

SETUP = f"""
from django.contrib.auth import get_user_model
from places import services
names = {NAMES!r}
for name in names:
    get_user_model().objects.create_user(name, password=name + "-pw")
place = services.create_place(
    "Fuzzing", names, game_count=100000, pace=0, time_limit=0.3, seed="fuzz"
)
services.start_place(place.id)
print("PLACE", place.id)
"""


def log(text: str) -> None:
    print(f"fuzz: {text}", flush=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until_up(base: str, server: subprocess.Popen, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"fuzz: daphne exited with {server.returncode}")
        try:
            if httpx.get(base + "/healthz", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise SystemExit("fuzz: daphne did not come up")


def schemathesis(base: str, extra: list[str], timeout: float, cwd: Path) -> int:
    command = [
        SCHEMATHESIS,
        "run",
        base + "/api/schema/?paths=each",
        "--checks",
        CHECKS,
        "--max-examples",
        str(MAX_EXAMPLES),
        "--generation-with-security-parameters",
        "false",
        "--generation-database",
        "none",
        "--request-timeout",
        "20",
        "--wait-for-schema",
        "30",
        "--no-color",
        *extra,
    ]
    log("$ " + " ".join(c if "sessionid=" not in c else "Cookie: sessionid=…" for c in command))
    try:
        done = subprocess.run(
            command, cwd=cwd, timeout=timeout, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
        )
    except subprocess.TimeoutExpired as ran_over:
        show_report(ran_over.stdout or b"")
        log(f"schemathesis ran over {timeout:.0f} s")
        return 1
    show_report(done.stdout)
    return done.returncode


def show_report(output: bytes) -> None:
    """Print schemathesis's report with every line marked as the fuzzer's.

    Its "=== … in 0.56s ===" banners look like a pytest summary; unmarked, a reader
    of the CI log (or a script) could take them for the test suite's own result.
    """
    for line in output.decode(errors="replace").splitlines():
        print(f"fuzz| {line}", flush=True)


def main() -> int:
    work = Path(tempfile.mkdtemp(prefix="daihinmin-fuzz-"))
    env = {
        **os.environ,
        "DEBUG": "0",
        "SECRET_KEY": "fuzz-only-secret",
        "ALLOWED_HOSTS": "127.0.0.1",
        "DEALER_AUTOSTART": "1",
        "DATABASE_URL": f"sqlite:///{work}/db.sqlite3",  # an absolute path: sqlite:////tmp/…
        "PYTHONUNBUFFERED": "1",
        "LEGACY_WS_PORT": "0",  # the API's port alone; 8081 may be another server's
        "UECDA_PORT": "0",  # and 42485 too
        # failed logins get 429 after a few; let the fuzzer reach the login logic for a while
        # (each failure costs a password hash, ~0.3 s: a limit keeps the run short)
        "LOGIN_FAILURE_LIMIT": "100",
        "LOGIN_ADDRESS_FAILURE_LIMIT": "100",
        "LOGIN_NAME_FAILURE_LIMIT": "100",
    }
    env.pop("REDIS_URL", None)
    server: subprocess.Popen | None = None
    server_log = open(work / "daphne.log", "wb")  # noqa: SIM115  closed in finally
    try:
        subprocess.run(
            [PYTHON, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True
        )
        out = subprocess.run(
            [PYTHON, "manage.py", "shell", "-c", SETUP],
            cwd=ROOT,
            env=env,
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        place_id = int(
            next(line for line in out.splitlines() if line.startswith("PLACE")).split()[1]
        )
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        server = subprocess.Popen(
            [
                *(PYTHON, "-m", "daihinmin.serve", "-b", "127.0.0.1", "-p", str(port)),
                *("--access-log", str(work / "access.log"), "daihinmin.asgi:application"),
            ],
            cwd=ROOT,
            env=env,
            stdout=server_log,
            stderr=subprocess.STDOUT,
        )
        log(f"daphne pid {server.pid} on {base}, place {place_id}")
        wait_until_up(base, server)
        login = httpx.post(
            base + "/sessions.json",
            data={"name": NAMES[0], "password": NAMES[0] + "-pw", "place_id": place_id},
        )
        if login.status_code != 200:
            log(f"login failed: {login.status_code} {login.text[:200]}")
            return 1
        cookie = ["-H", f"Cookie: sessionid={login.cookies['sessionid']}"]
        started = time.monotonic()
        rc = schemathesis(base, [*cookie, "--exclude-path-regex", "^/logout"], RUN_TIMEOUT, work)
        left = max(30.0, RUN_TIMEOUT - (time.monotonic() - started))
        rc = schemathesis(base, [*cookie, "--include-path-regex", "^/logout"], left, work) or rc
        log(f"both runs took {time.monotonic() - started:.0f} s")
        summarize(work / "access.log")
        errors = [
            line
            for line in (work / "daphne.log").read_text(errors="replace").splitlines()
            if " 500 " in line or "Traceback" in line
        ]
        if errors:
            log("the server logged errors:\n" + "\n".join(errors[:20]))
            rc = rc or 1
        log("no server error found" if rc == 0 else f"FAILED (exit {rc})")
        return rc
    finally:
        if server is not None and server.poll() is None:
            server.terminate()
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
        server_log.close()
        if rc_keep_logs():
            log(f"files kept in {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


def summarize(access_log: Path) -> None:
    """Requests per status, overall and for post_cards (from daphne's access log)."""
    overall: Counter = Counter()
    posts: Counter = Counter()
    for line in access_log.read_text(errors="replace").splitlines():
        m = re.search(r'"([A-Z]+) (\S+)" (\d{3})', line)
        if not m:
            continue
        overall[m.group(3)] += 1
        if "post_cards" in m.group(2):
            posts[m.group(3)] += 1
    log(f"{sum(overall.values())} requests by status: {dict(sorted(overall.items()))}")
    log(f"post_cards by status: {dict(sorted(posts.items()))}")


def rc_keep_logs() -> bool:
    return os.environ.get("FUZZ_KEEP", "") == "1"


def _terminate(signum, frame):  # let the finally clause stop the server
    raise SystemExit(128 + signum)


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, _terminate)
    signal.signal(signal.SIGINT, _terminate)
    sys.exit(main())
