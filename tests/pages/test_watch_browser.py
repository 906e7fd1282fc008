"""``uecda_match --watch`` in a real browser (Debian's Chromium): a bot author's laptop, the
embedded defaults (a SQLite file, no Redis), the match's pages served by the command.

The page opened at the address the command prints draws the table as the match plays it
(two of the project's UECda clients, held at chosen moves while the test looks; three
house bots; the 11-back variant, held where a jack has reversed strength), and once the
match is over its last game and the replay of a game.
Screenshots go to artifacts/screenshots/watch-uecda-*.png.
"""

from __future__ import annotations

import pytest

from daifugo import uecda as u
from tests.pages.browser import VIEWPORT, launch, require_chromium, shot, watch_errors
from tests.uecda.test_watch import LISTENING, PAGE, STAYS, Gate, Watched, embedded_env, play

pytestmark = pytest.mark.e2e

GAMES = 10


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    require_chromium()
    with sync_playwright() as p:
        b = launch(p)
        yield b
        b.close()


def jack_on(stage: u.Move | None) -> bool:
    return stage is not None and stage.kind != u.JOKER_SINGLE and stage.spans(u.JACK_COLUMN)


def live(page) -> dict:
    return page.eval_on_selector("#live", "el => ({...el.dataset})")


def test_the_printed_page_follows_the_match_and_then_replays_it(browser, tmp_path):
    env = embedded_env(tmp_path)
    match = Watched(
        env, GAMES, "--rules", "uecda+11back",
        "--house", "stock", "--house", "greedy", "--house", "shedder",
    )  # fmt: skip
    gate = Gate(
        lambda made, view: True,  # the first move: the page opens meanwhile
        # a jack on the table (no lone joker): the 11-back holds (a second jack cannot
        # follow it in the same trick: the next play must be lower, or a stair below it)
        lambda made, view: made >= 50 and jack_on(view.stage),
        lambda made, view: made >= 110,  # a few games on
    )
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    errors = watch_errors(page)
    try:
        clients = play(int(match.line(LISTENING)[1]), gate)
        found = match.line(PAGE)
        url, place = found[1], found[2]
        assert gate.reached[0].wait(60)
        page.goto(url)
        page.wait_for_selector("#live[data-ready='1']")
        page.wait_for_selector("#conn.up")
        assert live(page)["place"] == place
        gate.released[0].set()

        assert gate.reached[1].wait(60)  # held where a play waits to be beaten
        page.wait_for_function(
            "() => { const d = document.getElementById('live').dataset;"
            " return d.source === 'live' && Number(d.game) >= 2"
            " && document.getElementById('table-cards').dataset.cards !== ''; }"
        )
        page.wait_for_timeout(300)  # the held turn's frame is the newest: nothing follows it
        first = live(page)
        assert page.get_attribute("#table-cards", "data-cards") != ""
        assert page.locator("#seats .seat").count() == 5
        assert page.locator("#standings tr").count() == 5
        assert page.locator("#back").is_visible()  # the 11-back, as the clients are told
        assert "+11back" in page.locator("#rules").text_content()
        shot(page, "watch-uecda-live")
        gate.released[1].set()

        assert gate.reached[2].wait(60)  # the match goes on: the page follows it
        page.wait_for_timeout(300)
        later = live(page)
        assert later["source"] == "live"
        assert (int(later["game"]), int(later["at"])) > (int(first["game"]), int(first["at"]))
        shot(page, "watch-uecda-later")
        gate.released[2].set()

        assert str(match.result()) == place
        clients.join(60)
        assert match.line(STAYS)[1] == "until Ctrl-C or SIGTERM"
        # the last game's end reaches the page; the pages stay for the replays
        page.wait_for_function(
            f"() => document.getElementById('live').dataset.game === '{GAMES}'"
            " && document.getElementById('live').dataset.phase === 'over'"
        )
        shot(page, "watch-uecda-over")
        page.goto(f"{url}games/{GAMES}/replay")
        page.wait_for_selector("#replay[data-ready='1']")
        assert page.get_attribute("#replay", "data-game") == str(GAMES)
        assert page.locator("#seats .seat").count() == 5
        page.keyboard.press("End")  # the game's last turn
        assert page.eval_on_selector("#replay", "el => el.dataset.turn") != "0"
        shot(page, "watch-uecda-replay")
        assert match.terminate() == 0
    finally:
        gate.release_all()
        context.close()
        match.kill()
    assert errors == []
