"""The game search's page in a real browser (daphne, Debian's Chromium): from a player's
profile to their games, filtered to their revolutions, and on to the replay at the turn of
one. Screenshot: artifacts/screenshots/games-revolutions.png."""

from __future__ import annotations

import httpx
import pytest

from tests.pages.browser import VIEWPORT, require_chromium, shot, watch_errors
from tests.places.test_uecda_import import FIXTURE

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    from harness.server import Server

    require_chromium()
    s = Server(tmp_path_factory.mktemp("games"))
    out = s.manage("import_tndhms_log", str(FIXTURE)).stdout
    s.place_id = int(out.split()[1])
    s.start()
    yield s
    s.stop()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport=VIEWPORT)
    p = context.new_page()
    p.script_errors = watch_errors(p)
    yield p
    assert p.script_errors == []
    context.close()


def test_a_players_revolutions_from_the_profile_to_the_replay(page, server):
    page.goto(f"{server.url}/users/stock1")
    page.click("#profile-games")
    page.wait_for_url(f"{server.url}/games?player=stock1")
    page.select_option("select[name=has]", "revolution")
    page.click("#games-filter button[type=submit]")
    page.wait_for_url("**/games?*has=revolution*")
    want = httpx.get(
        f"{server.url}/games.json", params={"player": "stock1", "has": "revolution"}
    ).json()["games"]
    assert want, "the log's stock1 makes revolutions"
    rows = page.locator("#games-table tbody tr")
    assert rows.count() == len(want)
    shown = [(int(r.get_attribute("data-game")), r.locator("a.replay-link").inner_text())
             for r in rows.all()]  # fmt: skip
    assert shown == [(g["game"], f"turn {g['turn']}") for g in want]
    assert page.input_value("input[name=player]") == "stock1"
    path = shot(page, "games-revolutions")
    assert path.exists()
    first = want[0]
    page.click(f"#games-table tbody tr[data-game='{first['game']}'] a.replay-link")
    page.wait_for_selector("#replay[data-ready='1']")
    assert page.url.endswith(first["replay"])
    assert page.url.endswith(f"#turn={first['turn']}")
    # the replay stands at that turn: the revolution's
    assert page.eval_on_selector("#replay", "el => el.dataset.turn") == str(first["turn"])
