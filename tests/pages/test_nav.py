"""The header's links to log in, sign up and log out (issue 44, item 13): a returning user
logs in from any page without a place id, in English and Japanese."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from tests.api.helpers import forms

pytestmark = pytest.mark.django_db

JA = {"HTTP_ACCEPT_LANGUAGE": "ja,en;q=0.5"}


def header(client: Client, path: str = "/cards", **headers) -> str:
    response = client.get(path, **headers)
    assert response.status_code == 200
    text = response.content.decode()
    return text[text.index('<nav class="site-nav"') : text.index("</nav>")]


def test_a_stranger_sees_log_in_and_sign_up_in_either_language(client, settings):
    nav = header(client)
    assert '<a href="/login" class="nav-login">Log in</a>' in nav
    assert '<a href="/signup" class="nav-signup">Sign up</a>' in nav
    assert "/logout" not in nav and "/account" not in nav
    ja = header(client, **JA)
    assert '<a href="/login" class="nav-login">ログイン</a>' in ja
    assert '<a href="/signup" class="nav-signup">アカウントを作る</a>' in ja
    settings.SIGN_UP = False
    assert "/signup" not in header(client)


def test_a_logged_in_user_sees_account_and_log_out_which_logs_out(client):
    get_user_model().objects.create_user("paula", password="first-Pass-123")
    assert (
        client.post("/login", {"name": "paula", "password": "first-Pass-123"})["Location"]
        == "/account"
    )
    nav = header(client)
    assert '<a href="/account" class="nav-account">Account</a>' in nav
    assert '<a href="/logout" class="nav-logout">Log out</a>' in nav
    assert "nav-login" not in nav and "nav-signup" not in nav
    assert '<a href="/logout" class="nav-logout">ログアウト</a>' in header(client, **JA)
    out = client.get("/logout", HTTP_REFERER="http://testserver/cards")  # the link, followed
    assert out.status_code == 302 and out["Location"] == "/login"
    assert "_auth_user_id" not in client.session
    assert client.get("/account")["Location"] == "/login"


def test_the_login_page_s_first_form_is_still_the_2011_one(client):
    """The header holds links only: the first form is the one a 2011 bot submits."""
    first = forms(client.get("/login").content.decode())[0]
    assert (first.action, list(first.fields)) == ("/sessions", ["name", "password", "place_id"])
