"""POST /practice: a place of the user and four house bots, started, the session playing in it.

Alice practises; the house users are made on demand. Bad input changes nothing:
no place, no user, the session as it was.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from daifugo.place import IN_GAME
from places import services
from places.models import HouseBot, Place, Player
from places.reads.position import state_of
from places.reads.seats import seats_of
from places.services import tokens
from tests.api.helpers import FORM, data, error_json, error_xml, forms, submit

pytestmark = pytest.mark.django_db


@pytest.fixture
def alice(db):
    return get_user_model().objects.create_user("alice", password="alice-pw")


def practise(client: Client, path: str = "/practice.json", **fields):
    return client.post(path, fields)


def as_alice(**fields) -> dict:
    return {"name": "alice", "password": "alice-pw", **fields}


def nothing_made() -> bool:
    return not Place.objects.exists() and not HouseBot.objects.exists()


# -- what it makes ------------------------------------------------------------------------------


def test_name_and_password_make_a_started_place_of_alice_and_four_greedy_house_bots(client, alice):
    response = practise(client, **as_alice())
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json; charset=utf-8"
    doc = data(response)
    assert list(doc) == [
        "player",
        "place",
        "seat",
        "players",
        "game_count",
        "pace",
        "time_limit",
        "state",
        "urls",
    ]
    place = Place.objects.get(pk=doc["place"])
    assert (doc["player"], doc["game_count"], doc["pace"], doc["time_limit"]) == (
        "alice",
        5,
        0.0,
        10.0,
    )
    assert place.state == doc["state"] == "running"
    assert doc["players"] == [s.name for s in seats_of(place.id)]
    assert doc["players"][doc["seat"]] == "alice"
    house = [n for n in doc["players"] if n != "alice"]
    assert sorted(house) == [f"house-greedy-{i}" for i in range(1, 5)]
    assert [s.house for s in seats_of(place.id) if s.name != "alice"] == ["greedy"] * 4
    assert doc["urls"] == {
        "play": "/operations",
        "live": f"/places/{place.id}/",
        "results": f"/places/{place.id}/results",
        "socket": f"/ws/places/{place.id}/",
        "records": f"/places/{place.id}/records.jsonl",
    }


def test_at_pace_0_the_house_has_played_until_alice_must_act(client, alice):
    doc = data(practise(client, **as_alice()))
    state = state_of(Place.objects.get(pk=doc["place"]))
    assert state.phase == IN_GAME and state.needs_action
    assert state.game.turn == doc["seat"]


def test_the_session_then_plays_in_the_new_place_as_after_login(client, alice):
    doc = data(practise(client, **as_alice()))
    assert client.session["place_id"] == doc["place"]
    info = data(client.get("/operations/get_place_info.json"))
    assert info["turn_player"] == "alice"
    hand = data(client.get("/get_hand.json"))
    assert hand  # her own cards, read with the same cookie


def test_a_logged_in_user_practises_without_a_password(client, alice):
    client.force_login(alice)
    response = practise(client, bots="shedder,random,greedy,shedder", games="2")
    assert response.status_code == 200
    doc = data(response)
    assert doc["game_count"] == 2
    strategies = {s.name: s.house for s in seats_of(doc["place"])}
    assert sorted(v for v in strategies.values() if v) == ["greedy", "random", "shedder", "shedder"]
    assert {"house-shedder-1", "house-shedder-2"} <= set(strategies)


def test_a_player_logged_in_to_one_place_moves_to_the_practice(client, alice):
    first = data(practise(client, **as_alice()))["place"]
    second = data(practise(client))["place"]  # the session's user, no password
    assert second != first
    assert client.session["place_id"] == second


def test_bots_may_come_as_repeated_parameters_as_a_form_of_four_selects_sends_them(client, alice):
    client.force_login(alice)
    body = "bots=random&bots=greedy&bots=random&bots=shedder"
    doc = data(client.post("/practice.json", body, content_type=FORM))
    names = [n for n in doc["players"] if n != "alice"]
    assert names == ["house-random-1", "house-greedy-1", "house-random-2", "house-shedder-1"]


@pytest.mark.parametrize(
    ("fields", "rated"), [({}, False), ({"rated": "1"}, True), ({"rated": "false"}, False)]
)
def test_practice_is_unrated_unless_asked_and_may_have_a_time_bank(client, alice, fields, rated):
    doc = data(practise(client, **as_alice(time_bank="30", **fields)))
    place = Place.objects.get(pk=doc["place"])
    assert (place.rated, place.time_bank) == (rated, 30.0)


def test_house_users_are_reused_by_the_next_practice(client, alice):
    first = data(practise(client, **as_alice()))
    users = get_user_model().objects.count()
    second = data(practise(client))
    assert get_user_model().objects.count() == users
    assert sorted(first["players"]) == sorted(second["players"])


def test_a_seed_chooses_the_seat_and_makes_the_deals_and_house_moves_reproducible(client, alice):
    a = data(practise(client, **as_alice(seed="same", games="1")))
    b = data(practise(client, seed="same", games="1"))
    assert a["seat"] == b["seat"]
    assert a["players"] == b["players"]
    pa, pb = (Place.objects.get(pk=d["place"]) for d in (a, b))
    assert pa.engine_state["place"] == pb.engine_state["place"]


def test_the_xml_answer_is_a_rails_hash(client, alice):
    response = practise(client, "/practice.xml", **as_alice())
    assert response.status_code == 200
    text = response.content.decode()
    assert text.startswith(
        '<?xml version="1.0" encoding="UTF-8"?>\n<hash>\n  <player>alice</player>'
    )
    assert '<players type="array">' in text and "<socket>/ws/places/" in text


def test_a_form_post_lands_a_person_on_the_play_page(client, alice):
    client.force_login(alice)
    response = client.post("/practice", {"games": "1", "pace": "0.5", "time_limit": "60"})
    assert response.status_code == 302
    assert response["Location"] == "/operations"
    place = Place.objects.get(pk=client.session["place_id"])
    assert (place.game_count, place.pace, place.time_limit) == (1, 0.5, 60.0)
    page = client.get("/operations")
    assert page.status_code == 200
    assert f"Place {place.id}" in page.content.decode()


def test_the_house_users_cannot_log_in(client, alice):
    doc = data(practise(client, **as_alice()))
    house = next(n for n in doc["players"] if n != "alice")
    assert not get_user_model().objects.get(username=house).has_usable_password()
    for password in ("", "house", house):
        response = Client().post(
            "/sessions.json", {"name": house, "password": password, "place_id": doc["place"]}
        )
        assert response.status_code == 401


# -- what it refuses ----------------------------------------------------------------------------


def test_a_seed_holding_nul_is_refused_as_such_not_as_too_long(client, alice):
    response = practise(client, **as_alice(seed="a\x00b"))
    assert response.status_code == 400
    error_json("INVALID_PARAMETER", response)
    assert data(response)["error"]["message"] == "seed: no NUL character (\\x00)"
    assert nothing_made()


@pytest.mark.parametrize(
    ("fields", "code"),
    [
        ({"bots": "greedy,greedy,greedy"}, "INVALID_PARAMETER"),
        ({"bots": "greedy,greedy,greedy,greedy,greedy"}, "INVALID_PARAMETER"),
        ({"bots": "greedy,greedy,greedy,grandmaster"}, "UNKNOWN_STRATEGY"),
        ({"bots": "greedy,greedy,greedy,os:system"}, "UNKNOWN_STRATEGY"),
        ({"games": "0"}, "INVALID_PARAMETER"),
        ({"games": "101"}, "INVALID_PARAMETER"),
        ({"games": "five"}, "INVALID_PARAMETER"),
        ({"games": "2.5"}, "INVALID_PARAMETER"),
        ({"games": "１０"}, "INVALID_PARAMETER"),  # full-width digits: int() reads them
        ({"games": "1_0"}, "INVALID_PARAMETER"),
        ({"pace": "０.５"}, "INVALID_PARAMETER"),
        ({"time_limit": "٣"}, "INVALID_PARAMETER"),  # Arabic-Indic three
        ({"pace": "-1"}, "INVALID_PARAMETER"),
        ({"pace": "nan"}, "INVALID_PARAMETER"),
        ({"pace": "11"}, "INVALID_PARAMETER"),
        ({"time_limit": "0"}, "INVALID_PARAMETER"),
        ({"time_limit": "inf"}, "INVALID_PARAMETER"),
        ({"time_limit": "1e-300"}, "INVALID_PARAMETER"),  # the house would play on alone
        ({"time_limit": "0.99"}, "INVALID_PARAMETER"),
        ({"seed": "s" * 65}, "INVALID_PARAMETER"),
        ({"rated": "maybe"}, "INVALID_PARAMETER"),
        ({"time_bank": "-1"}, "INVALID_PARAMETER"),
        ({"time_bank": "601"}, "INVALID_PARAMETER"),
    ],
)
def test_bad_settings_are_refused_with_a_stable_code_and_change_nothing(
    client, alice, fields, code
):
    response = practise(client, **as_alice(**fields))
    assert response.status_code == 400
    error_json(code, response)
    assert nothing_made()
    assert "_auth_user_id" not in client.session


def test_a_wrong_password_is_login_failed_and_changes_nothing(client, alice):
    response = practise(client, **as_alice(password="guess"))
    assert response.status_code == 401
    error_json("LOGIN_FAILED", response)
    assert nothing_made()
    assert "_auth_user_id" not in client.session


def test_a_house_users_name_with_any_password_is_login_failed(client, alice):
    data(practise(client, **as_alice()))  # makes house-greedy-1 … 4
    response = practise(Client(), name="house-greedy-1", password="")
    error_json("LOGIN_FAILED", response)


def test_without_a_session_or_a_name_it_is_not_logged_in(client, alice):
    response = practise(client)
    assert response.status_code == 401
    error_json("NOT_LOGGED_IN", response)
    error_xml("NOT_LOGGED_IN", practise(client, "/practice.xml"))
    assert nothing_made()


def test_a_page_client_without_a_session_is_sent_to_log_in(client, alice):
    response = client.post("/practice", {"games": "1"})
    assert response.status_code == 302
    assert response["Location"] == "/login"
    assert nothing_made()


def test_failed_passwords_count_as_failed_logins_and_then_wait(client, alice, settings):
    settings.LOGIN_FAILURE_LIMIT = 2
    for _ in range(2):
        assert practise(client, **as_alice(password="guess")).status_code == 401
    response = practise(client, **as_alice())  # the right password, too late
    assert response.status_code == 429
    error_json("TOO_MANY_ATTEMPTS", response)
    assert int(response["Retry-After"]) >= 1
    assert nothing_made()


def test_failures_at_practice_and_at_login_are_one_count(client, alice, settings):
    settings.LOGIN_FAILURE_LIMIT = 2
    practise(client, **as_alice(password="guess"))
    client.post("/sessions.json", {"name": "alice", "password": "guess", "place_id": "1"})
    assert client.post("/sessions.json", as_alice(place_id="1")).status_code == 429


def test_a_user_may_keep_only_a_few_practices_unfinished(client, alice, settings):
    settings.PRACTICE_PLACES_PER_USER = 2
    client.force_login(alice)
    for _ in range(2):
        assert practise(client).status_code == 200
    response = practise(client)
    assert response.status_code == 409
    error_json("TOO_MANY_PRACTICES", response)
    assert Place.objects.count() == 2
    Place.objects.update(state=Place.State.FINISHED)
    assert practise(client).status_code == 200


def test_no_turn_of_a_practice_is_shorter_than_the_minimum(client, alice, settings):
    settings.PRACTICE_MIN_TIME_LIMIT = 5.0
    response = practise(client, **as_alice(time_limit="4"))
    assert response.status_code == 400
    error_json("INVALID_PARAMETER", response)
    assert "time_limit: 5 to 600 seconds" in data(response)["error"]["message"]
    assert nothing_made()
    assert practise(client, **as_alice(time_limit="5")).status_code == 200


def test_a_user_may_ask_for_only_so_many_practice_games_in_a_window(client, alice, settings):
    settings.PRACTICE_GAMES_PER_WINDOW = 12
    settings.PRACTICE_GAMES_WINDOW = 600
    client.force_login(alice)
    for _ in range(2):
        assert practise(client, games="5").status_code == 200
    Place.objects.update(state=Place.State.FINISHED)  # finished ones count as well
    response = practise(client, games="5")
    assert response.status_code == 429
    error_json("TOO_MANY_PRACTICE_GAMES", response)
    assert 590 <= int(response["Retry-After"]) <= 600  # when the first five leave the window
    assert Place.objects.count() == 2
    assert practise(client, games="2").status_code == 200  # what is left of the twelve
    Place.objects.update(created_at=timezone.now() - timedelta(seconds=601))
    assert practise(client, games="5").status_code == 200  # a new window


def from_address(address: str, *names: str) -> list[Client]:
    """A logged-in client for each of these new users, all at one address."""
    clients = []
    for name in names:
        user = get_user_model().objects.create_user(name, password=f"{name}-pw")
        c = Client(REMOTE_ADDR=address)
        c.force_login(user)
        clients.append(c)
    return clients


def test_the_accounts_of_one_address_together_hold_only_so_many_practices(client, settings):
    settings.PRACTICE_PLACES_PER_USER = 2
    settings.PRACTICE_PLACES_PER_ADDRESS = 3
    bob, carol, dan = from_address("10.1.1.1", "bob", "carol", "dan")
    for c in (bob, bob, carol):
        assert practise(c).status_code == 200
    for c in (carol, dan):  # within their own limits, past the address's
        response = practise(c)
        assert response.status_code == 409
        error_json("TOO_MANY_ADDRESS_PRACTICES", response)
        assert "this address has 3 unfinished practice places" in data(response)["error"]["message"]
    assert Place.objects.count() == 3
    (erin,) = from_address("10.2.2.2", "erin")
    assert practise(erin).status_code == 200  # another address is served
    assert set(Place.objects.values_list("practice_address", flat=True)) == {
        "10.1.1.1",
        "10.2.2.2",
    }
    bob_s_first = Place.objects.filter(practice_address="10.1.1.1").order_by("id").first()
    Place.objects.filter(pk=bob_s_first.pk).update(state=Place.State.FINISHED)
    assert practise(dan).status_code == 200


def test_the_accounts_of_one_address_together_ask_for_only_so_many_games(client, settings):
    settings.PRACTICE_GAMES_PER_WINDOW = 10
    settings.PRACTICE_GAMES_PER_ADDRESS = 20
    settings.PRACTICE_GAMES_WINDOW = 600
    bob, carol, dan = from_address("10.1.1.1", "bob", "carol", "dan")
    for c in (bob, bob, carol, carol):
        assert practise(c, games="5").status_code == 200
    Place.objects.update(state=Place.State.FINISHED)  # finished ones count as well
    response = practise(dan, games="5")
    assert response.status_code == 429
    error_json("TOO_MANY_ADDRESS_PRACTICE_GAMES", response)
    assert "20 practice games asked for from this address" in data(response)["error"]["message"]
    assert 590 <= int(response["Retry-After"]) <= 600  # when bob's first five leave the window
    assert Place.objects.count() == 4
    (erin,) = from_address("10.2.2.2", "erin")
    assert practise(erin, games="5").status_code == 200  # another address is served
    Place.objects.update(created_at=timezone.now() - timedelta(seconds=601))
    assert practise(dan, games="5").status_code == 200  # a new window


def test_the_address_is_the_one_sign_up_and_login_count(client, settings):
    """A forwarded header is the client's only where daphne was told to read it (the
    proxy's --proxy-headers): what the request's REMOTE_ADDR says is the address."""
    settings.PRACTICE_PLACES_PER_ADDRESS = 1
    bob, carol = from_address("10.1.1.1", "bob", "carol")
    assert practise(bob).status_code == 200
    response = carol.post("/practice.json", {}, HTTP_X_FORWARDED_FOR="10.9.9.9")
    error_json("TOO_MANY_ADDRESS_PRACTICES", response)


@pytest.mark.parametrize(("fields", "status"), [({}, 200), ({"seed": "farm"}, 400)])
def test_a_rated_practice_deals_only_what_the_server_draws(client, alice, fields, status):
    response = practise(client, **as_alice(rated="1", **fields))
    assert response.status_code == status
    if status == 400:
        error_json("INVALID_PARAMETER", response)
        assert "chosen seed is unrated" in data(response)["error"]["message"]
        assert nothing_made()
    unrated = practise(client, **as_alice(rated="0", seed="farm"))
    assert unrated.status_code == 200


def test_a_tournament_table_is_no_practice_of_its_entrant(client, alice, settings):
    settings.PRACTICE_PLACES_PER_USER = 1
    names = ["alice"]
    for i in range(4):
        services.house.make_house_user(f"h{i}", "greedy")
        names.append(f"h{i}")
    services.start_tournament(services.create_tournament("Cup", names, game_count=2).id)
    table = Place.objects.filter(state=Place.State.RUNNING).get()  # alice's first table
    assert {p.user.username for p in table.players.all()} == set(names)
    client.force_login(alice)
    assert practise(client).status_code == 200


def test_a_place_of_alice_and_other_people_is_no_practice(client, alice, settings):
    settings.PRACTICE_PLACES_PER_USER = 1
    names = ["bob", "carol", "dan", "erin"]
    for n in names:
        get_user_model().objects.create_user(n, password="pw")
    services.create_place("Real", ["alice", *names], game_count=1)
    client.force_login(alice)
    assert practise(client).status_code == 200


def test_a_post_from_another_site_is_refused(client, alice):
    client.force_login(alice)
    response = client.post("/practice.json", {}, HTTP_ORIGIN="https://evil.example")
    assert response.status_code == 403
    error_json("CROSS_SITE", response)
    assert nothing_made()


def test_get_is_not_allowed(client, alice):
    response = client.get("/practice.json")
    assert response.status_code == 405
    assert response["Allow"] == "POST"
    assert not Player.objects.exists()


# -- the forms for people -----------------------------------------------------------------------


def test_the_play_page_offers_practice_after_its_2011_form(client, alice):
    client.force_login(alice)
    practise(client)
    text = client.get("/operations").content.decode()
    found = forms(text)
    assert found[0].action == "/operations/post_cards"  # Mechanize bots submit the first form
    practice = next(f for f in found if f.action == "/practice")
    assert practice.method == "post"
    assert "name" not in practice.fields  # the session's user practises
    assert text.count('<select name="bots"') == 4
    assert 'id="btn-practice"' in text
    assert "Play against the house bots" in text


def test_the_login_page_offers_practice_with_a_name_and_password_after_its_login_form(client):
    found = forms(client.get("/login").content.decode())
    assert found[0].action == "/sessions"
    practice = next(f for f in found if f.action == "/practice")
    assert {"name", "password"} <= set(practice.fields)
    assert practice.types["password"] == "password"


def test_the_login_page_s_practice_form_logs_in_and_lands_on_the_play_page(client, alice):
    practice = next(
        f for f in forms(client.get("/login").content.decode()) if f.action == "/practice"
    )
    # the selects (not read by the form parser) default to greedy; the pace select to 0.5 s
    fields = {**practice.fields, "name": "alice", "password": "alice-pw", "pace": "0.5"}
    response = submit(client, practice, fields)
    assert response.status_code == 302 and response["Location"] == "/operations"
    place = Place.objects.get(pk=client.session["place_id"])
    assert (place.game_count, place.pace, place.time_limit) == (3, 0.5, 60.0)  # for a person


def test_the_practice_form_speaks_japanese(client):
    text = client.get("/login", HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    assert "ハウスボットと対戦する" in text and "ボット 4" in text


def test_a_person_with_a_wrong_password_gets_the_login_page_again(client, alice):
    response = client.post("/practice", {"name": "alice", "password": "guess"})
    assert response.status_code == 401
    text = response.content.decode()
    assert "wrong name or password" in text and 'action="/sessions"' in text
    assert nothing_made()


# -- with a token -------------------------------------------------------------------------------


def test_a_bearer_token_starts_a_practice_and_its_bot_plays_it_without_a_password(alice):
    """Issue 44, item 13: ``POST /practice.json`` with ``Authorization: Bearer`` answered
    NOT_LOGGED_IN, so an automated bot still carried its owner's password."""
    token = {"HTTP_AUTHORIZATION": f"Bearer {tokens.create(alice.pk, 'v3').token}"}
    bot = Client()
    response = bot.post("/practice.json", {"games": "1"}, **token)
    assert response.status_code == 200, response.content
    doc = data(response)
    assert doc["player"] == "alice" and doc["state"] == "running"
    assert settings.SESSION_COOKIE_NAME not in response.cookies  # no session: the token is it
    hand = bot.get(f"/get_hand.json?place_id={doc['place']}", **token)
    assert hand.status_code == 200 and data(hand)
    xml = bot.post("/practice.xml", {"games": "1"}, **token)
    assert xml.status_code == 200 and b"<player>alice</player>" in xml.content


def test_a_wrong_token_starts_no_practice_even_with_the_password(client, alice):
    response = client.post(
        "/practice.json", as_alice(), HTTP_AUTHORIZATION="Bearer dh_000000000000_wrong"
    )
    assert response.status_code == 401
    error_json("INVALID_TOKEN", response)
    assert nothing_made()
