"""The replay page of an analysed UECda game in a real browser (daphne, Debian's Chromium):
each marked move's mark in the move list, the candidates of the turn shown with their
expected points, each player's accuracy and the chart of expected points over the game;
and a logged-in person's Analyse button, which asks the JSON route scripts ask too.
Screenshot: artifacts/screenshots/replay-uecda-analysis.png."""

from __future__ import annotations

import json

import pytest

from tests.pages.browser import VIEWPORT, require_chromium, shot, watch_errors
from tests.places.test_uecda_import import FIXTURE

pytestmark = pytest.mark.e2e

GAME = 6
ASKED = 7  # the game the person asks to have analysed
READERS = ["rin", "sora", "taku", "umi", "yui"]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    from harness.server import Server

    require_chromium()
    s = Server(tmp_path_factory.mktemp("uecda-analysis"), ANALYSIS_PLAYOUTS="10")
    out = s.manage("import_tndhms_log", str(FIXTURE)).stdout
    s.place_id = int(out.split()[1])
    s.manage("analyse", str(s.place_id), "--games", str(GAME), "--playouts", "100")
    code = (
        "from django.contrib.auth import get_user_model; U = get_user_model()\n"
        f"for n in {READERS!r}:\n"
        "    U.objects.create_user(n, password=n + '-pw')\n"
    )
    s.manage("shell", "-c", code)
    # a place to log in to (it never starts): the login form needs one
    lobby = s.manage("create_place", "Lobby", *[a for n in READERS for a in ("--player", n)])
    s.lobby_id = int(lobby.stdout.strip())
    s.start()
    yield s
    s.stop()


def test_an_analysed_game_shows_its_candidates_marks_and_chart(browser, server):
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    errors = watch_errors(page)
    base = f"{server.url}/places/{server.place_id}/games/{GAME}"
    page.goto(f"{base}/analysis.json")
    document = json.loads(page.locator("body").text_content())
    judged = [d for d in document["decisions"] if "candidates" in d]
    turn = judged[len(judged) // 2]
    page.goto(f"{base}/replay#turn={turn['turn']}")
    page.wait_for_selector("#replay[data-ready='1']")
    rows = page.locator("#analysis-candidates tbody tr")
    assert rows.count() == len(turn["candidates"])
    first = turn["candidates"][0]
    assert f"{first['points']:.2f} ± {first['points_se']:.2f}" in rows.nth(0).text_content()
    assert page.locator("#analysis-candidates tr.played").count() == 1
    marked = [d for d in document["decisions"] if d.get("mark")]
    assert page.locator("#moves .move-mark").count() == len(marked)
    players = page.locator("#analysis-players tbody tr")
    assert players.count() == 5
    assert page.locator("#analysis-chart polyline.series").count() >= 4
    page.keyboard.press("ArrowRight")  # the candidates follow the turn shown
    heading = page.locator("#analysis-candidates h3").text_content()
    assert heading.startswith(f"Turn {turn['turn'] + 1}:")
    page.goto(f"{base}/replay#turn={turn['turn']}")
    page.wait_for_selector("#replay[data-ready='1']")
    path = shot(page, "replay-uecda-analysis")
    assert path.exists() and errors == []
    context.close()


def test_a_person_asks_for_an_analysis_with_the_button_and_sees_it(browser, server):
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    errors = watch_errors(page)
    page.goto(f"{server.url}/login")
    page.fill("#id_name", READERS[0])
    page.fill("#id_password", f"{READERS[0]}-pw")
    page.fill("#id_place_id", str(server.lobby_id))
    page.click("form[action='/sessions'] input[type=submit]")
    page.wait_for_url(f"{server.url}/operations")
    base = f"{server.url}/places/{server.place_id}/games/{ASKED}"
    page.goto(f"{base}/replay")
    page.wait_for_selector("#replay[data-ready='1']")
    assert page.locator("#analysis-players tbody tr").count() == 0
    with page.expect_response(f"{base}/analysis.json") as asked:
        page.click("#analyse-button")
    assert asked.value.request.method == "POST" and asked.value.status == 202
    # the page follows the job, and reloads with the analysis once it is made
    page.wait_for_selector("#analysis-players tbody tr", timeout=120_000)
    assert page.locator("#analysis-players tbody tr").count() == 5
    assert errors == []
    context.close()
