"""Staff endpoints (PROTOCOL.md §5): staff only, same-site, JSON errors."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from daifugo.cards import format_card, sorted_ids
from places import services
from places.models import Place
from places.reads import seats
from places.services import tokens
from places.wire import records

from .conftest import NAMES
from .drive import engine_state, play_out

ACTIONS = ("start", "next_turn", "stop")
READS = ("info.json", "players_card.json", "graph.json")


@pytest.fixture
def staff(db):
    return get_user_model().objects.create_user("root", password="root-pw", is_staff=True)


@pytest.fixture
def staff_client(client, staff):
    client.force_login(staff)
    return client


@pytest.fixture
def player_client(client, users):
    client.force_login(users[0])  # alice: a player, not staff
    return client


@pytest.fixture
def manual_place(make_place):
    return make_place(pace=None)


def url(place, what: str) -> str:
    return f"/places/{place.id if hasattr(place, 'id') else place}/{what}"


def error_code(response) -> str:
    return response.json()["error"]["code"]


# -- start and next_turn -------------------------------------------------------------


@pytest.mark.parametrize("path", ["start", "start.json"])
@pytest.mark.parametrize("method", ["post", "put"])
def test_staff_starts_a_place(staff_client, manual_place, path, method):
    response = getattr(staff_client, method)(url(manual_place, path))
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"place": manual_place.id, "state": "running"}
    assert Place.objects.get(pk=manual_place.id).state == Place.State.RUNNING


def test_starting_twice_is_the_services_conflict(staff_client, manual_place):
    staff_client.post(url(manual_place, "start"))
    response = staff_client.post(url(manual_place, "start.json"))
    assert response.status_code == 409
    assert response.json() == {
        "error": {"code": "ALREADY_STARTED", "message": "the place has already been started"}
    }


@pytest.mark.parametrize("path", ["next_turn", "next_turn.json"])
@pytest.mark.parametrize("method", ["post", "put"])
def test_staff_steps_a_manual_place(staff_client, manual_place, path, method):
    services.start_place(manual_place.id)
    seq = Place.objects.get(pk=manual_place.id).event_seq
    response = getattr(staff_client, method)(url(manual_place, path))
    assert response.status_code == 200
    assert response.json() == {"place": manual_place.id, "state": "running"}
    place = Place.objects.get(pk=manual_place.id)
    assert place.event_seq > seq
    assert place.events.order_by("-seq").first().operation == "start_game"


def test_next_turn_of_a_waiting_place_is_refused(staff_client, manual_place):
    response = staff_client.post(url(manual_place, "next_turn"))
    assert response.status_code == 409
    assert error_code(response) == "NO_TURN_OPEN"


def test_next_turn_while_a_player_must_act_is_refused(staff_client, manual_place):
    services.start_place(manual_place.id)
    while not engine_state(manual_place.id).needs_action:
        services.next_turn(manual_place.id)
    response = staff_client.post(url(manual_place, "next_turn.json"))
    assert response.status_code == 409
    assert error_code(response) == "TURN_OPEN"


@pytest.mark.parametrize("what", ACTIONS)
def test_actions_answer_get_with_405(staff_client, manual_place, what):
    response = staff_client.get(url(manual_place, what))
    assert response.status_code == 405
    assert response["Allow"] == "POST, PUT"
    assert error_code(response) == "METHOD_NOT_ALLOWED"
    assert Place.objects.get(pk=manual_place.id).state == Place.State.WAITING


@pytest.mark.parametrize("what", READS)
def test_reads_answer_post_with_405(staff_client, manual_place, what):
    response = staff_client.post(url(manual_place, what))
    assert response.status_code == 405
    assert response["Allow"] == "GET, HEAD"


# -- info, players_card, graph ----------------------------------------------------------------


def test_info_of_a_waiting_place(staff_client, manual_place):
    response = staff_client.get(url(manual_place, "info.json"))
    assert response.status_code == 200
    assert response.json() == {"game_no": 0, "place_info": "Nomal", "cards": []}


def test_info_shows_the_game_being_played_and_the_table_as_event_cards(staff_client, make_place):
    place = make_place(pace=0)
    services.start_place(place.id)
    state = engine_state(place.id)
    seat = state.game.turn
    weakest = sorted_ids(state.game.hands[seat])[0]
    services.post_cards(place.id, seats.seats_of(place.id)[seat].user_id, [format_card(weakest)])

    response = staff_client.get(url(place, "info.json"))
    assert response.status_code == 200
    body = response.json()
    assert list(body) == ["game_no", "place_info", "cards"]
    assert body["game_no"] == 1
    assert body["place_info"] == "Nomal"
    assert body["cards"] == [records.event_card(weakest)]
    assert list(body["cards"][0]["card"]) == [
        "created_at",
        "id",
        "joker",
        "mark",
        "number",
        "updated_at",
    ]


def test_players_card_lists_every_hand_in_seat_order(staff_client, make_place):
    place = make_place(pace=0)
    services.start_place(place.id)
    response = staff_client.get(url(place, "players_card.json"))
    assert response.status_code == 200
    body = response.json()
    state = engine_state(place.id)
    assert [p["name"] for p in body] == list(NAMES)
    for seat, entry in enumerate(body):
        assert list(entry) == ["name", "cards"]
        assert entry["cards"] == [records.api_card(c) for c in sorted_ids(state.game.hands[seat])]
    assert sum(len(e["cards"]) for e in body) == 54  # nobody has played yet


def test_players_card_of_a_waiting_place_has_empty_hands(staff_client, manual_place):
    body = staff_client.get(url(manual_place, "players_card.json")).json()
    assert body == [{"name": n, "cards": []} for n in NAMES]


def test_graph_of_a_waiting_place_is_zero_for_everyone(staff_client, manual_place):
    body = staff_client.get(url(manual_place, "graph.json")).json()
    assert body == [[n, 0] for n in NAMES]


def test_graph_after_a_whole_place_gives_10_points_a_game(staff_client, make_place):
    place = make_place(game_count=4, pace=0)
    services.start_place(place.id)
    play_out(place.id, seed=3)
    assert Place.objects.get(pk=place.id).state == Place.State.FINISHED

    response = staff_client.get(url(place, "graph.json"))
    assert response.status_code == 200
    body = response.json()
    assert [name for name, _ in body] == list(NAMES)
    assert all(isinstance(points, int) for _, points in body)
    assert sum(points for _, points in body) == 4 * 10
    assert [points for _, points in body] == list(engine_state(place.id).points)


# -- who may call ---------------------------------------------------------------------------------


@pytest.mark.parametrize("what", ACTIONS)
def test_a_player_who_is_not_staff_may_not_drive_a_place(player_client, manual_place, what):
    response = player_client.post(url(manual_place, what))
    assert response.status_code == 403
    assert error_code(response) == "STAFF_ONLY"
    assert Place.objects.get(pk=manual_place.id).state == Place.State.WAITING


@pytest.mark.parametrize("what", READS)
def test_a_player_who_is_not_staff_may_not_read_the_hands_or_the_table(
    player_client, manual_place, what
):
    response = player_client.get(url(manual_place, what))
    assert response.status_code == 403
    assert error_code(response) == "STAFF_ONLY"


@pytest.mark.parametrize("what", ACTIONS)
def test_anonymous_may_not_drive_a_place(client, manual_place, what):
    response = client.post(url(manual_place, what))
    assert response.status_code == 401
    assert error_code(response) == "NOT_LOGGED_IN"
    assert Place.objects.get(pk=manual_place.id).state == Place.State.WAITING


@pytest.mark.parametrize("what", READS)
def test_anonymous_may_not_read(client, manual_place, what):
    response = client.get(url(manual_place, what))
    assert response.status_code == 401
    assert error_code(response) == "NOT_LOGGED_IN"


def test_an_inactive_staff_member_is_refused(client, staff, manual_place):
    client.force_login(staff)
    staff.is_active = False
    staff.save()
    response = client.post(url(manual_place, "start"))
    assert response.status_code in (401, 403)
    assert Place.objects.get(pk=manual_place.id).state == Place.State.WAITING


# -- from another site ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "headers",
    [
        {"HTTP_ORIGIN": "http://evil.example"},
        {"HTTP_ORIGIN": "null"},
        {"HTTP_ORIGIN": "http://testserver.evil.example"},
        {"HTTP_REFERER": "http://evil.example/page.html"},
        {"HTTP_ORIGIN": "http://evil.example", "HTTP_REFERER": "http://testserver/admin/"},
    ],
)
def test_a_cross_site_start_is_refused_and_changes_nothing(staff_client, manual_place, headers):
    response = staff_client.post(url(manual_place, "start"), **headers)
    assert response.status_code == 403
    assert error_code(response) == "CROSS_SITE"
    place = Place.objects.get(pk=manual_place.id)
    assert place.state == Place.State.WAITING
    assert place.event_seq == 0


def test_a_cross_site_next_turn_is_refused_and_changes_nothing(staff_client, manual_place):
    services.start_place(manual_place.id)
    seq = Place.objects.get(pk=manual_place.id).event_seq
    response = staff_client.put(
        url(manual_place, "next_turn.json"), HTTP_ORIGIN="https://evil.example"
    )
    assert response.status_code == 403
    assert error_code(response) == "CROSS_SITE"
    assert Place.objects.get(pk=manual_place.id).event_seq == seq


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"HTTP_ORIGIN": "http://testserver"},
        {"HTTP_ORIGIN": "http://testserver:80"},
        {"HTTP_REFERER": "http://testserver/admin/places/place/"},
    ],
)
def test_a_script_or_a_same_site_page_may_start(staff_client, manual_place, headers):
    response = staff_client.post(url(manual_place, "start"), **headers)
    assert response.status_code == 200


def test_an_origin_trusted_in_the_settings_may_start(staff_client, manual_place, settings):
    settings.CSRF_TRUSTED_ORIGINS = ["https://admin.example"]
    response = staff_client.post(url(manual_place, "start"), HTTP_ORIGIN="https://admin.example")
    assert response.status_code == 200


def test_no_csrf_token_is_needed(client, staff, manual_place):
    from django.test import Client

    checked = Client(enforce_csrf_checks=True)
    checked.force_login(staff)
    assert checked.post(url(manual_place, "start.json")).status_code == 200


def test_a_cross_site_read_is_answered(staff_client, manual_place):
    # Reads change nothing, and a page on another site cannot read the answer
    # (no CORS headers), so only unsafe methods check the origin.
    response = staff_client.get(url(manual_place, "graph.json"), HTTP_ORIGIN="http://evil.example")
    assert response.status_code == 200


# -- unknown places ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "what"),
    [("post", "start"), ("put", "next_turn.json")] + [("get", r) for r in READS],
)
def test_an_unknown_place_is_404_json(staff_client, method, what):
    response = getattr(staff_client, method)(url(999, what))
    assert response.status_code == 404
    assert response.json() == {"error": {"code": "NOT_FOUND", "message": "no place 999"}}


def test_a_staff_token_drives_a_place_as_its_session_would(client, staff, users, manual_place):
    """Issue 44, item 13: a script of staff carries a token, not the password."""
    made = tokens.create(staff.pk, "script")
    auth = {"HTTP_AUTHORIZATION": f"Bearer {made.token}"}
    started = client.post(url(manual_place, "start.json"), **auth)
    assert started.status_code == 200 and started.json()["state"] == "running"
    assert client.get(url(manual_place, "info.json"), **auth).status_code == 200
    player = tokens.create(users[0].pk, "bot")  # alice's: a player, not staff
    refused = client.get(
        url(manual_place, "info.json"), HTTP_AUTHORIZATION=f"Bearer {player.token}"
    )
    assert refused.status_code == 403 and error_code(refused) == "STAFF_ONLY"
    wrong = client.get(url(manual_place, "info.json"), HTTP_AUTHORIZATION="Bearer dh_nonsense")
    assert wrong.status_code == 401 and error_code(wrong) == "INVALID_TOKEN"
    tokens.revoke(staff.pk, made.row.id)
    revoked = client.post(url(manual_place, "stop.json"), **auth)
    assert revoked.status_code == 401 and error_code(revoked) == "INVALID_TOKEN"
    assert Place.objects.get(pk=manual_place.id).state == Place.State.RUNNING
