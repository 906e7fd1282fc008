"""The pages in a real browser against a real server: daphne, the dealer, bot processes.

One daphne for the module (harness/server.py: its own database, PostgreSQL
and Redis when DATABASE_URL/REDIS_URL say so). Each test keeps a screenshot
under artifacts/screenshots/.
"""

from __future__ import annotations

import subprocess
import time

import httpx
import pytest

from harness.server import Server
from tests.pages.browser import VIEWPORT, require_chromium, shot, watch_errors

pytestmark = pytest.mark.e2e

BOTS = ["bot-ann", "bot-ben", "bot-cat", "bot-dan", "bot-eli"]
HUMAN = "hana"
STAFF = ("sam", "sam-pw")


# -- the server, the browser, places -----------------------------------------------------------


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    require_chromium()
    s = Server(tmp_path_factory.mktemp("pages"))
    code = (
        "from django.contrib.auth import get_user_model; U = get_user_model()\n"
        f"for n in {[*BOTS, HUMAN]!r}:\n"
        "    u = U.objects.create_user(n, password=n + '-pw')\n"
        f"U.objects.create_user({STAFF[0]!r}, password={STAFF[1]!r}, is_staff=True, is_superuser=True)\n"
    )
    s.manage("shell", "-c", code)
    s.start()
    yield s
    s.stop()


def create_place(server, title: str, players: list[str], **options: str) -> int:
    args = [arg for name in players for arg in ("--player", name)]
    for key, value in options.items():
        args += [f"--{key}", value]
    return int(server.manage("create_place", title, *args).stdout.strip())


def start_bots(server, place_id: int, names: list[str]) -> list[subprocess.Popen]:
    strategies = ["greedy", "shedder", "random", "greedy", "shedder"]
    return [
        server.bot(place_id, n, f"{n}-pw", strategies[i % 5], "ws") for i, n in enumerate(names)
    ]


def stop_bots(bots: list[subprocess.Popen]) -> None:
    for b in bots:
        if b.poll() is None:
            b.terminate()
    for b in bots:
        try:
            b.wait(10)
        except subprocess.TimeoutExpired:
            b.kill()


def staff_context(browser, server, **kwargs):
    context = browser.new_context(viewport=VIEWPORT, **kwargs)
    page = context.new_page()
    page.goto(f"{server.url}/admin/login/?next=/")
    page.fill("#id_username", STAFF[0])
    page.fill("#id_password", STAFF[1])
    page.click("input[type=submit]")
    page.wait_for_url(f"{server.url}/")
    return context, page


def state_of(server, place_id: int) -> dict:
    doc = httpx.get(f"{server.url}/places/{place_id}/state.json", timeout=10).json()
    doc.pop("server_time")
    return doc


def wait_until(predicate, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.1)
    pytest.fail(f"timed out waiting for {what}")


@pytest.fixture(scope="module")
def bot_place(server):
    """A 2-game place of five bots, fast, not started: the live test starts it from the page."""
    place_id = create_place(server, "Bots", BOTS, games="2", pace="0.05", timeout="5", seed="pages")
    bots = start_bots(server, place_id, BOTS)
    time.sleep(1.0)  # the bots log in and connect before the first turn
    yield place_id
    stop_bots(bots)


def step(staff, server, place_id: int) -> None:
    """Click the staff's Next step once the place is still; wait for the answer.

    Still: no turn open on the server, and the page has applied every event. Clicking
    as soon as the button is enabled races the page: the previous step's answer can
    come before its turn's event, which then disables the button between Playwright's
    check and its click, and a click on a disabled button is lost (seen once in CI).
    """
    events = settled(server, place_id)
    staff.wait_for_selector(f"#live[data-seq='{len(events)}']", timeout=15000)
    staff.wait_for_selector("#btn-next:enabled", timeout=15000)
    staff.evaluate("document.querySelector('#staff-msg').textContent = ''")
    staff.click("#btn-next")
    staff.wait_for_function("() => document.querySelector('#staff-msg').textContent !== ''")


def settled(server, place_id: int) -> list[dict]:
    """The event log once a manual place waits for the next step (no turn open, no new event)."""
    before = server.events(place_id)
    while True:
        time.sleep(0.3)
        now = server.events(place_id)
        if now == before and state_of(server, place_id)["turn"] is None:
            return now
        before = now


def live_value(page, key: str) -> str:
    return page.eval_on_selector("#live", f"el => el.dataset.{key} || ''")


# -- the tests ------------------------------------------------------------------------------------


