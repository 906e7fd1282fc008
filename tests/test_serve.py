"""``python -m daihinmin.serve``: daphne, on uvloop unless told otherwise."""

from __future__ import annotations

import os
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
