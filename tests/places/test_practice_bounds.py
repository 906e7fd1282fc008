"""What one user can make the house play (issue 28, item 4): practices stop when their user
is gone (``places/reads/practice.py``); the request's limits are in tests/api/test_practice.py.
"""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model

from places import services
from places.models import Game, Place

from .drive import choose, engine_state

pytestmark = pytest.mark.django_db


@pytest.fixture
def alice(db):
    return get_user_model().objects.create_user("alice", password="alice-pw")


def time_out_alice(place_id: int) -> None:
    """Alice's open turn passes its deadline (the dealer's work, a second late)."""
    late = Place.objects.get(pk=place_id).turn_deadline + timedelta(seconds=1)
    services.run_due(place_id, now=late)


def answer(place_id: int, user_id: int, rng: random.Random) -> None:
    services.post_cards(place_id, user_id, choose(engine_state(place_id), rng))


def games_played(place_id: int) -> int:
    return Game.objects.filter(place_id=place_id, status=Game.FINISHED).count()


def test_a_practice_whose_user_never_answers_ends_after_three_silent_games(alice, settings):
    settings.PRACTICE_ABSENT_GAMES = 3
    done = services.start_practice(alice.id, game_count=10, time_limit=1.0)
    while Place.objects.get(pk=done.place.id).state == Place.State.RUNNING:
        time_out_alice(done.place.id)
    place = Place.objects.get(pk=done.place.id)
    assert games_played(place.id) == 3
    assert place.finished_at is not None


def test_a_practice_whose_user_answers_now_and_then_plays_every_game(alice, settings):
    settings.PRACTICE_ABSENT_GAMES = 2
    done = services.start_practice(alice.id, game_count=6, time_limit=1.0, seed="now-and-then")
    rng = random.Random(3)
    answered: set[int] = set()
    while Place.objects.get(pk=done.place.id).state == Place.State.RUNNING:
        game_no = engine_state(done.place.id).game.game_no
        if game_no % 2 and game_no not in answered:  # one move in every other game
            answer(done.place.id, alice.id, rng)
            answered.add(game_no)
        else:
            time_out_alice(done.place.id)
    assert games_played(done.place.id) == 6


def test_a_practice_of_a_user_made_inactive_ends_after_the_game_being_played(alice, settings):
    settings.PRACTICE_ABSENT_GAMES = 0  # only the account counts here
    done = services.start_practice(alice.id, game_count=5, time_limit=1.0, seed="inactive")
    rng = random.Random(4)
    answer(done.place.id, alice.id, rng)
    get_user_model().objects.filter(pk=alice.id).update(is_active=False)
    while Place.objects.get(pk=done.place.id).state == Place.State.RUNNING:
        time_out_alice(done.place.id)
    assert games_played(done.place.id) == 1


def test_a_place_that_is_no_practice_plays_on_without_its_players(alice, settings):
    settings.PRACTICE_ABSENT_GAMES = 1
    names = ["alice"]
    for i in range(4):
        services.house.make_house_user(f"h{i}", "greedy")
        names.append(f"h{i}")
    place = services.create_place("Staff's", names, game_count=3, pace=0.0, time_limit=1.0)
    services.start_place(place.id)
    while Place.objects.get(pk=place.id).state == Place.State.RUNNING:
        time_out_alice(place.id)
    assert games_played(place.id) == 3
