"""A view that fails (DEBUG off): the data routes answer SERVER_ERROR in their form, pages
Django's plain 500 page (daihinmin/failures.py)."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from places.views import pages

pytestmark = pytest.mark.django_db


@pytest.fixture
def failing(monkeypatch, settings):
    settings.DEBUG = False

    def fails(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr(pages, "snapshot", fails)
    monkeypatch.setattr(pages, "get_object_or_404", fails)
    return Client(raise_request_exception=False)


def test_a_json_route_that_fails_answers_server_error_as_json(failing):
    response = failing.get("/places/1/state.json")
    assert response.status_code == 500
    assert response["Content-Type"] == "application/json; charset=utf-8"
    assert json.loads(response.content) == {
        "error": {"code": "SERVER_ERROR", "message": "the server failed to answer this request"}
    }


def test_a_page_that_fails_answers_django_s_500_page(failing):
    response = failing.get("/places/1/results")
    assert response.status_code == 500
    assert response["Content-Type"].startswith("text/html")
    assert b"Server Error (500)" in response.content
