"""A test that needs what pip cannot install skips on a bare machine, with one line at the
end naming what to install, and fails under ``DAIHINMIN_REQUIRE_ALL=1`` (``.ci/run``).

A run of pytest in a subprocess on a few tests of its own, with a PATH where Ruby and
redis-server cannot be found: the missing tools of a bare machine.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.needs import STRICT

ROOT = Path(__file__).resolve().parents[1]

CONFTEST = """\
from tests.needs import pytest_configure, pytest_runtest_setup, pytest_terminal_summary
"""
TESTS = """\
import pytest

from tests.needs import need


def test_by_a_call():
    need("ruby")


@pytest.mark.needs("ruby", "redis-server")
def test_by_a_marker():
    raise AssertionError("never runs: skipped before")


@pytest.mark.parametrize("n", range(3))
def test_of_a_service(n):
    need("redis")


def test_with_everything():
    need()
"""


def run_pytest(folder: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    (folder / "conftest.py").write_text(CONFTEST)
    (folder / "test_tiny.py").write_text(TESTS)
    bare = {k: v for k, v in os.environ.items() if k not in (STRICT, "REDIS_URL", "DATABASE_URL")}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:django", *args],
        cwd=folder,
        env={**bare, "PATH": str(folder), "PYTHONPATH": str(ROOT), **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_missing_tool_skips_with_one_line_naming_what_to_install(tmp_path):
    result = run_pytest(tmp_path, "-n", "2")  # the workers' skips, summed up once
    out = result.stdout
    assert result.returncode == 0, out
    assert "1 passed, 5 skipped" in out
    lines = [line for line in out.splitlines() if "skipped for what pip cannot give" in line]
    assert lines == [
        "5 tests skipped for what pip cannot give: apt-get install -y ruby redis-server; "
        "REDIS_URL=redis://… (Redis)"
    ], out


def test_under_require_all_a_missing_tool_fails_and_a_service_left_out_skips(tmp_path):
    result = run_pytest(tmp_path, "-p", "no:xdist", "-rfEs", **{STRICT: "1"})
    out = result.stdout
    assert result.returncode == 1, out
    assert "1 failed, 1 passed, 3 skipped, 1 error" in out  # the marker's: in set-up
    assert "FAILED test_tiny.py::test_by_a_call" in out
    assert "ERROR test_tiny.py::test_by_a_marker" in out
    assert "missing ruby: apt-get install -y ruby (DAIHINMIN_REQUIRE_ALL=1: every test runs)" in out
    assert "missing ruby, redis-server: apt-get install -y ruby redis-server (DAIHINMIN_" in out
    assert "\n3 tests skipped for what pip cannot give: REDIS_URL=redis://… (Redis)\n" in out
