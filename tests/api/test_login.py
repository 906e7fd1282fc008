"""Logging in (PROTOCOL.md §2): GET /login, POST /sessions and /login, as form, query or JSON."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections import Counter
from urllib.parse import urlencode

import pytest
from asgiref.testing import ApplicationCommunicator
from django.conf import global_settings
from django.contrib.auth import authenticate, backends, get_user_model
from django.db import OperationalError, connections
from django.test import Client, RequestFactory

from tests.api.helpers import DECL, FORM, body, data, error_json, error_xml, forms

pytestmark = pytest.mark.django_db


NAMES_MANY = [f"someone-{i}" for i in range(30)]


def creds(name="alice", place=None, password=None, **more):
    fields = {"name": name, "password": password or f"{name}-pw", "place_id": place}
    fields.update(more)
    return fields


def test_the_login_page_s_first_form_posts_name_password_and_place_id_to_sessions(client):
    response = client.get("/login")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/html; charset=utf-8"
    first = forms(body(response))[0]
    assert (first.action, first.method) == ("/sessions", "post")
    assert list(first.fields) == ["name", "password", "place_id"]
    assert first.types["password"] == "password"
    assert first.submits == 1
    assert 'class="site-header"' in body(response)  # it extends base.html


def test_the_login_page_keeps_a_name_and_place_given_in_the_query(client):
    first = forms(body(client.get("/login?name=alice&place_id=7")))[0]
    assert first.fields["name"] == "alice"
    assert first.fields["place_id"] == "7"


@pytest.mark.parametrize("path", ["/sessions", "/login"])
def test_a_form_login_redirects_to_operations_and_remembers_the_place(client, place, path):
    response = client.post(path, urlencode(creds(place=place.id)), content_type=FORM)
    assert response.status_code == 302
    assert response["Location"] == "/operations"
    assert client.session["place_id"] == place.id
    assert client.session["_auth_user_id"] == str(get_user_model().objects.get(username="alice").pk)


def test_a_multipart_form_login_works_too(client, place):
    assert client.post("/sessions", creds(place=place.id)).status_code == 302


@pytest.mark.parametrize("path", ["/sessions", "/login"])
def test_a_login_in_the_query_string_works_as_the_founding_document_says(client, place, path):
    response = client.post(f"{path}?{urlencode(creds(place=place.id))}")
    assert response.status_code == 302
    assert client.session["place_id"] == place.id


def test_body_fields_win_over_query_fields(client, place):
    response = client.post(
        f"/sessions?{urlencode(creds(place=place.id, password='wrong'))}",
        urlencode({"password": "alice-pw"}),
        content_type=FORM,
    )
    assert response.status_code == 302


@pytest.mark.parametrize("path", ["/login.json", "/sessions.json"])
def test_a_json_login_answers_the_player_and_the_place(client, place, path):
    response = client.post(path, urlencode(creds(place=place.id)), content_type=FORM)
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json; charset=utf-8"
    assert response.content == b'{"player":"alice","place":%d}' % place.id
    assert response.cookies["sessionid"].value


def test_accept_application_json_asks_for_the_json_answer(client, place):
    response = client.post("/login", creds(place=place.id), headers={"Accept": "application/json"})
    assert response.status_code == 200
    assert data(response) == {"player": "alice", "place": place.id}


def test_a_browser_accept_header_gets_the_redirect(client, place):
    accept = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
    response = client.post("/login", creds(place=place.id), headers={"Accept": accept})
    assert response.status_code == 302


def test_an_xml_login_answers_in_rails_xml(client, place):
    response = client.post("/sessions.xml", creds(place=place.id))
    assert response.status_code == 200
    assert body(response) == DECL + (
        f'<hash>\n  <player>alice</player>\n  <place type="integer">{place.id}</place>\n</hash>\n'
    )


def test_the_session_cookie_is_http_only_and_same_site_lax(client, place):
    response = client.post("/sessions.json", creds(place=place.id))
    cookie = response.cookies["sessionid"]
    assert cookie["samesite"] == "Lax"
    assert cookie["httponly"]


def test_logging_in_gives_a_new_session_key(client, place):
    client.get("/login")
    client.cookies["sessionid"] = "attacker-chosen-session-key"
    client.post("/sessions", creds(place=place.id))
    assert client.cookies["sessionid"].value != "attacker-chosen-session-key"


def test_passwords_are_stored_hashed_with_django_s_default_hasher(client, place, settings):
    settings.PASSWORD_HASHERS = global_settings.PASSWORD_HASHERS  # the suite uses MD5 for speed
    alice = get_user_model().objects.get(username="alice")
    alice.set_password("alice-pw")
    alice.save()
    assert alice.password.startswith("pbkdf2_sha256$")
    assert "alice-pw" not in alice.password
    assert client.post("/sessions.json", creds(place=place.id)).status_code == 200


def test_logging_in_to_another_place_switches_the_session_to_it(client, users, make_place):
    first = make_place()
    second = make_place()
    client.post("/sessions", creds(place=first.id))
    client.post("/sessions", creds(place=second.id))
    assert client.session["place_id"] == second.id


FAILURES = {
    "an unknown user": lambda place: creds("mallory", place, password="x"),
    "a wrong password": lambda place: creds(place=place, password="bob-pw"),
    "a user who is not a player of that place": lambda place: creds("frank", place),
    "a place that does not exist": lambda place: creds(place=place + 1000),
    "a place id that is no number": lambda place: creds(place="one"),
    "a fullwidth-digit place id": lambda place: creds(place="１"),
    "a missing place id": lambda place: {"name": "alice", "password": "alice-pw"},
    "a missing name": lambda place: {"password": "alice-pw", "place_id": place},
    "nothing at all": lambda place: {},
    "a NUL byte in the name": lambda place: creds(name="ali\x00ce", place=place),
    "a very long name": lambda place: creds(name="a" * 10_000, place=place),
}


@pytest.mark.parametrize("case", FAILURES)
def test_a_failed_json_login_is_401_login_failed(client, place, case):
    response = client.post("/sessions.json", urlencode(FAILURES[case](place.id)), content_type=FORM)
    assert response.status_code == 401
    error_json("LOGIN_FAILED", response)
    assert "_auth_user_id" not in client.session


def test_a_failed_xml_login_is_the_xml_error_body(client, place):
    response = client.post("/login.xml", creds(place=place.id, password="nope"))
    assert response.status_code == 401
    error_xml("LOGIN_FAILED", response)


def test_a_failed_form_login_shows_the_login_page_again_with_401(client, place):
    response = client.post("/sessions", creds(place=place.id, password="nope"))
    assert response.status_code == 401
    assert response["Content-Type"] == "text/html; charset=utf-8"
    assert "wrong name, password or place" in body(response)
    assert forms(body(response))[0].action == "/sessions"


def test_a_failed_login_leaves_an_earlier_session_alone(alice, place):
    alice.post("/sessions", creds(place=place.id, password="nope"))
    assert alice.get("/get_hand.json").status_code == 200


def test_a_get_to_sessions_is_405(client):
    response = client.get("/sessions.json")
    assert response.status_code == 405
    error_json("METHOD_NOT_ALLOWED", response)
    assert response["Allow"] == "POST"


def test_a_json_body_is_refused_with_415(client, place):
    response = client.post(
        "/sessions.json",
        json.dumps({"name": "alice", "password": "alice-pw", "place_id": place.id}),
        content_type="application/json",
    )
    assert response.status_code == 415
    error_json("UNSUPPORTED_MEDIA_TYPE", response)


# -- slowing down guessing (api/throttle.py) ----------------------------------------------------


@pytest.fixture
def low_limits(settings):
    settings.LOGIN_FAILURE_LIMIT = 3
    settings.LOGIN_ADDRESS_FAILURE_LIMIT = 4
    settings.LOGIN_NAME_FAILURE_LIMIT = 3
    settings.LOGIN_FAILURE_WINDOW = 60
    return settings


def fail(client, place, name="alice", addr="10.0.0.1"):
    return client.post("/sessions.json", creds(name, place.id, password="guess"), REMOTE_ADDR=addr)


def log_in(client, place, name="alice", addr="10.0.0.1"):
    return client.post("/sessions.json", creds(name, place.id), REMOTE_ADDR=addr)


def test_after_the_limit_of_failures_for_a_name_from_an_address_that_pair_gets_429(
    client, place, low_limits
):
    for _ in range(3):
        assert fail(client, place).status_code == 401
    response = fail(client, place)
    assert response.status_code == 429
    error_json("TOO_MANY_ATTEMPTS", response)
    assert 1 <= int(response["Retry-After"]) <= 60


def test_while_limited_even_the_right_password_is_refused(client, place, low_limits):
    for _ in range(3):
        fail(client, place)
    response = log_in(client, place)
    assert response.status_code == 429
    assert "_auth_user_id" not in client.session


def test_failures_from_one_address_do_not_lock_the_name_out_from_another(client, place, low_limits):
    for _ in range(3):
        fail(client, place, addr="10.0.0.1")
    assert fail(client, place, addr="10.0.0.1").status_code == 429
    assert log_in(client, place, addr="10.0.0.2").status_code == 200


def test_a_few_failures_from_an_address_do_not_block_the_other_users_behind_it(
    client, place, low_limits
):
    for i in range(3):
        assert fail(client, place, name=f"user{i}").status_code == 401
    assert log_in(client, place, name="bob").status_code == 200


def test_many_failures_from_one_address_block_it(client, place, low_limits):
    for i in range(4):
        assert fail(client, place, name=f"user{i}").status_code == 401
    assert fail(client, place, name="someone-else").status_code == 429
    assert log_in(client, place, name="bob").status_code == 429
    assert log_in(client, place, name="bob", addr="10.0.0.2").status_code == 200


def test_logging_in_to_one_s_own_account_does_not_reset_the_address_count(
    client, place, low_limits
):
    for i in range(3):
        fail(client, place, name=f"user{i}")
    assert log_in(client, place, name="bob").status_code == 200  # the guesser's own account
    assert fail(client, place, name="user3").status_code == 401
    assert fail(client, place, name="user4").status_code == 429


def test_failures_for_a_name_from_many_addresses_hold_back_only_those_addresses(
    client, place, low_limits
):
    for i in range(3):
        assert fail(client, place, addr=f"10.0.1.{i}").status_code == 401
    assert fail(client, place, addr="10.0.1.0").status_code == 429
    # the real user, from an address that never failed, logs in
    assert log_in(client, place, addr="10.0.3.1").status_code == 200


def test_a_success_clears_its_own_count(client, place, low_limits):
    low_limits.LOGIN_ADDRESS_FAILURE_LIMIT = low_limits.LOGIN_NAME_FAILURE_LIMIT = 10
    for _ in range(2):
        fail(client, place)
    assert log_in(client, place).status_code == 200
    for _ in range(2):
        assert fail(client, place).status_code == 401


def test_the_limit_ends_with_its_window(client, place, low_limits):
    low_limits.LOGIN_FAILURE_WINDOW = 1
    for _ in range(3):
        fail(client, place)
    limited = fail(client, place)
    assert limited.status_code == 429
    assert limited["Retry-After"] == "1"
    time.sleep(1.1)
    assert log_in(client, place).status_code == 200


def test_a_form_client_that_is_limited_gets_the_login_page_with_429(client, place, low_limits):
    for _ in range(3):
        fail(client, place)
    response = client.post("/sessions", creds(place=place.id, password="x"), REMOTE_ADDR="10.0.0.1")
    assert response.status_code == 429
    assert "Retry-After" in response
    assert "too many failed logins" in body(response)


def test_the_admin_login_is_limited_too(client, place, low_limits):
    get_user_model().objects.create_user("boss", password="boss-pw", is_staff=True)

    def admin_login(password, addr):
        client.post(
            "/admin/login/",
            {"username": "boss", "password": password, "next": "/admin/"},
            REMOTE_ADDR=addr,
        )
        return "_auth_user_id" in client.session

    for _ in range(3):
        assert not admin_login("guess", "10.0.0.1")
    assert not admin_login("boss-pw", "10.0.0.1")  # held back, even with the right password
    assert fail(client, place, name="boss").status_code == 429  # one count for every login
    assert admin_login("boss-pw", "10.0.0.2")


@pytest.mark.parametrize(
    "limit,names",
    [("LOGIN_FAILURE_LIMIT", ["alice"] * 20), ("LOGIN_ADDRESS_FAILURE_LIMIT", NAMES_MANY)],
    ids=["one name", "many names"],
)
def test_simultaneous_guesses_are_counted_before_their_passwords_are_checked(
    settings, monkeypatch, limit, names
):
    """Every guess sent at once: no more passwords are checked than the limit allows
    (before, each was checked against the count as it stood before any of them failed)."""
    setattr(settings, limit, 5)
    checked = []
    all_in = threading.Barrier(len(names))

    def slow_check(self, request, username=None, password=None, **kwargs):
        checked.append(username)
        time.sleep(0.2)  # a password hash: the others arrive meanwhile
        return None

    monkeypatch.setattr(backends.ModelBackend, "authenticate", slow_check)
    request = RequestFactory().post("/sessions", REMOTE_ADDR="10.0.9.9")

    def guess(name: str) -> None:
        all_in.wait()
        authenticate(request, username=name, password="guess")

    threads = [threading.Thread(target=guess, args=(name,)) for name in names]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(checked) == 5


def test_limits_default_to_five_failures_in_five_minutes(settings):
    assert settings.LOGIN_FAILURE_LIMIT == 5
    assert settings.LOGIN_ADDRESS_FAILURE_LIMIT == 50
    assert settings.LOGIN_NAME_FAILURE_LIMIT == 20
    assert settings.LOGIN_FAILURE_WINDOW == 300


def test_a_fresh_client_is_not_logged_in():
    assert Client().get("/get_hand.json").status_code == 401


# -- a crowd behind one address, through the real ASGI app ------------------------------------

CROWD = 100


def _login_at_once(address: str, fields: list[dict]) -> list[int]:
    """Every login posted at once to the server's ASGI app for HTTP (each in Django's own
    thread, as under daphne; the dealer not started), from ``address``: their statuses."""
    from daihinmin.asgi import router

    async def one(form: dict) -> int:
        scope = {
            "type": "http", "http_version": "1.1", "method": "POST", "scheme": "http",
            "path": "/login.json", "raw_path": b"/login.json", "query_string": b"",
            "headers": [(b"host", b"127.0.0.1"), (b"content-type", FORM.encode())],
            "client": (address, 40000), "server": ("127.0.0.1", 80),
        }  # fmt: skip
        comm = ApplicationCommunicator(router, scope)
        await comm.send_input({"type": "http.request", "body": urlencode(form).encode()})
        start = await comm.receive_output(timeout=120)
        await comm.receive_output(timeout=120)  # the body
        await comm.send_input({"type": "http.disconnect"})
        await comm.wait(timeout=30)
        return start["status"]

    async def all_at_once() -> list[int]:
        return list(await asyncio.gather(*(one(form) for form in fields)))

    statuses = asyncio.run(all_at_once())
    connections.close_all()
    return statuses


@pytest.fixture
def crowd(transactional_db):
    """``CROWD`` users seated five to a place, like a contest's bots: ``[(name, place_id)]``."""
    from places import services

    model = get_user_model()
    seated = []
    for p in range(CROWD // 5):
        names = [f"bot{p}-{i}" for i in range(5)]
        for name in names:
            model.objects.create_user(name, password=f"{name}-pw")
        place = services.create_place(f"Crowd {p}", names, game_count=1, pace=0)
        seated += [(name, place.id) for name in names]
    return seated


def test_a_hundred_right_logins_at_once_from_one_address_all_get_in(crowd, settings):
    """A contest's bots on one machine (or a lab behind one NAT), logging in together: none
    is refused for the others' sake (before, each counted as a failure of the address
    until its hash was done, and past the address's limit the rest got 429)."""
    assert CROWD > settings.LOGIN_ADDRESS_FAILURE_LIMIT  # the defaults: 100 against 50
    statuses = _login_at_once("10.7.0.1", [creds(name, place) for name, place in crowd])
    assert statuses.count(200) == CROWD, Counter(statuses)


@pytest.mark.parametrize(
    "limit,names",
    [("LOGIN_FAILURE_LIMIT", ["bot0-0"] * 200), ("LOGIN_ADDRESS_FAILURE_LIMIT", None)],
    ids=["one name", "many names"],
)
def test_wrong_passwords_at_once_from_one_address_are_checked_no_more_than_the_limit(
    crowd, settings, limit, names
):
    """200 guesses sent at once: no more than the limit are checked (401: all of them,
    unless some gave up waiting behind the others on a slow machine), the rest are held
    back (429); then the right password from there is refused if the limit was reached."""
    names = names or [f"bot{i // 5}-{i % 5}" for i in range(200)]
    places = dict(crowd)
    guesses = [creds(name, places.get(name, 1), password="guess") for name in names]
    statuses = _login_at_once("10.7.0.2", guesses)
    assert 0 < statuses.count(401) <= getattr(settings, limit), Counter(statuses)
    assert statuses.count(401) + statuses.count(429) == len(names)
    reached = statuses.count(401) == getattr(settings, limit)
    right = _login_at_once("10.7.0.2", [creds("bot0-0", places["bot0-0"])])
    assert right == [429 if reached else 200]


def test_a_check_that_errs_is_not_a_failure(client, place, low_limits, monkeypatch):
    """The database not answering in time (a 500) tells nothing of the password: counted
    as a failure, a bot retrying through a busy minute shut itself out for the window."""
    broken = backends.ModelBackend.authenticate

    def no_database(self, request, username=None, password=None, **kwargs):
        raise OperationalError("couldn't get a connection after 30.00 sec")

    monkeypatch.setattr(backends.ModelBackend, "authenticate", no_database)
    client.raise_request_exception = False
    for _ in range(low_limits.LOGIN_FAILURE_LIMIT + 1):
        assert log_in(client, place).status_code == 500
    monkeypatch.setattr(backends.ModelBackend, "authenticate", broken)
    assert log_in(client, place).status_code == 200


# -- a person's login without a place (issue 44, item 13) ----------------------------------------


def test_a_person_logs_in_without_a_place_and_lands_on_the_account_page(client, place):
    response = client.post("/login", creds(place=""))
    assert response.status_code == 302 and response["Location"] == "/account"
    alice = get_user_model().objects.get(username="alice")
    assert client.session["_auth_user_id"] == str(alice.pk)
    assert "place_id" not in client.session  # the site's session, in no place
    assert client.get("/account").status_code == 200
    assert client.get("/operations")["Location"] == "/login"  # Play still needs a place


def test_a_place_login_after_a_site_login_plays_and_a_site_login_again_leaves_the_place(
    client, place
):
    assert client.post("/login", creds(place=place.id))["Location"] == "/operations"
    assert client.get("/operations").status_code == 200
    assert client.post("/sessions", creds(place=" "))["Location"] == "/account"
    assert "place_id" not in client.session


def test_a_wrong_password_without_a_place_is_the_login_page_again(client, place):
    response = client.post("/login", creds(place="", password="wrong"))
    assert response.status_code == 401
    assert "wrong name or password" in body(response)
    assert "_auth_user_id" not in client.session


def test_a_bot_still_names_its_place(client, place):
    """The JSON and XML logins keep the 2011 contract: without a place, LOGIN_FAILED."""
    response = client.post("/login.json", creds(place=""))
    assert response.status_code == 401
    error_json("LOGIN_FAILED", response)
    assert "_auth_user_id" not in client.session
