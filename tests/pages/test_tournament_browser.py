"""A 7-entrant round robin of house bots, end to end on a real server (daphne and its
dealer, on this run's database), made and started from the shell as an organiser
would, watched in Debian's Chromium until it is over. Screenshots:
artifacts/screenshots/tournament.png and leaderboard.png."""

from __future__ import annotations

import json

import httpx
import pytest

from daifugo.schedule import round_robin
from tests.pages.browser import VIEWPORT, launch, require_chromium, shot, watch_errors

pytestmark = pytest.mark.e2e

STRATEGIES = ("greedy", "shedder", "random", "greedy", "shedder", "random", "greedy")
NAMES = [f"bot{i + 1}-{s}" for i, s in enumerate(STRATEGIES)]
GAMES = 2


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    from harness.server import Server

    require_chromium()
    s = Server(tmp_path_factory.mktemp("tournament"))
    *_, made = s.manage_all(
        *(
            ["create_user", name, f"--house={strategy}"]
            for name, strategy in zip(NAMES, STRATEGIES, strict=True)
        ),
        [
            "create_tournament",
            "Seven bots",
            *(f"--entrant={n}" for n in NAMES),
            f"--games={GAMES}",
            "--pace=0.01",
            "--seed=browser",
            "--max-running=4",
        ],
    )
    s.tournament_id = int(made.strip())
    s.start()
    yield s
    s.stop()


def test_the_standings_page_follows_the_tournament_to_its_end(server):
    from playwright.sync_api import expect, sync_playwright

    tid = server.tournament_id
    with sync_playwright() as p:
        browser = launch(p)
        page = browser.new_page(viewport=VIEWPORT)
        errors = watch_errors(page)
        page.goto(f"{server.url}/tournaments/{tid}/")
        expect(page.locator("#tournament-state")).to_have_text("waiting")
        assert page.locator("#tournament-tables tbody tr").count() == len(round_robin(7))
        started = server.manage("start_tournament", str(tid))
        assert "started" in started.stdout
        # the page reads the JSON every few seconds, and reloads itself once it is over; 21
        # tables of 2 games take about 20 s on an idle machine, a minute under load
        expect(page.locator("#tournament-state")).to_have_text("finished", timeout=360_000)
        rows = page.locator("#tournament-standings tbody tr")
        expect(rows).to_have_count(7)
        assert {rows.nth(i).get_attribute("data-name") for i in range(7)} == set(NAMES)
        assert page.locator("#interval-chart circle.series").count() == 7
        games = [int(rows.nth(i).locator("td").nth(2).inner_text()) for i in range(7)]
        assert games == [5 * GAMES] * 7
        assert page.locator("#tournament-tables .badge-finished").count() == len(round_robin(7))
        shot(page, "tournament")

        page.goto(f"{server.url}/ratings")
        expect(page.locator("#leaderboard tbody tr")).to_have_count(7)
        expect(page.locator('#rule-books a[aria-current="page"]')).to_have_attribute(
            "data-rules", "daihinmin-2011"
        )
        shot(page, "leaderboard")
        page.locator('#rule-books a[data-rules="uecda"]').click()  # the other book: none yet
        expect(page.locator("#no-ratings")).to_be_visible()
        page.go_back()
        page.locator("#leaderboard a", has_text=NAMES[0]).click()
        expect(page.locator("#rating-chart-daihinmin-2011 polyline")).to_have_count(2)
        browser.close()
        assert errors == []
    doc = json.loads(httpx.get(f"{server.url}/tournaments/{tid}.json").text)
    assert doc["state"] == "finished" and doc["games_finished"] == 7 * GAMES
    assert all(s["games"] == 5 * GAMES for s in doc["standings"])
