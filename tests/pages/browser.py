"""Debian's Chromium driven by Playwright, for the browser tests of the pages.

Never ``playwright install``: the machine has no internet, and Debian's
chromium (``apt-get install chromium``, which ``.ci/run`` does when it is
missing) is the browser. Screenshots go to ``artifacts/screenshots/``.
"""

from __future__ import annotations

from pathlib import Path

from tests.needs import need

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SCREENSHOTS = ROOT / "artifacts" / "screenshots"
VIEWPORT = {"width": 1280, "height": 900}


def require_chromium() -> None:
    """Skip without Chromium on a developer's machine; in CI its absence is a failure."""
    need("chromium")


def launch(playwright):
    return playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)


def shot(page, name: str) -> Path:
    """Keep a full-page screenshot under artifacts/screenshots/NAME.png."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def watch_errors(page) -> list[str]:
    """Collect the page's script errors (a test asserts there were none)."""
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    return errors


def server_with_a_played_place(
    workdir: Path, title: str, games: int, seed: str, driver: str = "tests.places.drive.play_out"
):
    """A real server (not started) whose database holds one place of the five page players
    (``tests.pages.conftest.NAMES``), played to its end by ``driver(place_id, seed=1)``
    before the server starts. Its id is ``server.place_id``."""
    from harness.server import Server
    from tests.pages.conftest import NAMES

    module, _, function = driver.rpartition(".")
    server = Server(workdir)
    code = (
        "from django.contrib.auth import get_user_model\n"
        "from places import services\n"
        "from tests.api.conftest import seating\n"
        f"from {module} import {function} as drive\n"
        f"for n in {NAMES!r}:\n"
        "    get_user_model().objects.create_user(n, password=n + '-pw')\n"
        f"p = services.create_place({title!r}, seating({NAMES!r}, {seed!r}), game_count={games},"
        f" pace=0, time_limit=120.0, seed={seed!r})\n"
        "services.start_place(p.id)\n"
        "drive(p.id, seed=1)\n"
        "print(p.id)\n"
    )
    server.place_id = int(server.manage("shell", "--no-imports", "-c", code).stdout.split()[-1])
    return server
