"""Profiles (``places/reads/profiles.py``, ``/users/NAME``): figures of finished games.

The expectations are computed from the game records (what was written, the
verdicts, the ranks) with the rules' plain words, not with the code under test:
a revolution is a play of four or more cards of one number (jokers aside), an
8-cut a play holding an 8.
"""

from __future__ import annotations

import json
import random
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model

from places import services
from places.models import Place, Turn
from places.reads import records
from places.reads.profiles import percentile, profile
from places.services import house
from places.services.profiles import recount

from .drive import choose, engine_state

pytestmark = pytest.mark.django_db

HOUSE = ["greedy", "shedder", "random", "greedy"]


def place_with_alice(games: int = 4, seed: str = "profile") -> Place:
    """Alice (over the wire) and four house bots at pace 0; alice misses once, times out once."""
    get_user_model().objects.create_user("alice", password="alice-pw")
    names = ["alice"]
    for i, strategy in enumerate(HOUSE):
        house.make_house_user(f"h{i}", strategy)
        names.append(f"h{i}")
    place = services.create_place("Profiled", names, game_count=games, pace=0.0, seed=seed)
    services.start_place(place.id)
    alice = get_user_model().objects.get(username="alice").id
    rng = random.Random(1)
    missed = timed_out = False
    while Place.objects.get(pk=place.id).state == Place.State.RUNNING:
        state = engine_state(place.id)
        assert state.needs_action and state.game.turn == 0  # the house plays the rest
        if not missed and state.game.game_no == 1:
            services.post_cards(place.id, alice, ["2-3", "2-3"])  # a duplicate: a miss
            missed = True
        elif not timed_out and state.game.game_no == 2:
            late = Place.objects.get(pk=place.id).turn_deadline + timedelta(seconds=1)
            services.run_due(place.id, now=late)
            timed_out = True
        else:
            services.post_cards(place.id, alice, choose(state, rng))
    return place


def is_revolution(written: list[str]) -> bool:
    numbers = {c.split("-")[1] for c in written if c.lower() != "joker"}
    return len(written) >= 4 and len(numbers) == 1


def has_eight(written: list[str]) -> bool:
    return any(c.lower() != "joker" and c.split("-")[1] == "8" for c in written)


def test_the_figures_are_those_of_the_records():
    place = place_with_alice()
    recs = [records.game_record(place.id, n) for n in range(1, 5)]
    found = profile("alice")
    assert found.games == 4 and found.house is None
    ranks = [r["ranks"][0] for r in recs]
    assert found.rank_counts == [ranks.count(k) for k in range(1, 6)]
    assert found.points == sum(r["points"][0] for r in recs)
    assert found.points_per_game == round(found.points / 4, 4)
    mine = [a for r in recs for a in r["actions"] if a["seat"] == 0]
    plays = [a for a in mine if a["verdict"] == "play"]
    assert found.turns == len(mine)
    assert found.plays == len(plays)
    assert found.passes == sum(a["verdict"] == "pass" for a in mine)
    assert found.timeouts == 1
    assert found.misses == {"DUPLICATE_CARD": 1}
    assert found.cards_played == sum(len(a["cards"]) for a in plays)
    assert found.revolutions == sum(is_revolution(a["cards"]) for a in plays)
    assert found.eight_cuts == sum(has_eight(a["cards"]) for a in plays)
    assert [(p.id, p.games, p.points) for p in found.places] == [(place.id, 4, found.points)]


def test_head_to_head_counts_the_games_together_and_who_finished_above():
    place = place_with_alice()
    recs = [records.game_record(place.id, n) for n in range(1, 5)]
    found = profile("alice")
    assert [o.name for o in found.opponents] == sorted(f"h{i}" for i in range(4))
    for o in found.opponents:
        seat = next(p["seat"] for p in recs[0]["players"] if p["name"] == o.name)
        assert o.games == 4
        assert o.above == sum(r["ranks"][0] < r["ranks"][seat] for r in recs)
        assert o.their_points == sum(r["points"][seat] for r in recs)


def test_a_house_bot_s_profile_names_its_strategy():
    place_with_alice(games=1)
    found = profile("h1")
    assert found.house == "shedder" and found.games == 1


def test_think_time_is_over_the_answered_turns_and_its_99th_percentile():
    place = place_with_alice(games=2)
    answered = Turn.objects.filter(
        player__user__username="alice", game__place=place, outcome__in=["play", "pass", "miss"]
    ).order_by("game__no", "no")
    for i, turn in enumerate(answered, 1):  # 10 ms, 20 ms, … by hand
        Turn.objects.filter(pk=turn.pk).update(
            settled_at=turn.opened_at + timedelta(milliseconds=10 * i)
        )
    recount()  # the records were edited behind the server's back: added up again from them
    n = answered.count()
    found = profile("alice")
    assert found.think_ms_mean == pytest.approx(10 * (n + 1) / 2, abs=0.1)
    assert found.think_ms_p99 == pytest.approx(percentile([10.0 * i for i in range(1, n + 1)], 99))


