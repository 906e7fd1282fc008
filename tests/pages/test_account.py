"""The account page (issue 38): the password changed with Django's form and validators, and
the personal API tokens made (shown once), listed and revoked."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from places.models import ApiToken
from places.reads import tokens as tokens_read
from places.services import tokens

pytestmark = pytest.mark.django_db


@pytest.fixture
def person(db) -> Client:
    get_user_model().objects.create_user("paula", password="first-Pass-123")
    client = Client()
    assert client.login(username="paula", password="first-Pass-123")
    return client


def test_not_logged_in_it_sends_to_the_login_page():
    response = Client().get("/account")
    assert response.status_code == 302 and response["Location"] == "/login"


def test_the_password_is_changed_with_django_s_validators(person):
    wrong_old = person.post("/account", {
        "action": "password", "old_password": "nope", "new_password1": "second-Pass-456",
        "new_password2": "second-Pass-456",
    })  # fmt: skip
    assert wrong_old.status_code == 400
    weak = person.post("/account", {
        "action": "password", "old_password": "first-Pass-123", "new_password1": "123",
        "new_password2": "123",
    })  # fmt: skip
    assert weak.status_code == 400 and b"too short" in weak.content
    assert get_user_model().objects.get(username="paula").check_password("first-Pass-123")
    other = Client()
    assert other.login(username="paula", password="first-Pass-123")
    done = person.post("/account", {
        "action": "password", "old_password": "first-Pass-123",
        "new_password1": "second-Pass-456", "new_password2": "second-Pass-456",
    })  # fmt: skip
    assert done.status_code == 302 and done["Location"] == "/account"
    assert get_user_model().objects.get(username="paula").check_password("second-Pass-456")
    page = person.get("/account")
    assert page.status_code == 200  # this session stays logged in
    assert b"Your password was changed." in page.content
    assert other.get("/account").status_code == 302  # the others end


def test_a_token_is_shown_once_listed_and_revoked(person):
    made = person.post("/account", {"action": "create_token", "label": "v7"})
    assert made.status_code == 200
    row = ApiToken.objects.get(user__username="paula")
    text = made.content.decode()
    start = text.index('id="new-token-value">') + len('id="new-token-value">')
    token = text[start : text.index("<", start)]
    assert token.startswith(f"dh_{row.prefix}_") and len(token) > 50
    again = person.get("/account").content.decode()
    assert token not in again and f"dh_{row.prefix}_…" in again and "v7" in again
    assert "no-store" in made["Cache-Control"]
    bad = person.post("/account", {"action": "create_token", "label": "v 7"})
    assert bad.status_code == 400 and b'id="token-error"' in bad.content
    revoked = person.post("/account", {"action": "revoke_token", "token_id": str(row.id)})
    assert revoked.status_code == 302
    assert ApiToken.objects.get(pk=row.id).revoked_at is not None
    not_hers = person.post("/account", {"action": "revoke_token", "token_id": "999999"})
    assert not_hers.status_code == 404


def test_the_page_s_forms_need_the_csrf_token(person):
    get_user_model().objects.create_user("quinn", password="q-Pass-123456")
    strict = Client(enforce_csrf_checks=True)
    strict.login(username="quinn", password="q-Pass-123456")
    assert strict.post("/account", {"action": "create_token", "label": "v1"}).status_code == 403
    assert not ApiToken.objects.filter(user__username="quinn").exists()


def test_the_page_at_the_token_bound_lists_the_live_tokens_and_the_last_revoked(person):
    """Issue 44, item 8: /account reached 240 KB at 796 tokens; at the bound it stays small."""
    ids = []
    for n in range(tokens.MAX_TOKENS_PER_USER + tokens_read.REVOKED_LISTED + 2):
        if len(ids) == tokens.MAX_TOKENS_PER_USER:  # full: revoke the oldest first
            assert person.post("/account", {"action": "revoke_token", "token_id": ids.pop(0)})
        assert (
            person.post("/account", {"action": "create_token", "label": f"v{n}"}).status_code == 200
        )
        ids.append(str(ApiToken.objects.filter(user__username="paula").latest("id").id))
    page = person.get("/account")
    text = page.content.decode()
    listed = text.count('name="token_id"')
    assert listed == tokens.MAX_TOKENS_PER_USER  # revoke forms: the live ones only
    assert text.count("<tr") - 1 == tokens.MAX_TOKENS_PER_USER + tokens_read.REVOKED_LISTED
    print(f"/account at the bound: {len(page.content)} bytes, {listed} live tokens listed")
    assert len(page.content) < 64_000  # a guard: 796 tokens made it 240 KB
