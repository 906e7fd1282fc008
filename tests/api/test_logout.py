"""GET or POST /logout ends the session."""

from __future__ import annotations

import pytest

from tests.api.helpers import error_json

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("method", ["get", "post"])
def test_logout_ends_the_session_and_sends_a_page_client_to_login(alice, method):
    response = getattr(alice, method)("/logout")
    assert response.status_code == 302
    assert response["Location"] == "/login"
    error_json("NOT_LOGGED_IN", alice.get("/get_hand.json"))
    assert alice.get("/operations")["Location"] == "/login"


@pytest.mark.parametrize("path", ["/logout.json", "/logout.xml"])
def test_a_data_client_gets_204(alice, path):
    assert alice.post(path).status_code == 204
    assert alice.get("/get_hand.json").status_code == 401


def test_logging_out_when_not_logged_in_is_harmless(client):
    assert client.get("/logout").status_code == 302
    assert client.get("/logout", headers={"Accept": "application/json"}).status_code == 204
