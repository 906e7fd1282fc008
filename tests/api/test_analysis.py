"""A finished game's analysis for scripts (issue 44, item 13): ``/places/ID/games/N/
analysis.json`` reads it (anyone) and, with a POST, asks for it, for a logged-in session or
an ``Authorization: Bearer`` token (the player routes' one mechanism, ``api/security.py``),
in JSON with the stable codes. Before, asking was a page's form only: a script's cookie got
an HTML 403 (CSRF), and a token nothing."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from places import analyst, errors
from places.models import GameAnalysis
from places.services import tokens
from tests.api.helpers import error_json
from tests.places.drive import play_out

pytestmark = pytest.mark.django_db


@pytest.fixture
def finished(make_place, users, settings):
    """A place of three games, played out; its analyses quick to make."""
    settings.ANALYSIS_PLAYOUTS = 20
    place = make_place(game_count=3, seed="analysis-api")
    play_out(place.id)
    return place


def bearer(user) -> dict:
    return {"HTTP_AUTHORIZATION": f"Bearer {tokens.create(user.pk, 'script-1').token}"}


def refused(code: errors.Code, response) -> None:
    assert response.status_code == code.status
    error_json(code, response)


def url(place, game: int) -> str:
    return f"/places/{place.id}/games/{game}/analysis.json"


def test_a_script_asks_with_a_token_follows_the_job_and_reads_the_analysis(finished, users):
    """Frank plays in no game of the place: any user may ask."""
    script = Client(**bearer(users["frank"]))
    asked = script.post(url(finished, 2))
    assert asked.status_code == 202
    assert asked["Content-Type"] == "application/json; charset=utf-8"
    assert asked.json() == {"state": "queued", "done": 0, "decisions": 0, "playouts": 20}
    job = GameAnalysis.objects.get(game__place=finished, game__no=2)
    assert job.requested_by == users["frank"] and job.requested_from == "127.0.0.1"
    assert script.get(url(finished, 2)).status_code == 202
    assert analyst.work_once("worker")
    document = script.get(url(finished, 2))
    assert document.status_code == 200 and document.json()["game"] == 2
    again = script.post(url(finished, 2))  # made once: the job there is
    assert again.status_code == 200 and again.json()["state"] == "done"
    assert Client().get(url(finished, 2)).json() == document.json()  # anyone reads it


def test_a_session_cookie_asks_without_a_csrf_token(finished, users):
    """The issue's case: a cookie's POST to the old form route was an HTML 403 (CSRF)."""
    script = Client(enforce_csrf_checks=True)
    script.force_login(users["grace"])
    asked = script.post(url(finished, 1))
    assert asked.status_code == 202 and asked.json()["state"] == "queued"


def test_refusals_are_json_with_stable_codes(finished, users):
    refused(errors.NOT_LOGGED_IN, Client().post(url(finished, 1)))
    wrong = Client(HTTP_AUTHORIZATION="Bearer dh_000000000000_" + "x" * 43)
    refused(errors.INVALID_TOKEN, wrong.post(url(finished, 1)))
    refused(errors.INVALID_TOKEN, wrong.get(url(finished, 1)))  # a wrong token is no reader
    script = Client(**bearer(users["heidi"]))
    refused(errors.NOT_FOUND, script.post(url(finished, 4)))
    refused(errors.NOT_FOUND, script.post(f"/places/{finished.id + 99}/games/1/analysis.json"))
    refused(errors.NOT_ANALYSED, script.get(url(finished, 1)))
    cross = script.post(url(finished, 1), HTTP_ORIGIN="https://evil.example")
    refused(errors.CROSS_SITE, cross)
    assert script.post(url(finished, 1)).status_code == 202
    refused(errors.ANALYSIS_UNDER_WAY, script.post(url(finished, 2)))
    put = script.put(url(finished, 1))
    refused(errors.METHOD_NOT_ALLOWED, put)
    assert put["Allow"] == "GET, HEAD, POST"
    assert GameAnalysis.objects.count() == 1


def test_a_staff_token_reads_and_asks_for_a_game_held_back(make_place, users, settings):
    settings.ANALYSIS_PLAYOUTS = 20
    first = make_place(game_count=2, seed="held")
    play_out(first.id)
    make_place(names=("frank", "grace", "heidi", "ivan", "judy"), game_count=2, seed="held")
    refused(errors.HELD_BACK, Client(**bearer(users["alice"])).post(url(first, 1)))
    boss = get_user_model().objects.create_superuser("boss", password="boss-pw")
    staff = Client(**bearer(boss))
    assert staff.post(url(first, 1)).status_code == 202
    job = GameAnalysis.objects.get()
    assert job.priority == GameAnalysis.Priority.STAFF
    assert staff.get(url(first, 1)).status_code == 202
    refused(errors.HELD_BACK, Client().get(url(first, 1)))
