"""A person signs up in a real browser, then practises, with no admin in between
(issue 27, item 2); and the live page's Stop button for staff (item 3).

Its own daphne (harness/server.py), and Debian's Chromium; screenshots go to
artifacts/screenshots/.
"""

from __future__ import annotations

import pytest

from harness.server import Server
from tests.pages.browser import VIEWPORT, require_chromium, shot, watch_errors

pytestmark = pytest.mark.e2e

PASSWORD = "correct-horse-9"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    require_chromium()
    s = Server(tmp_path_factory.mktemp("signup"))
    s.manage("create_user", "root", "--password", "root-pw", "--staff")
    s.start()
    yield s
    s.stop()


def test_a_person_signs_up_then_practises(browser, server):
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    errors = watch_errors(page)
    page.goto(f"{server.url}/login")
    page.click("a[href='/signup']")
    page.wait_for_url(f"{server.url}/signup")
    page.fill("#id_name", "hana")
    page.fill("#id_password", PASSWORD)
    page.fill("#id_password_again", PASSWORD)
    shot(page, "signup-form")
    page.click("#signup-form input[type=submit]")
    page.wait_for_url(f"{server.url}/signup")
    assert "hana" in page.inner_text(".api-message")
    shot(page, "signup-done")
    page.fill("#id_practice_games", "1")
    page.click("#btn-practice")
    page.wait_for_url(f"{server.url}/operations")
    assert page.inner_text("body").count("hana") >= 1
    assert errors == []
    context.close()


def test_a_refused_sign_up_shows_why_and_keeps_the_name(browser, server):
    page = browser.new_page(viewport=VIEWPORT)
    page.goto(f"{server.url}/signup")
    page.fill("#id_name", "x.json")
    page.fill("#id_password", PASSWORD)
    page.fill("#id_password_again", PASSWORD)
    page.click("#signup-form input[type=submit]")
    assert "may not end in" in page.inner_text(".api-error")
    assert page.input_value("#id_name") == "x.json"
    shot(page, "signup-refused")
    page.close()


def test_the_sign_up_page_speaks_japanese(browser, server):
    context = browser.new_context(
        viewport=VIEWPORT, locale="ja-JP", extra_http_headers={"Accept-Language": "ja"}
    )
    page = context.new_page()
    page.goto(f"{server.url}/signup")
    assert "アカウントを作る" in page.inner_text("h1")
    assert "パスワード（確認）" in page.inner_text("#signup-form")
    shot(page, "signup-form-ja")
    context.close()


def test_staff_stop_a_place_from_its_live_page(browser, server):
    names = ["p1", "p2", "p3", "p4", "p5"]
    for n in names:
        server.manage("create_user", n, "--password", f"{n}-pw")
    made = server.manage(
        "create_place", "To stop", *[a for n in names for a in ("--player", n)], "--pace", "manual"
    )
    place = int(made.stdout.strip())
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    errors = watch_errors(page)
    page.goto(f"{server.url}/admin/login/?next=/places/{place}/")
    page.fill("#id_username", "root")
    page.fill("#id_password", "root-pw")
    page.click("input[type=submit]")
    page.wait_for_url(f"{server.url}/places/{place}/")
    page.wait_for_function("() => document.querySelector('#live').dataset.state === 'waiting'")
    page.click("#btn-start")
    page.wait_for_function("() => document.querySelector('#live').dataset.state === 'running'")
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#btn-stop")
    page.wait_for_function("() => document.querySelector('#live').dataset.state === 'aborted'")
    assert page.is_disabled("#btn-stop") and page.is_disabled("#btn-next")
    shot(page, "live-stopped")
    assert errors == []
    context.close()
