"""POST /practice with ``rules=uecda``: a waiting UECda place of the user and four house bots,
played by the user's client over TCP; the answer carries the seat's join code and how to
connect. The 2011 practice's answer stays as it was, byte for byte.
"""

from __future__ import annotations

import json

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from places import errors
from places.models import JoinCode, Place
from places.reads.seats import seats_of
from tests.api.helpers import data, error_json, forms

pytestmark = pytest.mark.django_db


@pytest.fixture
def alice(db):
    return get_user_model().objects.create_user("alice", password="alice-pw")


def uecda(client: Client, path: str = "/practice.json", host: str = "testserver", **fields):
    fields = {"name": "alice", "password": "alice-pw", "rules": "uecda", **fields}
    return client.post(path, fields, HTTP_HOST=host)


def test_a_uecda_practice_waits_for_alice_s_client_and_tells_her_code_and_where(
    client, alice, settings
):
    settings.ALLOWED_HOSTS = ["play.example.org"]
    response = uecda(client, host="play.example.org:8000", games="3", seed="u")
    assert response.status_code == 200, response.content
    assert "no-cache" in response["Cache-Control"]
    doc = data(response)
    place = Place.objects.get(pk=doc["place"])
    assert (place.rules, place.state, place.practice, place.game_count) == (
        "uecda",
        "waiting",
        True,
        3,
    )
    assert list(doc) == [
        "player", "place", "seat", "players", "game_count", "pace", "time_limit", "state",
        "urls", "rules", "uecda",
    ]  # fmt: skip
    assert (doc["state"], doc["pace"], doc["rules"]) == ("waiting", None, "uecda")
    assert doc["players"][doc["seat"]] == "alice"
    assert [s.house for s in seats_of(place.id) if s.name != "alice"] == ["greedy"] * 4
    assert doc["urls"] == {
        "play": f"/places/{place.id}/",
        "live": f"/places/{place.id}/",
        "results": f"/places/{place.id}/results",
        "records": f"/places/{place.id}/records.jsonl",
    }
    code = JoinCode.objects.get(player__place=place, player__seat=doc["seat"]).code
    assert JoinCode.objects.filter(player__place=place).count() == 1  # the house needs none
    assert doc["uecda"] == {
        "join_code": code,
        "host": "play.example.org",
        "port": 42485,
        "client": f"./client -h play.example.org -p 42485 -n {code}",
        "bot": "python -m bots --transport uecda --server play.example.org:42485 "
        f"--join-code {code} --strategy greedy",
    }
    assert "place_id" not in client.session  # the session plays no 2011 place with it


def test_the_public_host_and_port_are_what_the_settings_say(client, alice, settings):
    settings.UECDA_PUBLIC_HOST, settings.UECDA_PUBLIC_PORT = "uecda.example.org", 4000
    doc = data(uecda(client))
    assert (doc["uecda"]["host"], doc["uecda"]["port"]) == ("uecda.example.org", 4000)
    settings.UECDA_PUBLIC_PORT, settings.UECDA_PORT = 0, 0
    error_json(errors.INVALID_PARAMETER, uecda(client))


def test_the_xml_answer_holds_the_code_too(client, alice):
    text = uecda(client, "/practice.xml").content.decode()
    code = JoinCode.objects.get().code
    assert f"<join-code>{code}</join-code>" in text and "<rules>uecda</rules>" in text
    assert "<socket>" not in text


@pytest.mark.parametrize(
    ("fields", "says"),
    [
        ({"rules": "chess"}, "rules: unknown rules 'chess': known rules are daihinmin-2011, uecda"),
        ({"rules": "uecda+13back"}, "rules: unknown variant token '13back'"),
        ({"bots": "greedy,greedy,greedy,nope"}, "no UECda house strategy 'nope'"),
        ({"games": "101"}, "games: 1 to 100"),
        ({"time_limit": "0.5"}, "time_limit: 1 to 600 seconds"),
    ],
)
def test_a_uecda_practice_has_the_same_bounds_and_bad_input_changes_nothing(
    client, alice, fields, says
):
    response = uecda(client, **fields)
    assert response.status_code == 400 and says in data(response)["error"]["message"]
    assert not Place.objects.exists() and not JoinCode.objects.exists()


def test_uecda_practices_count_against_the_user_s_practices(client, alice, settings):
    settings.PRACTICE_PLACES_PER_USER = 2
    assert uecda(client).status_code == uecda(client).status_code == 200
    error_json(errors.TOO_MANY_PRACTICES, uecda(client))


