"""``harness/``: the servers the end-to-end tests and the benchmarks start, usable outside
pytest (issue 36: ``bench/load.py`` failed with pytest's ``Failed`` when it imported them
from ``tests/``)."""

from __future__ import annotations

import subprocess
import sys

from harness.server import ROOT
from tests.timing import guard

OUTSIDE_PYTEST = """
import sys
sys.modules["pytest"] = None  # importing pytest fails from here on
import harness
from harness import server, stack
stack.NGINX = "/nonexistent/nginx"
try:
    stack.require_nginx()
except harness.Missing as e:
    print(type(e).__mro__[1].__name__, e)
"""


def test_the_harness_imports_and_fails_without_pytest():
    """Without pytest: the modules import, and a missing program is an ordinary exception
    (a ``RuntimeError``, saying what to install) that a benchmark can report."""
    done = subprocess.run(
        [sys.executable, "-c", OUTSIDE_PYTEST],
        cwd=ROOT, capture_output=True, text=True, timeout=guard(60),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == (
        "RuntimeError /nonexistent/nginx is missing: apt-get install -y nginx (.ci/run does it)"
    )


def test_the_benchmarks_start_their_servers_from_the_harness_not_the_tests():
    for script in sorted((ROOT / "bench").glob("*.py")):
        assert "tests.e2e" not in script.read_text(), script.name
