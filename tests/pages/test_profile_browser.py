"""Profiles in a real browser against a real server (daphne, Debian's Chromium): reached
from the pages that name a player. Screenshot: artifacts/screenshots/profile.png."""

from __future__ import annotations

import httpx
import pytest

from tests.pages.browser import (
    VIEWPORT,
    launch,
    require_chromium,
    server_with_a_played_place,
    shot,
    watch_errors,
)

pytestmark = pytest.mark.e2e

NAMES = ("alice", "bob", "charlie", "dave", "eve")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    require_chromium()
    s = server_with_a_played_place(tmp_path_factory.mktemp("profile"), "Profiled", 6, "fixed")
    s.start()
    yield s
    s.stop()


@pytest.fixture
def page(server):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = launch(p)
        context = browser.new_context(viewport=VIEWPORT)
        yield context.new_page()
        browser.close()


def test_a_profile_opens_from_the_results_page(page, server):
    errors = watch_errors(page)
    page.goto(f"{server.url}/places/{server.place_id}/results")
    page.click("#standings-table a.player-link >> text=alice")
    page.wait_for_url(f"{server.url}/users/alice")
    figures = httpx.get(f"{server.url}/users/alice.json").json()
    assert figures["games"] == 6
    assert page.inner_text("#profile h1").startswith("alice")
    games_row = page.locator("#figures tr", has_text="Games").first
    assert games_row.inner_text().split()[-1] == "6"
    ranks = [int(t) for t in page.locator("#ranks td.num").all_inner_texts()]
    assert ranks == figures["rank_counts"]
    assert page.locator("#opponents tbody tr").count() == 4
    shot(page, "profile")
    page.click("#opponents a >> text=bob")
    page.wait_for_url(f"{server.url}/users/bob")
    page.click(f"#places a[href='/places/{server.place_id}/results']")
    page.wait_for_url(f"{server.url}/places/{server.place_id}/results")
    assert errors == []


def test_the_live_page_links_each_seat_to_its_profile(page, server):
    errors = watch_errors(page)
    page.goto(f"{server.url}/places/{server.place_id}/")
    page.wait_for_selector(".seat-name.player-link")
    hrefs = page.eval_on_selector_all(
        ".seat-name.player-link", "els => els.map(e => e.getAttribute('href'))"
    )
    assert sorted(hrefs) == sorted(f"/users/{n}" for n in NAMES)
    assert errors == []


def test_a_replay_of_this_server_links_each_seat_to_its_profile(page, server):
    errors = watch_errors(page)
    page.goto(f"{server.url}/places/{server.place_id}/games/1/replay")
    page.wait_for_selector("#replay[data-ready='1'] .seat-name.player-link")
    hrefs = page.eval_on_selector_all(
        ".seat-name.player-link", "els => els.map(e => e.getAttribute('href'))"
    )
    assert sorted(hrefs) == sorted(f"/users/{n}" for n in NAMES)
    assert errors == []