def test_the_nearest_rank_percentile():
    assert percentile(list(range(1, 101)), 99) == 99
    assert percentile([5.0], 99) == 5.0
    assert percentile([], 99) is None


def test_a_user_who_never_played_has_no_profile():
    get_user_model().objects.create_user("newcomer", password="pw")
    assert profile("newcomer") is None  # only players have one (tests/places/test_accounts.py)


def test_a_player_seated_before_a_game_has_an_empty_profile():
    get_user_model().objects.create_user("alice", password="alice-pw")
    names = ["alice"]
    for i, strategy in enumerate(HOUSE):
        house.make_house_user(f"h{i}", strategy)
        names.append(f"h{i}")
    services.create_place("Waiting", names, game_count=3)
    found = profile("alice")
    assert found.games == 0 and found.think_ms_mean is None and found.points_per_game is None
    assert [p.state for p in found.places] == ["waiting"]


def test_a_game_in_play_does_not_count():
    get_user_model().objects.create_user("alice", password="alice-pw")
    names = ["alice"]
    for i, strategy in enumerate(HOUSE):
        house.make_house_user(f"h{i}", strategy)
        names.append(f"h{i}")
    place = services.create_place("Running", names, game_count=3, pace=0.0, seed="run")
    services.start_place(place.id)  # alice's first turn is open: game 1 is being played
    found = profile("alice")
    assert found.games == 0 and found.turns == 0
    assert [(p.id, p.state, p.games) for p in found.places] == [(place.id, "running", 0)]


def test_no_such_user_has_no_profile():
    assert profile("nobody") is None


# -- the routes --------------------------------------------------------------------------------


def test_the_profile_page_shows_the_figures_and_links_the_places(client):
    place = place_with_alice(games=2)
    response = client.get("/users/alice")
    assert response.status_code == 200
    page = response.content.decode()
    assert f'href="/places/{place.id}/results"' in page
    assert 'href="/users/h0"' in page  # head to head links the opponents
    assert "DUPLICATE_CARD" in page


def test_each_miss_links_the_games_where_it_happened(client):
    """The misses by code were a dead end: each now opens the games search at them."""
    place_with_alice(games=2)
    page = client.get("/users/alice").content.decode()
    link = "/games?player=alice&amp;has=miss&amp;miss=DUPLICATE_CARD"
    assert f'href="{link}"' in page
    found = json.loads(
        client.get(link.replace("&amp;", "&").replace("/games", "/games.json")).content
    )
    assert [g["game"] for g in found["games"]] == [1]  # alice's duplicate, in game 1


def test_a_profile_with_a_slash_moves_to_its_address(client):
    place_with_alice(games=1)
    response = client.get("/users/alice/?lang=ja")
    assert response.status_code == 301 and response["Location"] == "/users/alice?lang=ja"
    assert client.get("/users/alice/").status_code == 301


def test_the_json_is_the_profile_s(client):
    place_with_alice(games=2)
    response = client.get("/users/alice.json")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert json.loads(response.content) == json.loads(json.dumps(profile("alice").as_dict()))


def test_unknown_users_are_404(client):
    assert client.get("/users/nobody").status_code == 404
    response = client.get("/users/nobody.json")
    assert response.status_code == 404
    assert json.loads(response.content)["error"]["code"] == "NOT_FOUND"


def test_a_profile_only_reads(client):
    get_user_model().objects.create_user("alice", password="pw")
    assert client.post("/users/alice").status_code == 405


def test_pages_that_name_players_link_their_profiles(client):
    place = place_with_alice(games=1)
    results = client.get(f"/places/{place.id}/results").content.decode()
    home = client.get("/").content.decode()
    for page in (results, home):
        assert 'href="/users/alice"' in page


def test_every_player_s_revolutions_and_8_cuts_are_the_records():
    place = place_with_alice(games=12)
    recs = [records.game_record(place.id, n) for n in range(1, 13)]
    seats = {p["name"]: p["seat"] for p in recs[0]["players"]}
    total = 0
    for name, seat in seats.items():
        plays = [
            a["cards"]
            for r in recs
            for a in r["actions"]
            if a["seat"] == seat and a["verdict"] == "play"
        ]
        found = profile(name)
        assert found.revolutions == sum(map(is_revolution, plays))
        assert found.eight_cuts == sum(map(has_eight, plays))
        total += found.revolutions
    assert total > 0  # the example holds revolutions to count


def test_the_profile_page_speaks_japanese(client):
    place_with_alice(games=1)
    page = client.get("/users/h1", HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    assert "対戦成績" in page and "ハウスボット · shedder" in page