def test_uecda_practices_count_against_the_address_until_they_wait_too_long(
    client, alice, settings
):
    settings.PRACTICE_PLACES_PER_ADDRESS = 1
    get_user_model().objects.create_user("bob", password="bob-pw")
    assert uecda(client).status_code == 200  # alice's, waiting for her client
    bob = uecda(client, name="bob", password="bob-pw")
    error_json(errors.TOO_MANY_ADDRESS_PRACTICES, bob)
    settings.UECDA_PRACTICE_WAIT = 0  # alice's waited too long: aborted, not counted
    assert uecda(client, name="bob", password="bob-pw").status_code == 200
    assert sorted(Place.objects.values_list("state", flat=True)) == ["aborted", "waiting"]


def test_a_form_post_lands_on_the_place_page_which_shows_the_code_to_alice_alone(client, alice):
    client.force_login(alice)
    response = client.post("/practice", {"rules": "uecda", "games": "1", "time_limit": "60"})
    assert response.status_code == 302
    place = Place.objects.get()
    assert response["Location"] == f"/places/{place.id}/"
    code = JoinCode.objects.get().code
    page = client.get(response["Location"]).content.decode()
    assert code in page and f"./client -h testserver -p 42485 -n {code}" in page
    assert code not in Client().get(response["Location"]).content.decode()


def test_the_practice_form_offers_the_rules(client, alice):
    practice = next(
        f for f in forms(client.get("/login").content.decode()) if f.action == "/practice"
    )
    assert practice.method == "post"
    text = client.get("/login").content.decode()
    assert '<select id="id_practice_rules" name="rules">' in text
    assert '<option value="uecda">' in text


def test_the_2011_answer_is_byte_for_byte_what_it_was(client, alice):
    response = client.post(
        "/practice.json", {"name": "alice", "password": "alice-pw", "seed": "same", "games": "2"}
    )
    doc = data(response)
    p = doc["place"]
    players = json.dumps(doc["players"], separators=(",", ":"))
    assert response.content.decode() == (
        f'{{"player":"alice","place":{p},"seat":{doc["seat"]},"players":{players},'
        '"game_count":2,"pace":0.0,"time_limit":10.0,"state":"running",'
        f'"urls":{{"play":"/operations","live":"/places/{p}/","results":"/places/{p}/results",'
        f'"socket":"/ws/places/{p}/","records":"/places/{p}/records.jsonl"}}}}'
    )
    assert client.session["place_id"] == p
    assert not JoinCode.objects.exists()


def test_a_practice_of_a_variant_keeps_it_and_tells_the_client_its_rules(client, alice):
    """``rules=uecda+no-stairs``: the place's variant, the answer's rules and the project
    client's command line, which offers its strategy no stairs then."""
    doc = data(uecda(client, rules="uecda+no-stairs+11back"))
    place = Place.objects.get(pk=doc["place"])
    assert (place.rules, place.variant) == ("uecda", "no-stairs+11back")
    assert doc["rules"] == "uecda+no-stairs+11back"
    assert doc["uecda"]["bot"].endswith("--strategy greedy --rules uecda+no-stairs+11back")
    assert place.game_rules.eleven_back and not place.game_rules.stairs


def test_the_2011_rules_have_no_variants_for_a_practice(client, alice):
    response = uecda(client, rules="daihinmin-2011+11back")
    error_json(errors.INVALID_PARAMETER, response)
    assert "the daihinmin-2011 rules have no variants" in data(response)["error"]["message"]
    assert not Place.objects.exists()


@pytest.mark.parametrize("rules", ["uecda+reseat=²", "uecda+reseat=" + "9" * 5000])
def test_a_variant_number_that_is_no_ascii_number_is_invalid_parameter_not_500(
    client, alice, rules
):
    """``²`` passes ``str.isdigit`` but not ``int``; 5,000 nines pass Python's digit limit."""
    response = uecda(client, rules=rules)
    error_json(errors.INVALID_PARAMETER, response)
    assert "reseat= takes a number 0-99999" in data(response)["error"]["message"]
    assert not Place.objects.exists()


def test_alice_practises_against_stock_the_canonical_uecda_opponent(client, alice):
    response = uecda(client, bots="stock,stock,greedy,stock", seed="s")
    assert response.status_code == 200, response.content
    place = Place.objects.get(pk=data(response)["place"])
    houses = [s.house for s in seats_of(place.id) if s.name != "alice"]
    assert sorted(houses) == ["greedy", "stock", "stock", "stock"]
    assert "house-stock-3" in data(response)["players"]  # three users of one strategy


def test_stock_under_the_2011_rules_is_unknown_strategy_saying_where_it_plays(client, alice):
    response = client.post(
        "/practice.json",
        {"name": "alice", "password": "alice-pw", "bots": "greedy,greedy,greedy,stock"},
    )
    error_json(errors.UNKNOWN_STRATEGY, response)
    assert "(it plays the uecda rules: rules=uecda)" in data(response)["error"]["message"]
    assert not Place.objects.exists()
    assert not get_user_model().objects.filter(username__startswith="house-stock").exists()
