"""Signing up (``/signup``, ``/signup.json``; ``places.services.accounts.sign_up``): a
person makes an account, then logs bots in and asks for practice without an admin;
``SIGN_UP`` off closes it; the login's limiter caps it (issue 27, item 2)."""

from __future__ import annotations

import json
from urllib.parse import urlencode

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from places import services
from tests.api.helpers import FORM, body, forms

pytestmark = pytest.mark.django_db

PASSWORD = "a long pass phrase"


def sign_up(client, name="newbot", password=PASSWORD, path="/signup.json", **more):
    return client.post(
        path, urlencode({"name": name, "password": password, **more}), content_type=FORM
    )


def error_code(response) -> str:
    return json.loads(response.content)["error"]["code"]


def test_a_bot_signs_up_then_practises_with_its_name_and_password(client):
    response = sign_up(client)
    assert response.status_code == 201
    assert json.loads(response.content) == {"player": "newbot"}
    user = get_user_model().objects.get(username="newbot")
    assert user.check_password(PASSWORD) and not user.is_staff and user.is_active
    assert client.session["_auth_user_id"] == str(user.pk)
    bot = Client()  # another process of the same person: name and password, nothing else
    response = bot.post(
        "/practice.json", urlencode({"name": "newbot", "password": PASSWORD}), content_type=FORM
    )
    assert response.status_code == 200
    practice = json.loads(response.content)
    assert practice["player"] == "newbot" and practice["state"] == "running"
    hand = bot.get("/get_hand.json")
    assert hand.status_code == 200 and json.loads(hand.content)  # it plays in its place


def test_a_signed_up_user_logs_in_to_a_place_an_organiser_seats_it_in(client, users):
    sign_up(client, "carol2")
    place = services.create_place("Seated", ["carol2", "alice", "bob", "charlie", "dave"])
    bot = Client()
    response = bot.post(
        "/login.json",
        urlencode({"name": "carol2", "password": PASSWORD, "place_id": place.id}),
        content_type=FORM,
    )
    assert response.status_code == 200
    assert json.loads(response.content) == {"player": "carol2", "place": place.id}


def test_the_xml_answer(client):
    response = sign_up(client, path="/signup.xml")
    assert response.status_code == 201
    assert "<player>newbot</player>" in body(response)


@pytest.mark.parametrize(
    "name, code",
    [
        ("x.json", "INVALID_NAME"),
        ("a b", "INVALID_NAME"),
        ("", "INVALID_NAME"),
        ("..", "INVALID_NAME"),
        ("x" * 151, "INVALID_NAME"),
    ],
)
def test_names_follow_the_one_rule(client, name, code):
    response = sign_up(client, name)
    assert response.status_code == 400 and error_code(response) == code
    assert not get_user_model().objects.exclude(username="").exists()


def test_a_name_taken_in_any_case_is_refused(client, users):
    for name in ("alice", "ALICE"):
        response = sign_up(client, name)
        assert response.status_code == 409 and error_code(response) == "NAME_TAKEN"
    assert get_user_model().objects.get(username="alice").check_password("alice-pw")


# -- names as stored, and names that look alike (issue 36, item 3) ----------------------------


@pytest.mark.parametrize(
    "name, code",
    [
        ("ＶＩＣＴＩＭ", "NAME_TAKEN"),  # fullwidth: NFKC makes it VICTIM
        ("VICTIM", "NAME_TAKEN"),  # case
        ("v\u0456ctim", "NAME_CONFUSABLE"),  # Cyrillic і
        ("V\u0406CTIM", "NAME_CONFUSABLE"),  # Cyrillic І, and case
        ("\u03bdictim", "NAME_CONFUSABLE"),  # Greek ν
        ("v\u0456ct\u0456m\u3164", "NAME_CONFUSABLE"),  # and a Hangul filler, which shows nothing
        ("vict\u0131m", "NAME_CONFUSABLE"),  # dotless ı
        ("victirn", "NAME_CONFUSABLE"),  # rn for m
        ("\ufb00", "NAME_TAKEN"),  # the ligature ﬀ is stored as ff
        ("\uff26\uff26", "NAME_TAKEN"),  # fullwidth FF
        ("paypa\u0406", "NAME_CONFUSABLE"),
        ("paypaI", "NAME_CONFUSABLE"),
    ],  # I and l
)
def test_a_name_that_looks_like_a_user_s_is_refused(client, name, code):
    model = get_user_model()
    for taken in ("victim", "ff", "paypal"):
        model.objects.create_user(taken, password="pw")
    response = sign_up(client, name)
    assert response.status_code == 409 and error_code(response) == code
    message = json.loads(response.content)["error"]["message"]
    assert "is taken" in message if code == "NAME_TAKEN" else "looks like" in message
    assert sorted(model.objects.values_list("username", flat=True)) == ["ff", "paypal", "victim"]