def test_the_live_page_shows_turns_resets_and_ranks_as_bots_play(browser, server, bot_place):
    context, page = staff_context(browser, server)
    errors = watch_errors(page)
    page.goto(f"{server.url}/places/{bot_place}/")
    page.wait_for_selector("#live[data-state='waiting']")
    assert page.locator(".seat").count() == 5
    # every seat that the page ever marks as having the turn
    page.evaluate(
        """() => {
            window.turnsShown = new Set();
            new MutationObserver(() => document.querySelectorAll('.seat.turn')
                .forEach((s) => window.turnsShown.add(s.dataset.name)))
              .observe(document.getElementById('seats'), { childList: true, subtree: true });
        }"""
    )
    page.click("#btn-start")  # the staff button calls /places/ID/start.json
    page.wait_for_function(
        """() => {
            const live = document.getElementById('live');
            return live.dataset.state === 'running' && +live.dataset.resets >= 3
                && document.querySelectorAll('.seat .rank-pill').length >= 1;
        }""",
        polling="raf",
        timeout=60000,
    )  # resets happened, and ranks show on the seats as players finish
    shot(page, "live_bots_mid_game")
    page.wait_for_selector("#live[data-state='finished']", timeout=60000)
    turns_shown = page.evaluate("() => [...window.turnsShown]")
    assert len(turns_shown) == 5, turns_shown  # the turn went round the table

    # the page applied every event, and agrees with the server's standings
    events = server.events(bot_place)
    page.wait_for_selector(f"#live[data-seq='{len(events)}']")
    assert int(live_value(page, "resets")) == sum(
        1 for e in events if e["operation"] == "end_turn" and e["reset_place"]
    )
    assert int(live_value(page, "ranks")) == sum(
        1 for e in events if e["operation"] == "end_player"
    )
    points = {s["name"]: s["points"] for s in state_of(server, bot_place)["seats"]}
    shown = {
        row.get_attribute("data-name"): int(row.locator("td").nth(2).inner_text())
        for row in page.locator("#standings tr").all()
    }
    assert shown == points
    assert page.locator("#turn-line a[href$='/results']").count() == 1
    shot(page, "live_bots_finished")
    assert errors == []
    context.close()


def test_the_results_page_draws_the_charts_after_end_place(browser, server, bot_place):
    wait_until(
        lambda: state_of(server, bot_place)["place"]["state"] == "finished",
        90,
        "the bots' place to finish",
    )
    assert server.events(bot_place)[-1]["operation"] == "end_place"
    page = browser.new_page(viewport=VIEWPORT)
    errors = watch_errors(page)
    page.goto(f"{server.url}/places/{bot_place}/results")
    assert page.locator("#points-chart polyline.series").count() == 5
    assert page.locator("#ranks-chart g.bar").count() == 5
    assert page.locator("#ranks-chart rect.segment").count() >= 5
    assert page.locator("#games-table tbody tr").count() == 2
    box = page.locator("#points-chart svg").bounding_box()
    assert box["width"] > 300 and box["height"] > 100
    csv = httpx.get(f"{server.url}/places/{bot_place}/results.csv", timeout=10).text
    assert csv.count("\n") == 1 + 2 * 5
    shot(page, "results_after_end_place")
    assert errors == []
    page.close()


def test_a_person_plays_a_whole_game_against_four_bots_by_clicking(browser, server):
    players = [HUMAN, *BOTS[:4]]
    place_id = create_place(
        server, "Person", players, games="1", pace="0", timeout="15", seed="person"
    )
    bots = start_bots(server, place_id, BOTS[:4])
    try:
        context = browser.new_context(viewport=VIEWPORT)
        page = context.new_page()
        errors = watch_errors(page)
        page.goto(f"{server.url}/login")
        page.fill("#id_name", HUMAN)
        page.fill("#id_password", f"{HUMAN}-pw")
        page.fill("#id_place_id", str(place_id))
        page.click("form.api-form input[type=submit]")
        page.wait_for_url(f"{server.url}/operations")
        page.wait_for_selector("#live[data-state='waiting']")
        time.sleep(0.5)
        server.manage("start_place", str(place_id))

        actions = []
        first_turn_shot = False
        chosen_again = 0
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if live_value(page, "state") == "finished":
                break
            panel = page.locator("#my-hand-panel")
            if panel.get_attribute("data-my-turn") != "1":
                time.sleep(0.05)
                continue
            chips = page.locator("#suggestions button")
            if chips.count():
                # the strongest play with the most cards: 2s and jokers never stay to the end
                cards = chips.nth(chips.count() - 1).get_attribute("data-cards").split(" ")
                for written in cards:
                    page.locator(
                        f"#my-hand .pick[data-card='{written}']:not(.selected)"
                    ).first.click()
                if page.locator("#play-hint").get_attribute("class") != "play-hint ok":
                    # the page fetched the hand again between the clicks (the turn's own
                    # event came after them: a loaded machine) and its selection went with
                    # it, as it should: choose again, a few times at most
                    chosen_again += 1
                    assert chosen_again <= 5, "the cards chosen never made a legal play"
                    page.locator("#btn-clear").click(force=True)  # if anything is left
                    continue
                if not first_turn_shot:
                    shot(page, "operations_person_choosing")
                    first_turn_shot = True
                page.click("#btn-play")
                actions.append(("play", cards))
            elif page.locator("#btn-pass").is_enabled():
                page.click("#btn-pass")
                actions.append(("pass", []))
            else:
                time.sleep(0.05)  # nothing legal when leading: the turn will time out
                continue
            # the answer is shown, and the hand and legal plays are read again
            page.wait_for_selector("#my-hand-panel[data-busy='']")
            result = page.inner_text("#play-result")
            assert result and "Miss" not in result and "Error" not in result, result
        else:
            pytest.fail("the game did not finish within 90 s")

        assert any(kind == "play" for kind, _ in actions)
        events = server.events(place_id)
        assert events[-1]["operation"] == "end_place"
        mine = [e for e in events if e.get("player") == HUMAN and e["operation"] == "end_turn"]
        played = [e for e in mine if e["turn_cards"]]
        assert len(played) == sum(1 for kind, _ in actions if kind == "play")
        written = [
            sorted(
                "joker" if c["card"]["joker"] else f"{c['card']['mark']}-{c['card']['number']}"
                for c in e["turn_cards"]
            )
            for e in played
        ]
        assert written == [sorted(cards) for kind, cards in actions if kind == "play"]
        rank = next(e for e in events if e["operation"] == "end_player" and e["player"] == HUMAN)
        page.wait_for_selector("#my-status:not(:empty)")
        shot(page, "operations_person_finished")
        assert page.locator("#my-hand .pick").count() == 0
        assert str(rank["rank"]["rank"]["rank"]) in page.inner_text("#my-status")
        assert errors == []
        context.close()
    finally:
        stop_bots(bots)


