"""Log lines about a place say which place, game and turn (``places/logs.py``), as the
server's log handler writes them (``settings.LOGGING``)."""

from __future__ import annotations

import logging
import random

import pytest
from django.conf import settings

from places import dealer, logs, services
from places.models import Place
from places.reads.position import state_of
from places.reads.seats import seats_of
from tests.places.drive import choose

pytestmark = pytest.mark.django_db


class Lines(logging.Handler):
    """The server's console handler's filter and format, into a list."""

    def __init__(self):
        super().__init__()
        self.lines: list[str] = []
        config = settings.LOGGING
        self.addFilter(logs.Ids())
        self.setFormatter(logging.Formatter(config["formatters"]["plain"]["format"]))

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


@pytest.fixture
def lines():
    handler = Lines()
    root = logging.getLogger()
    root.addHandler(handler)
    yield handler.lines
    root.removeHandler(handler)


def test_the_server_s_handler_has_the_filter():
    console = settings.LOGGING["handlers"]["console"]
    assert "ids" in console["filters"]
    assert settings.LOGGING["filters"]["ids"]["()"] == "places.logs.Ids"


def test_a_line_logged_after_a_post_names_its_place_game_and_turn(make_place, lines):
    place = make_place()
    services.start_place(place.id)
    state = state_of(Place.objects.get(pk=place.id))
    user_id = seats_of(place.id)[state.game.turn].user_id
    with logs.about(None):  # as a request of the player API
        logs.note(place=place.id)
        services.post_cards(place.id, user_id, choose(state, random.Random(0)))
        logging.getLogger("places.test").warning("answered")
    after = Place.objects.get(pk=place.id)
    game_id, turn_no = after.engine_state["game_id"], after.engine_state["turn_no"]
    assert lines[-1].endswith(f"[place {place.id} game {game_id} turn {turn_no}] answered")
    logging.getLogger("places.test").warning("outside")
    assert lines[-1].endswith("places.test: outside")  # no scope, no ids


def test_the_dealer_s_failure_on_a_place_names_it(make_place, lines, monkeypatch):
    place = make_place(pace=0)
    services.start_place(place.id)

    def broken(pk, now=None):
        raise RuntimeError("broken step")

    monkeypatch.setattr(dealer, "due_places", lambda driver: [place.id])
    monkeypatch.setattr(services, "run_due", broken)
    monkeypatch.setattr(services, "advance_running", lambda: None)
    dealer.tick("me")
    (line,) = [x for x in lines if "failed to step" in x]
    assert f"[place {place.id}] dealer: place {place.id} failed to step" in line


def test_scopes_nest_and_end():
    assert logs._current.get() is None
    with logs.about(3):
        logs.note(game=7, turn=2)
        with logs.about(3):  # the same place: the outer scope goes on
            logs.note(turn=4)
        assert str(logs._current.get()) == "[place 3 game 7 turn 4] "
        with logs.about(5):
            assert str(logs._current.get()) == "[place 5] "
        assert str(logs._current.get()) == "[place 3 game 7 turn 4] "
    assert logs._current.get() is None
    logs.note(place=1)  # outside any scope: nothing kept
    assert logs._current.get() is None


def test_a_request_with_a_bad_host_is_one_log_line(client, settings):
    """A scanner's bad ``Host`` is logged as one line, not a 30-line traceback."""
    settings.DEBUG = False
    settings.ALLOWED_HOSTS = ["daihinmin.example"]
    handler = Lines()
    django_logger = logging.getLogger("django")  # the console's logger; it does not propagate
    django_logger.addHandler(handler)
    try:
        response = client.get("/", HTTP_HOST="evil.example")
    finally:
        django_logger.removeHandler(handler)
    assert response.status_code == 400
    refused = [line for line in handler.lines if "evil.example" in line]
    assert len(refused) == 1
    assert "\n" not in refused[0] and "Traceback" not in refused[0]
    assert "django.security.DisallowedHost" in refused[0]
