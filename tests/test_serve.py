"""``python -m daihinmin.serve``: daphne, on uvloop unless told otherwise, and the 2011
event stream's port beside it."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROBE = (
    "from daihinmin.serve import use_uvloop; print(use_uvloop()); "
    "import daphne.server as s; print(type(s.twisted_loop).__module__)"
)


def loop_of_daphne(**env: str) -> list[str]:
    """What ``use_uvloop()`` answered, and the module of the loop daphne then made."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=ROOT,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return done.stdout.split()


def test_daphne_runs_on_uvloop():
    assert loop_of_daphne() == ["True", "uvloop"]


def test_uvloop_0_leaves_daphne_on_asyncio_s_own_loop():
    assert loop_of_daphne(UVLOOP="0") == ["False", "asyncio.unix_events"]


def test_a_2011_port_already_taken_stops_the_launcher_saying_so():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "daihinmin.serve", "-b", "127.0.0.1", "-p", "0"]
            + ["daihinmin.asgi:application"],
            cwd=ROOT,
            env={**os.environ, "DEBUG": "1", "LEGACY_WS_PORT": str(port)},
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 1
    assert f"the 2011 event stream's port 127.0.0.1:{port} (LEGACY_WS_PORT)" in done.stderr
    assert "LEGACY_WS_PORT to another port, or 0 for none" in done.stderr
