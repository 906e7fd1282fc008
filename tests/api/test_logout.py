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


@pytest.mark.parametrize(
    "header", [{"Origin": "http://evil.example"}, {"Referer": "http://evil.example/page"}]
)
@pytest.mark.parametrize("method", ["get", "post"])
def test_a_logout_sent_by_a_page_of_another_site_is_refused(alice, method, header):
    response = getattr(alice, method)("/logout", headers=header)
    assert response.status_code == 403
    assert alice.get("/get_hand.json").status_code == 200  # still logged in


def test_a_logout_from_a_page_of_this_site_works(alice):
    response = alice.get("/logout", headers={"Referer": "http://testserver/operations"})
    assert response.status_code == 302
    assert alice.get("/get_hand.json").status_code == 401
