"""Rough edges a new user met on the live pages and the home page (issue 38, item 6), in
Debian's Chromium: names cut to "house-rand…" so two house bots looked alike, a seat's
points drawn over its name, a finished place still saying "● live", and UECda places
labelled "manual pace" with no UECda badge. Screenshots: artifacts/screenshots/
live-long-names.png, live-ended.png, live-uecda-ended.png, home-uecda.png."""

from __future__ import annotations

import time

import httpx
import pytest

from tests.daifugo.test_uecda_log import FIXTURE
from tests.pages.browser import VIEWPORT, launch, require_chromium, shot, watch_errors

pytestmark = pytest.mark.e2e

NAMES = ["house-random-1", "house-random-2", "house-shedder-1", "house-greedy-1", "house-greedy-2"]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    from harness.server import Server

    require_chromium()
    s = Server(tmp_path_factory.mktemp("live-edges"))
    players = [a for n in NAMES for a in ("--player", n)]
    *_, waiting, ended = s.manage_all(
        *(["create_user", n, "--house", n.split("-")[1]] for n in NAMES),
        ["create_place", "Long names", *players, "--games", "3", "--seed", "names"],
        ["create_place", "Over", *players, "--games", "1", "--pace", "0", "--seed", "over"],
    )
    s.waiting, s.ended = int(waiting), int(ended)
    s.uecda = int(s.manage("import_tndhms_log", str(FIXTURE)).stdout.split("place ")[1].split()[0])
    s.start()
    s.manage("start_place", str(s.ended))
    deadline = time.monotonic() + 60
    while httpx.get(f"{s.url}/places/{s.ended}/state.json").json()["place"]["state"] != "finished":
        assert time.monotonic() < deadline
        time.sleep(0.2)
    yield s
    s.stop()


def test_every_name_is_whole_and_nothing_is_drawn_over_it(server):
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as p:
        browser = launch(p)
        page = browser.new_page(viewport=VIEWPORT)
        errors = watch_errors(page)
        page.goto(f"{server.url}/places/{server.waiting}/")
        names = page.locator("#seats .seat-name")
        expect(names).to_have_count(5)
        expect(names).to_have_text(NAMES)
        for i in range(5):
            seat = page.locator("#seats .seat").nth(i)
            name = seat.locator(".seat-name")
            assert name.evaluate("e => e.scrollWidth <= e.clientWidth"), NAMES[i]  # not cut
            a, b = name.bounding_box(), seat.locator(".seat-points").bounding_box()
            assert b["y"] >= a["y"] + a["height"] - 1, (NAMES[i], a, b)  # below it, not over
        cells = page.locator("#standings td.name")
        for i in range(5):
            assert cells.nth(i).evaluate("e => e.scrollWidth <= e.clientWidth")
        shot(page, "live-long-names")
        browser.close()
    assert errors == []


def test_a_place_that_is_over_says_so_instead_of_live(server):
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as p:
        browser = launch(p)
        page = browser.new_page(viewport=VIEWPORT)
        errors = watch_errors(page)
        page.goto(f"{server.url}/places/{server.ended}/")
        expect(page.locator("#conn")).to_have_class("conn ended")
        expect(page.locator("#conn")).to_have_text("ended: nothing more to follow")
        shot(page, "live-ended")

        sockets = []
        page.on("websocket", lambda ws: sockets.append(ws.url))
        page.goto(f"{server.url}/places/{server.uecda}/")  # an imported match: over
        expect(page.locator("#conn")).to_have_class("conn ended")
        expect(page.locator("#seats .seat")).to_have_count(5)  # its last game, as it ended
        page.wait_for_timeout(500)
        assert sockets == []  # nothing to follow: no socket opened
        shot(page, "live-uecda-ended")
        browser.close()
    assert errors == []


def test_the_home_page_marks_uecda_places_and_their_pace(server):
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as p:
        browser = launch(p)
        page = browser.new_page(viewport=VIEWPORT)
        page.goto(f"{server.url}/?finished=1")
        uecda = page.locator(f'li.place-item[data-place="{server.uecda}"]')
        expect(uecda.locator(".badge-uecda")).to_have_text("UECda")
        expect(uecda.locator(".place-meta")).to_contain_text("as fast as its clients answer")
        expect(uecda.locator(".place-meta")).not_to_contain_text("manual pace")
        other = page.locator(f'li.place-item[data-place="{server.ended}"]')
        expect(other.locator(".badge-uecda")).to_have_count(0)
        shot(page, "home-uecda")
        browser.close()
