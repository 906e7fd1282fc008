"""The admin pages of places, as a superuser uses them."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.contrib.messages import get_messages

from places import services
from places.models import Game, HouseBot, JoinCode, Place, PlaceEvent, Rank, Turn
from places.reads import documents
from places.reads.seats import seats_of
from places.services import house

from .conftest import NAMES
from .drive import engine_state, play_out

CHANGELIST = "/admin/places/place/"
ADD = "/admin/places/place/add/"


def change_url(place) -> str:
    return f"/admin/places/place/{place.id}/change/"


def texts(response) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request)]


def place_form(title="Admin place", games=3, pace="", time_limit=10, seed="s", **extra) -> dict:
    data = {
        "title": title,
        "game_count": games,
        "pace": pace,
        "time_limit": time_limit,
        "seed": seed,
        "time_bank": 0,
        "rated": "on",
        "rules": "daihinmin-2011",
        "players-INITIAL_FORMS": 0,
        "players-MIN_NUM_FORMS": 0,
        "players-MAX_NUM_FORMS": 5,
    }
    data.update(extra)
    return data


def seats(users) -> dict:
    data = {"players-TOTAL_FORMS": 5}
    for i in range(5):
        data[f"players-{i}-user"] = users[i].id if i < len(users) and users[i] else ""
    return data


def existing_seats(place, users) -> dict:
    """The inline's POST data of a waiting place, seat i given to users[i]."""
    players = list(place.players.order_by("seat"))
    data = {
        "players-TOTAL_FORMS": len(players),
        "players-INITIAL_FORMS": len(players),
        "players-MIN_NUM_FORMS": 0,
        "players-MAX_NUM_FORMS": 5,
    }
    for i, (player, user) in enumerate(zip(players, users, strict=True)):
        data[f"players-{i}-id"] = player.id
        data[f"players-{i}-place"] = place.id
        data[f"players-{i}-user"] = user.id
    return data


@pytest.fixture
def more_users(db):
    model = get_user_model()
    return [
        model.objects.create_user(n, password="pw")
        for n in ("frank", "grace", "heidi", "ivan", "judy")
    ]


# -- the list ---------------------------------------------------------------------------


def test_the_changelist_shows_each_places_progress(admin_client, make_place):
    make_place(pace=None)
    played = make_place(game_count=2, pace=0)
    services.start_place(played.id)
    play_out(played.id)
    response = admin_client.get(CHANGELIST)
    assert response.status_code == 200
    body = response.content.decode()
    for column in ("Title", "State", "Games played", "Pace", "Time limit per turn", "Created"):
        assert column.lower() in body.lower()
    assert "0/3" in body and "manual" in body
    assert "2/2" in body and "0 s" in body


def test_the_changelist_searches_by_title_and_by_player(admin_client, make_place, more_users):
    first = make_place()
    other = services.create_place("Other table", [u.username for u in more_users], seed="x")

    by_title = admin_client.get(CHANGELIST, {"q": "Other"})
    assert list(by_title.context["cl"].result_list) == [other]
    by_player = admin_client.get(CHANGELIST, {"q": "charlie"})
    assert list(by_player.context["cl"].result_list) == [first]
    by_id = admin_client.get(CHANGELIST, {"q": str(other.id)})
    assert other in by_id.context["cl"].result_list


def test_the_changelist_filters_by_state(admin_client, make_place):
    waiting = make_place(pace=None)
    running = make_place(pace=None)
    services.start_place(running.id)
    response = admin_client.get(CHANGELIST, {"state__exact": "running"})
    assert list(response.context["cl"].result_list) == [running]
    response = admin_client.get(CHANGELIST, {"state__exact": "waiting"})
    assert list(response.context["cl"].result_list) == [waiting]


def test_the_changelist_filters_tournament_tables_apart(admin_client, make_place, more_users):
    alone = make_place(pace=None)
    names = list(Place.objects.get(pk=alone.id).players.values_list("user__username", flat=True))
    cup = services.create_tournament("Cup", names, game_count=1)
    tables = set(Place.objects.filter(tournament=cup))
    response = admin_client.get(CHANGELIST, {"in_tournament": "no"})
    assert list(response.context["cl"].result_list) == [alone]
    response = admin_client.get(CHANGELIST, {"in_tournament": "yes"})
    assert set(response.context["cl"].result_list) == tables and tables


# -- adding a place ------------------------------------------------------------------------------


def test_a_new_place_shows_five_empty_seats(admin_client, users):
    response = admin_client.get(ADD)
    assert response.status_code == 200
    (inline,) = response.context["inline_admin_formsets"]
    assert inline.formset.total_form_count() == 5


