"""The account page and a profile split by version in a real browser against a real server
(daphne, Debian's Chromium), issue 38: a new user signs up, makes two tokens on
``/account`` (each shown once), changes the password, and ``python -m bots`` plays a
practice with each token; the profile then stands v1 and v2 side by side.
Screenshots: artifacts/screenshots/account.png, account-password.png, profile-versions.png."""

from __future__ import annotations

import subprocess
import sys

import httpx
import pytest

from tests.pages.browser import VIEWPORT, launch, require_chromium, shot, watch_errors

pytestmark = pytest.mark.e2e

PASSWORD = "first-Pass-123"
NEW_PASSWORD = "second-Pass-456"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    from harness.server import Server

    require_chromium()
    s = Server(tmp_path_factory.mktemp("account"))
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


def make_token(page, label: str) -> str:
    page.fill("#id_label", label)
    page.click("#token-form input[type=submit]")
    page.wait_for_selector("#new-token-value")
    return page.inner_text("#new-token-value").strip()


def play(server, place_id: int, token: str, transport: str, strategy: str) -> None:
    from harness.server import ROOT

    bot = subprocess.run(
        [sys.executable, "-m", "bots", "--server", server.url, "--place", str(place_id),
         "--name", "vera", "--seed", "1", "--strategy", strategy, "--transport", transport],
        cwd=ROOT, env={**server.env, "DAIHINMIN_TOKEN": token},
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert bot.returncode == 0, bot.stdout + bot.stderr


def test_the_account_page_and_a_profile_split_by_version(page, server):
    errors = watch_errors(page)
    page.goto(f"{server.url}/signup")
    page.fill("#id_name", "vera")
    page.fill("#id_password", PASSWORD)
    page.fill("#id_password_again", PASSWORD)
    page.click("#signup-form input[type=submit]")
    page.wait_for_url(f"{server.url}/signup")
    page.goto(f"{server.url}/")  # the site's pages link the account page once logged in
    page.click("a.nav-account")
    page.wait_for_url(f"{server.url}/account")
    assert page.locator("#no-tokens").is_visible()
    first = make_token(page, "v1")
    assert first.startswith("dh_")
    page.goto(f"{server.url}/account")  # seen once: gone on the next visit
    assert first not in page.content()
    second = make_token(page, "v2")
    labels = page.eval_on_selector_all("#token-list tbody tr", "rs => rs.map(r => r.dataset.label)")
    assert labels == ["v2", "v1"]
    shot(page, "account")

    page.fill("#id_old_password", PASSWORD)
    page.fill("#id_new_password1", NEW_PASSWORD)
    page.fill("#id_new_password2", NEW_PASSWORD)
    page.click("#password-form input[type=submit]")
    page.wait_for_url(f"{server.url}/account")
    assert "Your password was changed." in page.inner_text("#account")
    shot(page, "account-password")
    login = httpx.post(
        f"{server.url}/practice.json",
        data={"name": "vera", "password": NEW_PASSWORD, "games": "3", "time_limit": "30"},
        timeout=30,
    )
    assert login.status_code == 200, login.text  # the new password is the one
    cookies = {c["name"]: c["value"] for c in page.context.cookies()}
    later = httpx.post(
        f"{server.url}/practice.json",
        data={"games": "3", "time_limit": "30", "seed": "v2"},
        cookies=cookies,
        timeout=30,
    )  # the page's session plays on after the change
    assert later.status_code == 200, later.text
    play(server, login.json()["place"], first, "http", "random")  # v1: a weaker bot
    play(server, later.json()["place"], second, "ws", "greedy")

    page.goto(f"{server.url}/users/vera")
    rows = page.locator("#version-table tbody tr")
    assert rows.count() == 2
    assert page.eval_on_selector_all(
        "#version-table tbody tr", "rs => rs.map(r => r.dataset.version)"
    ) == ["v1", "v2"]
    doc = httpx.get(f"{server.url}/users/vera.json").json()["versions"]
    assert [(v["version"], v["games"]) for v in doc] == [("v1", 3), ("v2", 3)]
    for v, row in zip(doc, rows.all(), strict=True):
        cells = row.locator("td").all_inner_texts()
        assert cells[0] == "3" and cells[1] == f"{v['points_per_game']:.2f}"
        assert cells[2] == f"{v['interval'][0]:.2f} – {v['interval'][1]:.2f}"
    page.locator("#versions").scroll_into_view_if_needed()
    shot(page, "profile-versions")
    page.goto(f"{server.url}/account")
    used = page.eval_on_selector_all(
        "#token-list tbody tr td:nth-child(4)", "ts => ts.map(t => t.innerText)"
    )
    assert "never" not in used  # both tokens were used
    assert errors == []
