"""A method a page does not serve is answered 405 (docs/protocol.md §6), before the CSRF
check's 403, which stays on for the views that do take unsafe methods."""

from __future__ import annotations

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db

UNSAFE = ("post", "put", "delete", "patch")


def read_only_paths(place_id: int) -> list[str]:
    return [
        "/",
        "/cards",
        f"/places/{place_id}/",
        f"/places/{place_id}/state.json",
        f"/places/{place_id}/results",
        f"/places/{place_id}/results.csv",
        f"/places/{place_id}/events.json",
        f"/places/{place_id}/games/1/replay",
        f"/places/{place_id}/games/1/record.json",
        f"/places/{place_id}/records.jsonl",
        "/users/alice",
        "/users/alice.json",
        "/tournaments/",
        "/ratings",
        "/ratings.json",
        "/livez",
        "/healthz",
        "/metrics",
    ]


@pytest.mark.parametrize("method", UNSAFE)
def test_unsafe_methods_on_read_only_pages_are_405_not_csrf_s_403(finished_place, method):
    browser = Client(enforce_csrf_checks=True)  # as a browser is checked: no token sent
    for path in read_only_paths(finished_place.id):
        response = getattr(browser, method)(path)
        assert (path, response.status_code) == (path, 405)
        assert response["Allow"] == "GET, HEAD"
        assert browser.get(path).status_code in (200, 403)  # 403: /metrics wants its token


def test_a_view_that_takes_post_still_checks_the_csrf_token(users):
    browser = Client(enforce_csrf_checks=True)
    assert browser.post("/i18n/setlang/", {"language": "ja"}).status_code == 403