def test_adding_a_place_seats_its_players_in_row_order(admin_client, users):
    order = [users[i] for i in (2, 0, 4, 1, 3)]
    response = admin_client.post(ADD, {**place_form(pace="", time_limit=3), **seats(order)})
    assert response.status_code == 302, response.context and response.context["errors"]
    place = Place.objects.get()
    assert (place.title, place.game_count, place.pace, place.time_limit, place.state) == (
        "Admin place",
        3,
        None,
        3.0,
        Place.State.WAITING,
    )
    assert [p.user_id for p in place.players.order_by("seat")] == [u.id for u in order]
    assert response["Location"].endswith(CHANGELIST)


def test_a_uecda_place_added_gives_each_seat_a_join_code_which_staff_read_on_its_page(
    admin_client, users
):
    response = admin_client.post(ADD, {**place_form(rules="uecda"), **seats(users)})
    assert response.status_code == 302, response.context and response.context["errors"]
    place = Place.objects.get()
    assert (place.rules, place.pace) == ("uecda", None)
    codes = list(JoinCode.objects.filter(player__place=place).values_list("code", flat=True))
    assert len(codes) == 5
    page = admin_client.get(f"/places/{place.id}/").content.decode()
    assert all(code in page for code in codes)
    assert 'name="rules"' not in admin_client.get(change_url(place)).content.decode()


@pytest.mark.parametrize(
    ("picks", "why"),
    [
        ((0, 1, 2, 3, None), "exactly 5 players"),
        ((0, 1, 2, 3, 3), "only once in a place: dave"),
    ],
)
def test_a_place_needs_five_distinct_players(admin_client, users, picks, why):
    chosen = [users[i] if i is not None else None for i in picks]
    response = admin_client.post(ADD, {**place_form(), **seats(chosen)})
    assert response.status_code == 200
    assert why in response.content.decode()
    assert not Place.objects.exists()


def test_a_place_with_a_bad_title_or_game_count_is_refused(admin_client, users):
    response = admin_client.post(ADD, {**place_form(title="x" * 21, games=0), **seats(users)})
    assert response.status_code == 200
    assert set(response.context["adminform"].form.errors) == {"title", "game_count"}
    assert not Place.objects.exists()


# -- changing a place ------------------------------------------------------------------------------


def test_the_change_form_shows_the_players_in_seat_order(admin_client, make_place):
    place = make_place()
    response = admin_client.get(change_url(place))
    assert response.status_code == 200
    (inline,) = response.context["inline_admin_formsets"]
    assert [f.instance.user.username for f in inline.formset.initial_forms] == list(NAMES)
    assert inline.formset.total_form_count() == 5  # no empty row: all seats taken
    assert inline.has_change_permission
    body = response.content.decode()
    assert f"/admin/places/place/{place.id}/start/" in body


def test_two_players_of_a_waiting_place_swap_seats(admin_client, make_place, users):
    place = make_place()
    swapped = [users[1], users[0], *users[2:]]
    data = {**place_form(title="Swapped"), **existing_seats(place, swapped)}
    response = admin_client.post(change_url(place), data)
    assert response.status_code == 302, response.context and response.context["errors"]
    place.refresh_from_db()
    assert place.title == "Swapped"
    assert [p.user.username for p in place.players.order_by("seat")] == [
        "bob",
        "alice",
        "charlie",
        "dave",
        "eve",
    ]


def test_a_player_of_a_waiting_place_is_replaced(admin_client, make_place, users, more_users):
    place = make_place()
    data = {**place_form(), **existing_seats(place, [*users[:4], more_users[0]])}
    assert admin_client.post(change_url(place), data).status_code == 302
    assert [p.user.username for p in place.players.order_by("seat")][-1] == "frank"


def test_a_started_place_shows_its_players_read_only(admin_client, make_place):
    place = make_place(pace=None)
    services.start_place(place.id)
    response = admin_client.get(change_url(place))
    assert response.status_code == 200
    (inline,) = response.context["inline_admin_formsets"]
    assert not inline.has_change_permission
    assert not inline.has_add_permission
    assert inline.formset.total_form_count() == 5
    readonly = response.context["adminform"].readonly_fields
    assert "game_count" in readonly and "seed" in readonly
    assert f"/admin/places/place/{place.id}/next_step/" in response.content.decode()


