"""A person practises in a real browser: from the Play page, "Play against the house bots",
then a whole one-game practice played by clicking cards and the pass button.

Its own daphne (harness/server.py), and Debian's Chromium; screenshots go to
artifacts/screenshots/.
"""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from harness.server import ROOT, Server
from tests.pages.browser import (
    SCREENSHOTS,
    VIEWPORT,
    require_chromium,
    shot,
    watch_errors,
)

pytestmark = pytest.mark.e2e

PERSON = "hana"
OTHERS = ["bot-ann", "bot-ben", "bot-cat", "bot-dan"]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    require_chromium()
    s = Server(tmp_path_factory.mktemp("practice"), uecda=True)
    code = (
        "from django.contrib.auth import get_user_model; U = get_user_model()\n"
        f"for n in {[PERSON, *OTHERS]!r}:\n"
        "    U.objects.create_user(n, password=n + '-pw')\n"
    )
    s.manage("shell", "-c", code)
    s.start()
    yield s
    s.stop()


def live_value(page, key: str) -> str:
    return page.eval_on_selector("#live", f"el => el.dataset.{key} || ''")


def test_a_person_plays_a_whole_practice_against_the_house_bots_by_clicking(browser, server):
    # hana has a place to log in to (it never starts): the Play page needs one
    lobby = server.manage(
        "create_place", "Lobby", *[a for n in [PERSON, *OTHERS] for a in ("--player", n)]
    )
    lobby_id = int(lobby.stdout.strip())
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    errors = watch_errors(page)
    page.goto(f"{server.url}/login")
    page.fill("#id_name", PERSON)
    page.fill("#id_password", f"{PERSON}-pw")
    page.fill("#id_place_id", str(lobby_id))
    page.click("form[action='/sessions'] input[type=submit]")
    page.wait_for_url(f"{server.url}/operations")

    # the practice form: one game, the house at once, time enough to click
    page.select_option("#id_practice_bot_2", "shedder")
    page.select_option("#id_practice_bot_3", "random")
    page.fill("#id_practice_games", "1")
    page.select_option("#id_practice_pace", "0")
    page.fill("#id_practice_time_limit", "20")
    page.locator("#practice-form").scroll_into_view_if_needed()
    # the viewport only: a full-page shot resizes the page, and Chromium restores the
    # scroll of a page scrolled down a moment later, in the middle of the next click
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "practice_form_on_the_play_page.png"))
    with page.expect_navigation():
        page.click("#btn-practice")  # posts /practice, redirected to /operations
    assert page.url == f"{server.url}/operations"
    place_id = int(page.eval_on_selector("#live", "el => el.dataset.place"))
    page.wait_for_selector("#live[data-state='running']")
    names = page.eval_on_selector_all(".seat", "els => els.map((e) => e.dataset.name)")
    assert PERSON in names and len(names) == 5
    assert sorted(n.rsplit("-", 1)[0] for n in names if n != PERSON) == [
        "house-greedy",
        "house-greedy",
        "house-random",
        "house-shedder",
    ]

    actions = []
    first_turn_shot = False
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if live_value(page, "state") == "finished":
            break
        panel = page.locator("#my-hand-panel")
        # act on a settled hand only: a refresh in flight redraws it between two clicks
        if panel.get_attribute("data-my-turn") != "1" or panel.get_attribute("data-busy"):
            time.sleep(0.05)
            continue
        chips = page.locator("#suggestions button")
        if chips.count():
            # the strongest play with the most cards: 2s and jokers never stay to the end
            cards = chips.nth(chips.count() - 1).get_attribute("data-cards").split(" ")
            for written in cards:
                page.locator(f"#my-hand .pick[data-card='{written}']:not(.selected)").first.click()
            assert page.locator("#play-hint").get_attribute("class") == "play-hint ok"
            if not first_turn_shot:
                shot(page, "practice_person_choosing")
                first_turn_shot = True
            page.click("#btn-play")
            actions.append(("play", cards))
        elif page.locator("#btn-pass").is_enabled():
            page.click("#btn-pass")
            actions.append(("pass", []))
        else:
            time.sleep(0.05)  # nothing legal when leading: the turn will time out
            continue
        page.wait_for_selector("#my-hand-panel[data-busy='']")
        result = page.inner_text("#play-result")
        assert result and "Miss" not in result and "Error" not in result, result
    else:
        pytest.fail("the practice did not finish within 120 s")

    assert any(kind == "play" for kind, _ in actions)
    events = server.events(place_id)
    assert events[-1]["operation"] == "end_place"
    mine = [e for e in events if e.get("player") == PERSON and e["operation"] == "end_turn"]
    assert len([e for e in mine if e["turn_cards"]]) == sum(1 for k, _ in actions if k == "play")
    house_turns = [
        e for e in events if e["operation"] == "end_turn" and e["player"].startswith("house-")
    ]
    assert house_turns  # the server played the four other seats
    page.wait_for_selector("#my-status:not(:empty)")
    shot(page, "practice_person_finished")
    assert page.locator("#my-hand .pick").count() == 0
    assert errors == []
    context.close()


def practice_form_on_the_login_page(browser, server):
    """A new browser context on the login page, the practice form's name and password
    filled in: the context, its page and the page's errors."""
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    errors = watch_errors(page)
    page.goto(f"{server.url}/login")
    page.fill("#id_practice_name", PERSON)
    page.fill("#id_practice_password", f"{PERSON}-pw")
    return context, page, errors


def test_a_person_without_a_place_practises_from_the_login_page(browser, server):
    context, page, errors = practice_form_on_the_login_page(browser, server)
    page.select_option("#id_practice_bot_1", "random")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "practice_form_on_the_login_page.png"))
    with page.expect_navigation():
        page.click("#btn-practice")
    assert page.url == f"{server.url}/operations"
    page.wait_for_selector("#live[data-state='running']")
    names = page.eval_on_selector_all(".seat", "els => els.map((e) => e.dataset.name)")
    assert PERSON in names and any(n.startswith("house-random-") for n in names)
    page.wait_for_selector("#my-hand .pick")  # her hand, dealt
    assert errors == []
    context.close()


def test_a_person_asks_for_a_uecda_practice_reads_the_code_and_her_client_plays_it(browser, server):
    context, page, errors = practice_form_on_the_login_page(browser, server)
    page.select_option("#id_practice_rules", "uecda")
    page.fill("#id_practice_games", "2")
    with page.expect_navigation():
        page.click("#btn-practice")
    place_id = int(page.eval_on_selector("#live", "el => el.dataset.place"))
    assert page.url == f"{server.url}/places/{place_id}/"
    code = page.inner_text(".join-code")
    assert len(code) == 14
    command = page.inner_text("#join-codes")
    assert f"./client -h 127.0.0.1 -p {server.uecda_port} -n {code}" in command
    shot(page, "uecda_practice_join_code")
    bot = subprocess.run(
        [
            sys.executable, "-m", "bots", "--transport", "uecda",
            "--server", f"127.0.0.1:{server.uecda_port}", "--join-code", code,
        ],
        cwd=ROOT, env=server.env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert bot.returncode == 0 and "2 games" in bot.stdout, bot.stdout + bot.stderr
    for _ in range(50):  # its last game is stored just after the client's last read
        page.reload()
        if "finished" in page.inner_text("#place-state").lower():
            break
        time.sleep(0.2)
    assert "finished" in page.inner_text("#place-state").lower()
    assert page.locator("#join-codes").count() == 0  # the place no longer waits
    assert errors == []
    context.close()
