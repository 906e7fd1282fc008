"""A post is safe to retry: with an ``idempotency_key``, a post that repeats the key of the
seat's last keyed post is answered as then and applied at most once (issue 28 item 9).

The danger without a key: a bot posts, the move is applied, the answer is lost (a 500 from
a proxy, a dropped connection); the trick comes back round to the bot before it retries,
and the retry is played as a new move: cards it no longer holds, a miss that loses it the
game.
"""

from __future__ import annotations

import json

import pytest
from asgiref.sync import sync_to_async

from places import services
from places.models import Place, Turn
from places.reads import seats
from places.reads.position import Position
from places.services import moves
from tests.api.helpers import data, error_json, snapshot
from tests.api.test_post_cards import a_safe_single, post_json, user_id
from tests.api.test_websocket_acting import ask, open_socket

pytestmark = pytest.mark.django_db

FOLLOWERS = ("bob", "charlie", "dave", "eve")


def everyone_else_passes(place) -> None:
    """Alice played: the four others pass, the trick ends and Alice leads again."""
    for name in FOLLOWERS:
        assert services.post_cards(place.id, user_id(place, name), []).result == "pass"


def alice_turns(place) -> list[Turn]:
    return list(Turn.objects.filter(game__place=place, player__user__username="alice"))


def test_a_retry_without_a_key_after_the_trick_came_back_is_played_again_as_a_miss(alice, place):
    """What the key prevents: the same post, sent twice, is two moves."""
    card = a_safe_single(place)
    assert data(post_json(alice, card_0=card))["result"] == "play"
    everyone_else_passes(place)
    assert data(post_json(alice, card_0=card))["result"] == "miss"  # she no longer holds it


def test_a_post_retried_after_its_first_attempt_was_applied_is_applied_once(alice, place):
    card = a_safe_single(place)
    first = post_json(alice, card_0=card, idempotency_key="move-1")
    assert data(first) == {"result": "play", "reason": None, "reset_place": False}
    everyone_else_passes(place)  # Alice's turn is open again: a new post would be played
    before = snapshot(place.id)
    retried = post_json(alice, card_0=card, idempotency_key="move-1")
    assert retried.status_code == 200
    assert retried.content == first.content  # the first attempt's answer, byte for byte
    assert snapshot(place.id) == before  # nothing played, no event
    assert [t.outcome for t in alice_turns(place)] == ["play", ""]  # her new turn still open
    # her next move, with a key of its own, is played
    again = post_json(alice, card_0=a_safe_single(place), idempotency_key="move-2")
    assert data(again)["result"] == "play"
    assert [t.outcome for t in alice_turns(place)] == ["play", "play"]


def test_a_retry_of_a_move_made_before_the_last_is_still_recognised(alice, place):
    """A bot may make its next move while an older post still retries (answers racing)."""
    first = post_json(alice, card_0=a_safe_single(place), idempotency_key="old")
    everyone_else_passes(place)
    assert data(post_json(alice, card_0=a_safe_single(place), idempotency_key="new"))
    before = snapshot(place.id)
    assert post_json(alice, card_0="joker", idempotency_key="old").content == first.content
    assert snapshot(place.id) == before


def test_the_server_remembers_a_seat_s_last_four_keys(place):
    alice_id = user_id(place, "alice")
    kept = []
    for n in range(moves.KEYS_KEPT + 1):
        post = services.post_cards(place.id, alice_id, [a_safe_single(place)], key=f"m{n}")
        kept.append(post)
        everyone_else_passes(place)
    position = Position.decode(Place.objects.get(pk=place.id).engine_state)
    seat = next(s.no for s in seats.seats_of(place.id) if s.user_id == alice_id)
    assert [p[0] for p in position.posts[seat]] == ["m1", "m2", "m3", "m4"]
    assert services.post_cards(place.id, alice_id, [], key="m1") == kept[1]  # remembered
    # m0 is forgotten: a new post (a pass on an empty table, a miss)
    assert services.post_cards(place.id, alice_id, [], key="m0").reason == "PASS_ON_LEAD"


def test_a_retry_after_the_turn_moved_on_gets_its_answer_not_not_your_turn(alice, place):
    first = data(post_json(alice, card_0=a_safe_single(place), idempotency_key="k"))
    before = snapshot(place.id)
    response = post_json(alice, idempotency_key="k")  # Bob's turn now; even other cards
    assert response.status_code == 200
    assert data(response) == first
    assert snapshot(place.id) == before
    error_json("NOT_YOUR_TURN", post_json(alice, idempotency_key="another"))


def test_a_key_that_was_refused_is_not_remembered(alice, bob, place):
    error_json("NOT_YOUR_TURN", post_json(bob, idempotency_key="b-1"))  # Alice's turn
    post_json(alice, card_0=a_safe_single(place))
    assert data(post_json(bob, idempotency_key="b-1"))["result"] == "pass"  # now played


def test_the_key_may_come_in_the_query_string_and_in_xml(alice, place):
    path = f"/operations/post_cards.xml?idempotency_key=q-1&card_0={a_safe_single(place)}"
    first = alice.post(path)
    assert first.status_code == 200
    before = snapshot(place.id)
    assert alice.post(path).content == first.content
    assert snapshot(place.id) == before


@pytest.mark.parametrize("key", ["x" * 65, "two words", "clé", "a/b"])
def test_a_key_of_no_valid_form_is_refused_and_changes_nothing(alice, place, key):
    before = snapshot(place.id)
    response = post_json(alice, card_0=a_safe_single(place), idempotency_key=key)
    assert response.status_code == 400
    error_json("INVALID_PARAMETER", response)
    assert snapshot(place.id) == before


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_thread_connections")
async def test_over_the_socket_a_repeated_key_is_answered_as_before_and_applied_once(alice, place):
    card = await sync_to_async(a_safe_single)(place)
    comm = await open_socket(place.id, alice)
    try:
        request = {"action": "post_cards", "cards": [card], "idempotency_key": "ws-1"}
        first = await ask(comm, request)
        assert first == {"reply": "post_cards", "result": "play", "reason": None,
                         "reset_place": False}  # fmt: skip
        await sync_to_async(everyone_else_passes)(place)
        before = await sync_to_async(snapshot)(place.id)
        assert await ask(comm, request) == first
        assert await sync_to_async(snapshot)(place.id) == before
        bad = await ask(comm, {**request, "idempotency_key": 7})
        assert bad["error"]["code"] == "INVALID_PARAMETER"
        # get_hand ignores the field
        reply = await ask(comm, {"action": "get_hand", "idempotency_key": 7})
        assert "cards" in reply, json.dumps(reply)
    finally:
        await comm.disconnect()
