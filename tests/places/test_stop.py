"""Stopping a place (``places.services.lifecycle.stop_place``): the command, the admin,
the staff endpoint; the game in play dropped (not rated, not counted, no record), the
place ``aborted``, the bots told ``end_place`` (issue 27, item 3)."""

from __future__ import annotations

import json
import random
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from daifugo import place as engine
from places import dealer, errors, services
from places.models import Game, Hand, Place, PlaceEvent, Rank, Rating, RatingChange, Turn
from places.reads import documents, records, snapshot
from places.reads.seats import seats_of

from .drive import choose, engine_state, play_out
from .test_admin import act, change_url, texts

pytestmark = pytest.mark.django_db


def in_game_two(make_place, **kwargs) -> Place:
    """A rated place at pace 0 whose game 1 is over and game 2 under way (a turn open)."""
    place = make_place(game_count=3, **kwargs)
    services.start_place(place.id)
    rng = random.Random(2)
    user_ids = [s.user_id for s in seats_of(place.id)]
    while True:
        state = engine_state(place.id)
        if state.game_no == 2 and state.game.turn_no >= 3:
            return Place.objects.get(pk=place.id)
        services.post_cards(place.id, user_ids[state.game.turn], choose(state, rng))


def test_stopping_drops_the_game_in_play_and_keeps_the_finished_ones(make_place):
    place = in_game_two(make_place)
    game_two = Game.objects.get(place=place, no=2)
    assert Turn.objects.filter(game=game_two).exists()
    services.stop_place(place.id)
    place.refresh_from_db()
    assert place.state == Place.State.ABORTED and place.finished_at is not None
    assert (place.next_step_at, place.turn_deadline) == (None, None)
    # game 2: its row, hands, turns and ranks gone; game 1 kept
    assert list(Game.objects.filter(place=place).values_list("no", "status")) == [
        (1, Game.FINISHED)
    ]
    for model in (Turn, Hand, Rank):
        assert not model.objects.filter(game_id=game_two.id).exists()
    # rated once (game 1), counted once, one record
    assert {r.games for r in Rating.objects.all()} == {1}
    assert RatingChange.objects.count() == 5
    assert records.place_head(place.id).finished == 1
    assert engine_state(place.id).phase == engine.OVER and engine_state(place.id).game_no == 1
    # the players hear the place end, as the last event
    last = PlaceEvent.objects.filter(place=place).order_by("-seq").first()
    assert last.operation == "end_place" and json.loads(last.message)["place"] == place.id


def test_get_place_info_says_finished_and_the_new_documents_aborted(make_place):
    place = in_game_two(make_place)
    services.stop_place(place.id)
    info = documents.place_info(place.id)
    assert info["state"] == "finished"  # one of the three values it was published with
    assert (info["game_no"], info["turn_player"], info["place_cards"]) == (1, None, [])
    assert snapshot.snapshot(place.id, staff=False)["place"]["state"] == "aborted"


def test_nothing_moves_an_aborted_place(make_place):
    place = in_game_two(make_place)
    services.stop_place(place.id)
    seq = Place.objects.get(pk=place.id).event_seq
    user_ids = [s.user_id for s in seats_of(place.id)]
    with pytest.raises(errors.Refused) as e:
        services.post_cards(place.id, user_ids[0], [])
    assert e.value.code == errors.NO_TURN_OPEN
    late = timezone.now() + timedelta(hours=1)
    assert not services.run_due(place.id, now=late)  # it waited for the lock while staff stopped
    assert dealer.tick() == 0
    after = Place.objects.get(pk=place.id)
    assert (after.state, after.event_seq) == (Place.State.ABORTED, seq)


def test_a_waiting_place_stops_before_any_game(make_place):
    place = make_place()
    services.stop_place(place.id)
    place.refresh_from_db()
    assert place.state == Place.State.ABORTED
    assert not Game.objects.filter(place=place).exists()
    assert list(PlaceEvent.objects.filter(place=place).values_list("operation", flat=True)) == [
        "end_place"
    ]
    with pytest.raises(errors.Refused) as e:
        services.start_place(place.id)
    assert e.value.code == errors.ALREADY_STARTED


def test_a_place_over_cannot_be_stopped(make_place):
    finished = make_place(game_count=1, pace=None)
    services.start_place(finished.id)
    play_out(finished.id)
    aborted = make_place()
    services.stop_place(aborted.id)
    for place in (finished, aborted):
        seq = Place.objects.get(pk=place.id).event_seq
        with pytest.raises(errors.Refused) as e:
            services.stop_place(place.id)
        assert e.value.code == errors.ALREADY_OVER
        assert Place.objects.get(pk=place.id).event_seq == seq
    assert Place.objects.get(pk=finished.id).state == Place.State.FINISHED