def test_saving_a_started_place_changes_only_its_title_pace_and_time_limit(
    admin_client, make_place, users, more_users
):
    place = make_place(pace=5)
    services.start_place(place.id)
    services.next_turn(place.id)
    before = Place.objects.get(pk=place.id)
    data = {
        **place_form(title="Renamed", games=99, pace="1.5", time_limit=4, seed="other"),
        **existing_seats(place, [*users[:4], more_users[0]]),
    }
    response = admin_client.post(change_url(place), data)
    assert response.status_code == 302
    after = Place.objects.get(pk=place.id)
    assert (after.title, after.pace, after.time_limit) == ("Renamed", 1.5, 4.0)
    assert (after.game_count, after.seed) == (before.game_count, before.seed)
    assert after.engine_state == before.engine_state
    assert after.event_seq == before.event_seq
    assert [p.user.username for p in after.players.order_by("seat")] == list(NAMES)


def test_a_paused_place_given_a_pace_resumes_at_once(admin_client, make_place, users):
    place = make_place(pace=None)
    services.start_place(place.id)  # start_place, then it waits for next_turn
    data = {**place_form(pace="0"), **existing_seats(place, users)}
    response = admin_client.post(change_url(place), data, follow=True)
    assert f"{Place.objects.get(pk=place.id)}: resumed at a pace of 0 s." in texts(response)
    assert engine_state(place.id).needs_action  # at pace 0: on to the first player's turn
    assert place.events.filter(operation="start_game").exists()


def test_a_re_seated_place_starts_with_its_new_players(admin_client, make_place, users, more_users):
    place = make_place(pace=None)
    documents.place_info(place.id)  # a bot polls before the start: the seats get cached
    data = {**place_form(), **existing_seats(place, [*users[:4], more_users[0]])}
    assert admin_client.post(change_url(place), data).status_code == 302
    assert [s.name for s in seats_of(place.id)][-1] == "frank"


# -- actions and buttons ----------------------------------------------------------------------------


def act(admin_client, action: str, *places):
    return admin_client.post(
        CHANGELIST,
        {"action": action, "_selected_action": [p.id for p in places]},
        follow=True,
    )


def test_the_start_action_starts_the_selected_places(admin_client, make_place):
    one, two = make_place(pace=None), make_place(pace=None)
    response = act(admin_client, "start", one, two)
    assert response.status_code == 200
    assert {p.state for p in Place.objects.all()} == {Place.State.RUNNING}
    assert any(m.startswith("Started:") for m in texts(response))


def test_the_start_action_reports_a_place_already_started(admin_client, make_place):
    started, waiting = make_place(pace=None), make_place(pace=None)
    services.start_place(started.id)
    response = act(admin_client, "start", started, waiting)
    messages = texts(response)
    assert f"{started}: the place has already been started" in messages
    assert f"Started: {Place.objects.get(pk=waiting.id)}." in messages
    assert Place.objects.get(pk=waiting.id).state == Place.State.RUNNING


def test_the_next_step_action_steps_a_manual_place(admin_client, make_place):
    place = make_place(pace=None)
    services.start_place(place.id)
    seq = Place.objects.get(pk=place.id).event_seq
    response = act(admin_client, "next_step", place)
    assert any(m.startswith("Stepped:") for m in texts(response))
    assert Place.objects.get(pk=place.id).event_seq > seq


def test_the_next_step_action_reports_a_waiting_place(admin_client, make_place):
    place = make_place(pace=None)
    response = act(admin_client, "next_step", place)
    assert f"{place}: the place is not running" in texts(response)


def test_the_start_button_starts_the_place(admin_client, make_place):
    place = make_place(pace=None)
    response = admin_client.post(f"/admin/places/place/{place.id}/start/")
    assert response.status_code == 302
    assert response["Location"] == change_url(place)
    assert Place.objects.get(pk=place.id).state == Place.State.RUNNING


def test_the_start_button_wants_a_post(admin_client, make_place):
    place = make_place(pace=None)
    assert admin_client.get(f"/admin/places/place/{place.id}/start/").status_code == 405
    assert Place.objects.get(pk=place.id).state == Place.State.WAITING


def test_the_buttons_are_for_staff_only(client, users, make_place):
    place = make_place(pace=None)
    client.force_login(users[0])
    response = client.post(f"/admin/places/place/{place.id}/start/")
    assert response.status_code == 302 and "/admin/login/" in response["Location"]
    assert Place.objects.get(pk=place.id).state == Place.State.WAITING


# -- the record -----------------------------------------------------------------------------------


@pytest.fixture
def played(make_place):
    place = make_place(game_count=2, pace=0)
    services.start_place(place.id)
    play_out(place.id)
    return place