def test_a_second_tab_watching_changes_nothing(browser, server):
    place_id = create_place(
        server, "Watched", BOTS, games="1", pace="manual", timeout="10", seed="watch"
    )
    bots = start_bots(server, place_id, BOTS)
    try:
        time.sleep(1.0)
        context, staff = staff_context(browser, server)
        errors = watch_errors(staff)
        staff.goto(f"{server.url}/places/{place_id}/")
        staff.wait_for_selector("#live[data-state='waiting']")
        staff.click("#btn-start")
        staff.wait_for_selector("#live[data-seq='1']")  # start_place; manual: nothing more

        before_events = server.events(place_id)
        before_state = state_of(server, place_id)
        viewer_context = browser.new_context(viewport=VIEWPORT)
        viewers = [viewer_context.new_page(), viewer_context.new_page()]
        for v in viewers:
            errors += watch_errors(v)
            v.goto(f"{server.url}/places/{place_id}/")
            v.wait_for_selector("#live[data-seq='1']")
            assert v.locator("#staff").count() == 0  # no buttons, no hands
        time.sleep(1.5)  # watchers only listen
        viewers[1].reload()  # a reload reads the snapshot again, nothing more
        viewers[1].wait_for_selector("#live[data-seq='1']")
        assert server.events(place_id) == before_events
        assert state_of(server, place_id) == before_state

        # staff step the place by hand; every tab follows the same events
        for _ in range(6):
            step(staff, server, place_id)
        # a tab that loses its socket reconnects, reads the snapshot and catches up
        viewers[0].evaluate("window.live.drop()")
        viewers[0].wait_for_selector("#conn.down")
        step(staff, server, place_id)
        viewers[0].wait_for_selector("#conn.up")
        events = settled(server, place_id)
        for v in [staff, *viewers]:
            v.wait_for_selector(f"#live[data-seq='{len(events)}']")
        assert [e["operation"] for e in events[:2]] == ["start_place", "start_game"]
        assert staff.locator("#hands .hand-row").count() == 5
        assert viewers[0].locator("#hands").count() == 0
        assert live_value(viewers[1], "turns") == live_value(staff, "turns")  # never dropped
        shot(staff, "live_staff_manual_pace")
        shot(viewers[0], "live_second_tab")
        assert errors == []
        viewer_context.close()
        context.close()
    finally:
        stop_bots(bots)


def test_japanese_and_english_render_and_the_header_switches(browser, server, bot_place):
    context = browser.new_context(viewport=VIEWPORT, locale="ja-JP")
    page = context.new_page()
    errors = watch_errors(page)
    page.goto(f"{server.url}/")
    assert page.locator("html").get_attribute("lang") == "ja"
    assert "場の一覧" in page.inner_text("h1")
    shot(page, "home_ja")
    page.goto(f"{server.url}/places/{bot_place}/results")
    assert "得点の推移" in page.inner_text("#points-chart h2")
    page.goto(f"{server.url}/places/{bot_place}/")
    page.wait_for_selector("#live[data-seq]")
    assert "順位表" in page.inner_text(".side")
    shot(page, "live_ja")

    page.select_option("#language-select", "en")  # the header's form posts set_language
    page.wait_for_selector("html[lang='en']")
    page.wait_for_selector("#live[data-seq]")
    assert "Standings" in page.inner_text(".side")
    assert page.url.endswith(f"/places/{bot_place}/")
    page.goto(f"{server.url}/")
    assert "Places" in page.inner_text("h1")
    shot(page, "home_en")
    page.goto(f"{server.url}/cards")
    assert page.locator("svg.card").count() == 55
    shot(page, "cards")
    assert errors == []
    context.close()
