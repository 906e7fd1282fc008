"""What a test needs that pip cannot install, checked in one place.

``make test`` must pass on a machine with Python 3.11 and make alone (README.md): a test
that needs Debian's nginx, Chromium or Ruby, the project's shared folder beside the clone,
a stock UECda client, or PostgreSQL or Redis calls :func:`need` (or carries
``@pytest.mark.needs(...)``), which skips it when that is missing. The skips are summed
up in one line at the end of the run (``tests/conftest.py``), naming what to install.

``DAIHINMIN_REQUIRE_ALL=1`` (``.ci/run`` sets it) makes a missing installed thing a
failure instead, so CI runs every test. PostgreSQL and Redis are not installed but
chosen for a run (``DATABASE_URL``, ``REDIS_URL``): a run without them skips their tests
in either mode (CI's first step, on SQLite), and CI's second step sets both.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import re
import shutil
import subprocess
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: Set (to 1) by ``.ci/run``: a missing installed need fails its test.
STRICT = "DAIHINMIN_REQUIRE_ALL"
#: How a skip for a need starts, for the run's summary to find it (``missing nginx, ruby: …``).
SKIP_REASON = re.compile(r"missing ([a-z0-9, -]+?): ")
#: The stock C client of UECda, where ``UECDA_CLIENT`` names one (built by hand from its
#: public source, as UECDA.md says; CI has no copy of that source, so it is never strict).
STOCK_UECDA_CLIENT = Path(os.environ["UECDA_CLIENT"]) if os.environ.get("UECDA_CLIENT") else None
#: How to get it, for the skip line.
BUILD_UECDA_CLIENT = (
    "UECDA_CLIENT=path of the stock UECda client (build it from the public source of tndhms and "
    "its client, repository s1300097/reserch: `cd client && sh ./configure && make`, "
    "../shared/spec/UECDA.md)"
)
#: The founding document of the 2011 sample bot.
SEED_NAME = "003_131828a74f125ae8.txt"


@dataclass(frozen=True)
class Need:
    """One thing a test may need: how to tell it is there and how to get it."""

    present: Callable[[], bool]
    #: "apt" (a Debian package of this name), "shared", "built" or "service".
    kind: str
    #: How to get it, for the summary line (the package's name for "apt").
    how: str

    @property
    def strict(self) -> bool:
        """Whether ``DAIHINMIN_REQUIRE_ALL`` makes its absence a failure: CI installs the
        packages and has the shared folder; a service is the run's choice, and the stock
        UECda client is built by hand (UECDA.md)."""
        return self.kind in ("apt", "shared")


def shared_folder() -> Path:
    """The project's shared folder: beside the clone, or beside the folder of its worktrees."""
    for folder in ROOT.parents:
        if (folder / "shared" / "seeds" / SEED_NAME).is_file():
            return folder / "shared"
    return ROOT.parent / "shared"


@functools.cache
def serve_prod():
    """``deploy/serve_prod.py``, which knows where nginx and its stream module are."""
    spec = importlib.util.spec_from_file_location("serve_prod", ROOT / "deploy" / "serve_prod.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _executable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def _nginx() -> bool:
    return _executable(serve_prod().NGINX)


def _stream_module() -> bool:
    prod = serve_prod()
    return _nginx() and prod.stream_module_line(prod.NGINX) is not None


def _ruby_requires(library: str) -> Callable[[], bool]:
    def present() -> bool:
        ruby = shutil.which("ruby")
        if ruby is None:
            return False
        found = subprocess.run([ruby, "-e", f'require "{library}"'], capture_output=True)
        return found.returncode == 0

    return present


NEEDS: dict[str, Need] = {
    "nginx": Need(_nginx, "apt", "nginx"),
    "libnginx-mod-stream": Need(_stream_module, "apt", "libnginx-mod-stream"),
    "chromium": Need(lambda: _executable("/usr/bin/chromium"), "apt", "chromium"),
    "ruby": Need(lambda: shutil.which("ruby") is not None, "apt", "ruby"),
    "ruby-mechanize": Need(_ruby_requires("mechanize"), "apt", "ruby-mechanize"),
    "ruby-eventmachine": Need(_ruby_requires("eventmachine"), "apt", "ruby-eventmachine"),
    "redis-server": Need(lambda: shutil.which("redis-server") is not None, "apt", "redis-server"),
    "seeds": Need(
        lambda: (shared_folder() / "seeds" / SEED_NAME).is_file(),
        "shared",
        "the project's shared folder beside the clone (../shared/seeds/)",
    ),
    "uecda-client": Need(
        lambda: STOCK_UECDA_CLIENT is not None and _executable(str(STOCK_UECDA_CLIENT)),
        "built",
        BUILD_UECDA_CLIENT,
    ),
    "postgresql": Need(
        lambda: os.environ.get("DATABASE_URL", "").startswith("postgres"),
        "service",
        "DATABASE_URL=postgres://… (PostgreSQL)",
    ),
    "redis": Need(
        lambda: bool(os.environ.get("REDIS_URL")), "service", "REDIS_URL=redis://… (Redis)"
    ),
}


@functools.cache
def present(name: str) -> bool:
    """Whether ``name`` (a key of :data:`NEEDS`) is there; asked once a process."""
    return NEEDS[name].present()


def need(*names: str) -> None:
    """Skip the calling test unless every one of ``names`` is there (fail instead, under
    ``DAIHINMIN_REQUIRE_ALL=1``, when a missing one is installed rather than chosen)."""
    missing = [name for name in names if not present(name)]
    if not missing:
        return
    reason = f"missing {', '.join(missing)}: {how_to_get(missing)}"
    if os.environ.get(STRICT) == "1" and any(NEEDS[name].strict for name in missing):
        pytest.fail(f"{reason} ({STRICT}=1: every test runs)", pytrace=False)
    pytest.skip(reason)


def how_to_get(names: Iterable[str]) -> str:
    """What to install or set for ``names``, in one line: one apt-get for the packages."""
    names = sorted(set(names), key=list(NEEDS).index)
    packages = [NEEDS[n].how for n in names if NEEDS[n].kind == "apt"]
    others = [NEEDS[n].how for n in names if NEEDS[n].kind != "apt"]
    parts = [f"apt-get install -y {' '.join(packages)}"] if packages else []
    return "; ".join(parts + others)


def summary(reasons: Iterable[str]) -> str | None:
    """The run's one line about the tests skipped for a need, from their skip reasons."""
    count, names = 0, set()
    for reason in reasons:
        found = SKIP_REASON.search(reason)
        if found:
            count += 1
            names.update(found[1].split(", "))
    if not count:
        return None
    tests = "test" if count == 1 else "tests"
    return f"{count} {tests} skipped for what pip cannot give: {how_to_get(names)}"


# The hooks, imported by tests/conftest.py.


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "needs(*names): what the test needs (tests/needs.py)")


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """``@pytest.mark.needs("nginx", ...)``: skip (or, in CI, fail) before the fixtures start."""
    for marker in item.iter_markers("needs"):
        need(*marker.args)


def pytest_terminal_summary(terminalreporter) -> None:
    """One line, however many tests skipped for what they needed (from every xdist worker)."""
    reasons = []
    for report in terminalreporter.stats.get("skipped", []):
        longrepr = report.longrepr
        reasons.append(longrepr[2] if isinstance(longrepr, tuple) else str(longrepr))
    line = summary(reasons)
    if line:
        terminalreporter.write_line(line, yellow=True, bold=True)