def test_another_process_asks_and_the_dealer_stops(make_place):
    place = in_game_two(make_place)
    services.schedule_stop(place.id)
    place.refresh_from_db()
    assert place.state == Place.State.RUNNING and place.stop_requested
    dealer.claim()
    assert place.id in dealer.due_places()  # at once, though a turn is open
    dealer.tick()
    place.refresh_from_db()
    assert place.state == Place.State.ABORTED and not place.stop_requested
    assert not Game.objects.filter(place=place, no=2).exists()


# -- the command, the admin, the staff endpoint ---------------------------------------------------


def run(*args: str) -> str:
    out = StringIO()
    call_command(*args, stdout=out, stderr=StringIO())
    return out.getvalue().strip()


def test_stop_place_command(make_place):
    running = in_game_two(make_place)
    assert run("stop_place", str(running.id)) == f"place {running.id} stopping"
    dealer.tick()
    assert Place.objects.get(pk=running.id).state == Place.State.ABORTED
    waiting = make_place()
    assert run("stop_place", str(waiting.id)) == f"place {waiting.id} aborted"
    with pytest.raises(CommandError) as e:
        run("stop_place", str(waiting.id))
    assert str(e.value) == f"place {waiting.id} is already aborted"
    with pytest.raises(CommandError) as e:
        run("stop_place", "999999")
    assert str(e.value) == "no place 999999"


def test_the_admin_stop_action_and_button(admin_client, make_place):
    one, two = in_game_two(make_place), make_place()
    response = act(admin_client, "stop", one, two)
    assert any(m.startswith("Stopped:") for m in texts(response))
    assert {p.state for p in Place.objects.all()} == {Place.State.ABORTED}
    three = make_place()
    form = admin_client.get(change_url(three)).content.decode()
    assert f'action="/admin/places/place/{three.id}/stop/"' in form
    assert admin_client.get(f"/admin/places/place/{three.id}/stop/").status_code == 405
    response = admin_client.post(f"/admin/places/place/{three.id}/stop/")
    assert response.status_code == 302 and response["Location"] == change_url(three)
    assert Place.objects.get(pk=three.id).state == Place.State.ABORTED
    response = admin_client.post(f"/admin/places/place/{three.id}/stop/", follow=True)
    assert f"{Place.objects.get(pk=three.id)}: place {three.id} is already aborted" in texts(
        response
    )


def test_the_staff_endpoint_stops_a_place(client, make_place, django_user_model):
    staff = django_user_model.objects.create_user("root", password="pw", is_staff=True)
    client.force_login(staff)
    place = in_game_two(make_place)
    response = client.post(f"/places/{place.id}/stop.json")
    assert response.status_code == 200
    assert response.json() == {"place": place.id, "state": "aborted"}
    response = client.post(f"/places/{place.id}/stop")
    assert response.status_code == 409 and response.json()["error"]["code"] == "ALREADY_OVER"
    page = client.get(f"/places/{place.id}/").content.decode()
    assert 'id="btn-stop"' in page and f"/places/{place.id}/stop.json" in page


def test_aborted_places_are_listed_with_the_finished_ones(client, make_place):
    place = make_place()
    services.stop_place(place.id)
    page = client.get("/").content.decode()
    assert f'data-place="{place.id}"' in page and "aborted" in page


def test_an_aborted_practice_no_longer_counts_as_unfinished(users, settings):
    settings.PRACTICE_PLACES_PER_USER = 1
    first = services.start_practice(users[0].pk, pace=1.0).place
    with pytest.raises(errors.Refused) as e:
        services.start_practice(users[0].pk)
    assert e.value.code == errors.TOO_MANY_PRACTICES
    services.stop_place(first.id)
    assert services.start_practice(users[0].pk).place.state == Place.State.RUNNING


def test_a_place_between_two_games_stops_after_the_first(make_place):
    place = make_place(game_count=3, pace=None)
    services.start_place(place.id)
    rng = random.Random(3)
    user_ids = [s.user_id for s in seats_of(place.id)]
    while (
        engine_state(place.id).phase != engine.BETWEEN_GAMES or not engine_state(place.id).game_no
    ):
        state = engine_state(place.id)
        if state.needs_action:
            services.post_cards(place.id, user_ids[state.game.turn], choose(state, rng))
        else:
            services.next_turn(place.id)
    services.stop_place(place.id)
    place.refresh_from_db()
    assert place.state == Place.State.ABORTED
    assert list(Game.objects.filter(place=place).values_list("no", "status")) == [
        (1, Game.FINISHED)
    ]


def test_the_results_page_of_an_aborted_place_says_so(client, make_place):
    place = in_game_two(make_place)
    services.stop_place(place.id)
    page = client.get(f"/places/{place.id}/results").content.decode()
    assert "Staff stopped this place" in page and "Final table" in page
    japanese = client.get(f"/places/{place.id}/results", HTTP_ACCEPT_LANGUAGE="ja")
    assert "スタッフがこの場を中止しました" in japanese.content.decode()
