"""``make serve-prod`` checks its prerequisites first and stops in seconds with one line.

Without the check, a missing database showed as a dozen pool warnings over half a minute
and two stacked tracebacks; a missing Redis or nginx failed later, midway through starting.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.timing import guard

ROOT = Path(__file__).resolve().parent.parent
NOTHING_LISTENS = "127.0.0.1:9"  # the discard port: nothing serves it here
A_STAND_IN_NGINX = "/bin/true"  # passes the nginx check; the run stops before starting it


def serve_prod(*args: str, **env: str) -> tuple[subprocess.CompletedProcess, float]:
    environment = {
        key: value
        for key, value in os.environ.items()
        if key not in {"DATABASE_URL", "REDIS_URL", "NGINX"}
    }
    environment.update({"LEGACY_WS_PORT": "0", **env})  # the stream module: its own case
    started = time.monotonic()
    result = subprocess.run(
        [sys.executable, "deploy/serve_prod.py", "--processes", "1", *args],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=guard(60),
    )
    return result, time.monotonic() - started


@pytest.mark.parametrize(
    ("args", "env", "says"),
    [
        (["--nginx", "/nonexistent/nginx"], {}, "nginx not found at /nonexistent/nginx"),
        (
            ["--nginx", A_STAND_IN_NGINX],  # `nginx -V` says nothing: no stream module
            {"LEGACY_WS_PORT": "8081"},
            "nginx has no stream module for the 2011 event stream",
        ),
        (
            ["--nginx", A_STAND_IN_NGINX],
            {"REDIS_URL": f"redis://{NOTHING_LISTENS}/0"},
            "Redis at REDIS_URL does not answer",
        ),
        (
            ["--nginx", A_STAND_IN_NGINX],
            {"DATABASE_URL": f"postgres://postgres@{NOTHING_LISTENS}/nowhere"},
            "PostgreSQL database 'nowhere' at 127.0.0.1 cannot be reached",
        ),
    ],
    ids=["nginx", "stream-module", "redis", "database"],
)
def test_a_missing_prerequisite_stops_it_at_once_with_one_line(args, env, says) -> None:
    result, seconds = serve_prod(*args, **env)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("serve_prod: cannot start: ")
    assert says in lines[0]
    assert result.stdout == ""  # nothing started: no migration, no secret drawn
    assert seconds < guard(20), f"the check took {seconds:.1f} s"
