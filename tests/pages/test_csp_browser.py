"""The Content-Security-Policy (daihinmin/csp.py) on the real server: every page, the admin
and the API's documentation pages run under it without one violation, and an inline
script would not run."""

from __future__ import annotations

import pytest

from tests.pages.browser import (
    VIEWPORT,
    require_chromium,
    server_with_a_played_place,
    shot,
    watch_errors,
)

pytestmark = pytest.mark.e2e

#: What a violation logs in Chromium's console.
VIOLATION = "Content Security Policy"
#: Refusals the policy is meant to make: Redoc's bundle shows its maker's logo from a CDN
#: (the page is whole without it).
EXPECTED = ("'https://cdn.redoc.ly/",)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    require_chromium()
    s = server_with_a_played_place(tmp_path_factory.mktemp("csp"), "Policed", 2, "csp")
    s.manage("createsuperuser", "--noinput", "--username", "root", "--email", "r@example.com")
    s.manage(
        "shell", "--no-imports", "-c",
        "from django.contrib.auth import get_user_model as m; u = m().objects.get(username='root');"
        " u.set_password('root-pw'); u.save()",
    )  # fmt: skip
    s.start()
    yield s
    s.stop()


def visit(browser, url: str, ready: str, log_in: bool = False) -> tuple[list[str], list[str]]:
    """Open ``url``, wait for ``ready``; the policy's violations and the script errors."""
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    errors = watch_errors(page)
    violations: list[str] = []
    page.on(
        "console",
        lambda m: (
            violations.append(m.text)
            if VIOLATION in m.text and not any(e in m.text for e in EXPECTED)
            else None
        ),
    )
    if log_in:
        page.goto(url.split("/admin/")[0] + "/admin/login/")
        page.fill("#id_username", "root")
        page.fill("#id_password", "root-pw")
        page.click("input[type=submit]")
        page.wait_for_selector("#site-name")
    response = page.goto(url)
    assert response.status == 200
    assert "script-src 'self';" in response.headers["content-security-policy"]
    page.wait_for_selector(ready)
    page.wait_for_timeout(500)  # late scripts, a socket's first frames
    name = url.split("//", 1)[1].split("/", 1)[1].strip("/").replace("/", "-") or "home"
    shot(page, f"csp-{name}")
    context.close()
    return violations, errors


def test_every_page_runs_under_the_policy(browser, server):
    place = f"/places/{server.place_id}"
    pages = [
        ("/", "main"),
        ("/cards", "svg.card"),
        (f"{place}/", "#seats .seat"),
        (f"{place}/results", "#games-table"),
        (f"{place}/games/1/replay", "#replay[data-ready='1']"),
        ("/users/alice", "main"),
        ("/tournaments/", "main"),
        ("/ratings", "main"),
        ("/login", "form"),
        ("/api/docs/", ".swagger-ui .info"),
        ("/api/redoc/", "redoc [role=search], .api-content"),
    ]
    found = {path: visit(browser, server.url + path, ready) for path, ready in pages}
    found["/admin/places/place/"] = visit(
        browser, f"{server.url}/admin/places/place/{server.place_id}/change/", "#content", True
    )
    assert {path: v for path, v in found.items() if v != ([], [])} == {}


def test_an_inline_script_does_not_run(browser, server):
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    page.goto(f"{server.url}/cards")
    ran = page.evaluate(
        """() => new Promise((done) => {
            document.addEventListener("securitypolicyviolation", () => done(window.ran || 0));
            const s = document.createElement("script");
            s.textContent = "window.ran = 1";
            document.body.append(s);
        })"""
    )
    assert ran == 0
    context.close()