@pytest.mark.parametrize("name", ["victims", "vector", "lris", "dolt", "ffa", "bob", "m1ke"])
def test_ordinary_names_that_differ_are_taken(client, name):
    for taken in ("victim", "iris", "doit", "ff", "mike"):  # i and l stay apart in lower case
        get_user_model().objects.create_user(taken, password="pw")
    response = sign_up(client, name)
    assert response.status_code == 201 and json.loads(response.content) == {"player": name}


def test_the_name_is_stored_and_answered_as_django_stores_it(client):
    response = sign_up(client, "\ufb00x")  # ﬀx
    assert response.status_code == 201 and json.loads(response.content) == {"player": "ffx"}
    assert get_user_model().objects.filter(username="ffx").exists()
    response = sign_up(Client(), "x.\uff4a\uff53\uff4f\uff4e")  # x.ｊｓｏｎ is x.json
    assert response.status_code == 400 and error_code(response) == "INVALID_NAME"


@pytest.mark.parametrize("password", ["short", "12345678901", "newbot12", "password123", ""])
def test_a_weak_password_is_refused(client, password):
    response = sign_up(client, password=password)
    assert response.status_code == 400 and error_code(response) == "INVALID_PASSWORD"
    assert not get_user_model().objects.filter(username="newbot").exists()


def test_the_page_s_two_passwords_must_match(client):
    response = sign_up(client, path="/signup", password_again="another long phrase")
    assert response.status_code == 400
    assert "the two passwords differ" in body(response)
    assert not get_user_model().objects.filter(username="newbot").exists()


def test_staff_flags_cannot_be_sent(client):
    sign_up(client, is_staff="1", is_superuser="1")
    user = get_user_model().objects.get(username="newbot")
    assert not user.is_staff and not user.is_superuser


# -- the page ---------------------------------------------------------------------------------


def test_the_page_signs_up_then_offers_practice(client):
    page = client.get("/signup")
    assert page.status_code == 200
    form = forms(body(page))[0]
    assert (form.action, form.method) == ("/signup", "post")
    assert list(form.fields) == ["name", "password", "password_again"]
    response = sign_up(client, path="/signup", password_again=PASSWORD)
    assert response.status_code == 302 and response["Location"] == "/signup"
    after = body(client.get("/signup"))
    assert "newbot" in after and 'id="practice-form"' in after
    form = [("bots", "greedy")] * 4 + [("pace", "0")]
    response = client.post("/practice", urlencode(form), content_type=FORM)  # the session's user
    assert response.status_code == 302 and response["Location"] == "/operations"


def test_the_page_answers_a_refusal_with_the_form_and_the_name(client):
    response = sign_up(client, "x.json", path="/signup", password_again=PASSWORD)
    assert response.status_code == 400
    page = body(response)
    assert "may not end in" in page and forms(page)[0].fields["name"] == "x.json"


def test_the_login_page_links_the_sign_up(client, settings):
    assert 'href="/signup"' in body(client.get("/login"))
    settings.SIGN_UP = False
    assert 'href="/signup"' not in body(client.get("/login"))


# -- the off switch and the limiter ------------------------------------------------------------


def test_sign_up_off_refuses_the_page_and_the_route(client, settings):
    settings.SIGN_UP = False
    response = sign_up(client)
    assert response.status_code == 403 and error_code(response) == "SIGN_UP_CLOSED"
    page = client.get("/signup")
    assert page.status_code == 403 and "takes no sign-ups" in body(page)
    assert sign_up(client, path="/signup", password_again=PASSWORD).status_code == 403
    assert not get_user_model().objects.filter(username="newbot").exists()


def test_an_address_that_signs_up_too_often_waits_like_a_login(client, settings):
    settings.LOGIN_ADDRESS_FAILURE_LIMIT = 3
    for i in range(3):
        assert sign_up(client, f"bot{i}").status_code == 201
    response = sign_up(client, "bot3")
    assert response.status_code == 429 and error_code(response) == "TOO_MANY_ATTEMPTS"
    assert int(response["Retry-After"]) > 0
    assert not get_user_model().objects.filter(username="bot3").exists()
    # the one limiter: that address's logins wait too, another address signs up
    login = client.post(
        "/login.json",
        urlencode({"name": "bot0", "password": PASSWORD, "place_id": 1}),
        content_type=FORM,
    )
    assert login.status_code == 429
    other = Client(REMOTE_ADDR="10.0.0.9")
    assert sign_up(other, "bot4").status_code == 201


def test_a_disabled_account_can_no_longer_practise(client):
    sign_up(client)
    from places.services import accounts

    accounts.disable([get_user_model().objects.get(username="newbot").pk])
    response = client.post(
        "/practice.json", urlencode({"name": "newbot", "password": PASSWORD}), content_type=FORM
    )
    assert response.status_code == 401 and error_code(response) == "LOGIN_FAILED"
    response = client.post("/practice.json", content_type=FORM)  # nor its session
    assert response.status_code == 401 and error_code(response) == "NOT_LOGGED_IN"