def test_a_game_shows_its_ranks_hands_and_turns_read_only(admin_client, played):
    game = Game.objects.filter(place=played).first()
    response = admin_client.get(f"/admin/places/game/{game.id}/change/")
    assert response.status_code == 200
    inlines = response.context["inline_admin_formsets"]
    assert [i.formset.model.__name__ for i in inlines] == ["Rank", "Hand", "Turn"]
    assert all(not i.has_change_permission and not i.has_add_permission for i in inlines)
    assert inlines[2].formset.total_form_count() == game.turns.count()


def test_the_record_lists_render_and_search(admin_client, played):
    for path in ("game", "turn", "rank", "placeevent"):
        response = admin_client.get(f"/admin/places/{path}/", {"q": played.title})
        assert response.status_code == 200, path
        assert response.context["cl"].result_count > 0, path
    assert admin_client.get("/admin/places/turn/", {"q": "alice"}).context["cl"].result_count > 0


def test_events_filter_by_operation_and_by_place(admin_client, played, make_place):
    other = make_place(pace=None)
    services.start_place(other.id)
    response = admin_client.get("/admin/places/placeevent/", {"operation": "end_game"})
    assert {e.operation for e in response.context["cl"].result_list} == {"end_game"}
    assert response.context["cl"].result_count == 2
    response = admin_client.get("/admin/places/placeevent/", {"place__id__exact": other.id})
    assert {e.place_id for e in response.context["cl"].result_list} == {other.id}
    event = PlaceEvent.objects.filter(place=played).first()
    assert admin_client.get(f"/admin/places/placeevent/{event.id}/change/").status_code == 200


def test_the_place_links_to_its_games_and_events(admin_client, played):
    body = admin_client.get(change_url(played)).content.decode()
    assert f"/admin/places/game/?place__id__exact={played.id}" in body
    response = admin_client.get("/admin/places/game/", {"place__id__exact": played.id})
    assert response.context["cl"].result_count == 2


@pytest.mark.parametrize(
    ("model", "path"), [(Game, "game"), (Turn, "turn"), (Rank, "rank"), (PlaceEvent, "placeevent")]
)
def test_records_cannot_be_added_changed_or_deleted(admin_client, played, model, path):
    row = model.objects.first()
    assert admin_client.get(f"/admin/places/{path}/add/").status_code == 403
    assert (
        admin_client.post(f"/admin/places/{path}/{row.id}/delete/", {"post": "yes"}).status_code
        == 403
    )
    assert model.objects.filter(pk=row.id).exists()
    page = admin_client.get(f"/admin/places/{path}/{row.id}/change/")
    assert page.status_code == 200
    assert not page.context["has_change_permission"]


def test_a_played_place_cannot_be_deleted_from_the_admin(admin_client, played):
    response = admin_client.post(f"/admin/places/place/{played.id}/delete/", {"post": "yes"})
    assert response.status_code in (200, 403)
    assert Place.objects.filter(pk=played.id).exists()


def test_a_waiting_place_can_be_deleted(admin_client, make_place):
    place = make_place()
    response = admin_client.post(f"/admin/places/place/{place.id}/delete/", {"post": "yes"})
    assert response.status_code == 302
    assert not Place.objects.filter(pk=place.id).exists()


# -- house bots ---------------------------------------------------------------------------------


def test_staff_make_a_user_a_house_bot_and_it_loses_its_password(admin_client, users):
    response = admin_client.post(
        "/admin/places/housebot/add/", {"user": users[0].id, "strategy": "shedder"}
    )
    assert response.status_code == 302
    users[0].refresh_from_db()
    assert not users[0].has_usable_password()
    assert HouseBot.objects.get(user=users[0]).strategy == "shedder"
    listing = admin_client.get("/admin/places/housebot/")
    assert listing.status_code == 200 and b"shedder" in listing.content


def test_the_house_bot_form_offers_only_the_sample_strategies(admin_client, users):
    response = admin_client.post(
        "/admin/places/housebot/add/", {"user": users[0].id, "strategy": "mybot:play"}
    )
    assert response.status_code == 200  # the form again, with its error
    assert not HouseBot.objects.exists()
    users[0].refresh_from_db()
    assert users[0].has_usable_password()


def test_staff_change_a_house_bots_strategy_and_release_it(admin_client, users):
    house.make_house_user("alice", "random")
    url = f"/admin/places/housebot/{users[0].id}/"
    assert admin_client.post(url + "change/", {"strategy": "greedy"}).status_code == 302
    assert HouseBot.objects.get(user=users[0]).strategy == "greedy"
    assert admin_client.post(url + "delete/", {"post": "yes"}).status_code == 302
    assert not HouseBot.objects.exists()
