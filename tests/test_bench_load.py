"""``bench/load.py`` says what went wrong and exits, rather than wait forever (issue 36: with
its bots' logins refused it never printed a figure)."""

from __future__ import annotations

import subprocess
import sys

from harness.server import ROOT, free_port


def test_a_bots_worker_that_cannot_log_in_says_why_and_exits_1(tmp_path):
    out = tmp_path / "worker.json"
    nobody = f"http://127.0.0.1:{free_port()}"  # nothing listens: every login fails
    done = subprocess.run(
        [sys.executable, "bench/load.py", "worker", nobody, '[[1, "load0-0"]]', str(out), "60"],
        cwd=ROOT, capture_output=True, text=True, timeout=170,
    )  # fmt: skip
    assert done.returncode == 1
    assert not out.exists()
    why = (tmp_path / "worker.json.failed").read_text()
    assert why.startswith("RuntimeError: 1 bots ended before the start: load0-0:"), why
