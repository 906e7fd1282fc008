"""The service layer drives places: steps, turns, paces, deadlines, the record."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from places import dealer, errors, services
from places.models import Game, Hand, Place, PlaceEvent, Rank, Turn
from places.reads import seats
from tests.places.drive import choose, engine_state, play_out
from tests.places.replay import logged, replay

pytestmark = pytest.mark.django_db


def events_of(place) -> list[dict]:
    return [
        json.loads(m)
        for m in PlaceEvent.objects.filter(place=place)
        .order_by("seq")
        .values_list("message", flat=True)
    ]


def test_a_seeded_place_of_three_games_matches_the_engines_replay_event_for_event(make_place):
    place = make_place(game_count=3)
    services.start_place(place.id)
    play_out(place.id, seed=1)
    place.refresh_from_db()
    assert place.state == Place.State.FINISHED
    record = logged(place.id)
    assert record == replay(place.id)
    ops = [r[0] for r in record]
    assert ops[0] == "start_place" and ops[-1] == "end_place"
    assert ops.count("start_game") == ops.count("end_game") == 3
    assert ops.count("end_player") == 15
    seqs = list(PlaceEvent.objects.filter(place=place).values_list("seq", flat=True))
    assert seqs == list(range(1, len(seqs) + 1)) and place.event_seq == len(seqs)


def test_events_follow_the_protocol_order(make_place):
    place = make_place(game_count=2)
    services.start_place(place.id)
    play_out(place.id, seed=2)
    ops = [e["operation"] for e in events_of(place)]
    # start_place; per game start_game, turns, end_player+end_game; end_place
    i = 1
    for _ in range(2):
        assert ops[i] == "start_game"
        i += 1
        while ops[i] == "start_turn":
            i += 1
            if ops[i] == "end_player":
                i += 1
            assert ops[i] == "end_turn"
            i += 1
        assert ops[i] == "end_player" and ops[i + 1] == "end_game"
        i += 2
    assert ops[i:] == ["end_place"]


def test_every_event_has_the_wire_keys_in_order_with_operation_and_place_last(make_place):
    place = make_place(game_count=1)
    services.start_place(place.id)
    play_out(place.id, seed=3)
    keys = {
        "start_place": ["place_info", "operation", "place"],
        "end_place": ["place_info", "operation", "place"],
        "start_game": ["game", "operation", "place"],
        "end_game": ["game", "operation", "place"],
        "start_turn": ["player", "place_cards", "place_info", "operation", "place"],
        "end_player": ["player", "rank", "operation", "place"],
        "end_turn": ["player", "turn_cards", "reset_place", "operation", "place"],
    }
    seen = set()
    for e in events_of(place):
        assert list(e) == keys[e["operation"]]
        assert e["place"] == place.id
        seen.add(e["operation"])
        if "place_info" in e and isinstance(e["place_info"], dict):
            assert list(e["place_info"]) == [
                "created_at",
                "game_count",
                "id",
                "title",
                "updated_at",
            ]
        if "game" in e:
            assert list(e["game"]) == [
                "created_at",
                "id",
                "no",
                "place_id",
                "place_info",
                "status",
                "updated_at",
            ]
            assert e["game"]["status"] == (0 if e["operation"] == "start_game" else 1)
        for card in e.get("place_cards", []) + e.get("turn_cards", []):
            assert list(card["card"]) == [
                "created_at",
                "id",
                "joker",
                "mark",
                "number",
                "updated_at",
            ]
        if e["operation"] == "end_player":
            assert list(e["rank"]["rank"]) == [
                "created_at",
                "game_id",
                "player_id",
                "rank",
                "updated_at",
            ]
        if e["operation"] == "start_turn":
            assert e["place_info"] in ("Nomal", "Revolution")
    assert seen == set(keys)


def test_events_never_carry_a_hand(make_place):
    place = make_place(game_count=1)
    services.start_place(place.id)
    play_out(place.id, seed=4)
    for e in events_of(place):
        text = json.dumps(e)
        assert "hand" not in text
        if e["operation"] == "start_turn":
            assert all(len(c) == 1 for c in e["place_cards"])


def test_the_record_reconstructs_the_place_turns_hands_and_ranks(make_place):
    place = make_place(game_count=2)
    services.start_place(place.id)
    play_out(place.id, seed=5)
    for game in Game.objects.filter(place=place):
        assert game.status == Game.FINISHED
        assert sorted(Rank.objects.filter(game=game).values_list("rank", flat=True)) == [
            1,
            2,
            3,
            4,
            5,
        ]
        hands = list(Hand.objects.filter(game=game))
        assert sorted(c for h in hands for c in h.dealt) == list(range(1, 55))
        turns = list(Turn.objects.filter(game=game).order_by("no"))
        assert [t.no for t in turns] == list(range(1, len(turns) + 1))
        assert all(t.outcome and t.settled_at and t.settled_at <= t.deadline for t in turns)


def test_manual_pace_moves_one_step_per_next_turn(make_place):
    place = make_place(pace=None, game_count=1)
    services.start_place(place.id)
    assert [e["operation"] for e in events_of(place)] == ["start_place"]
    services.next_turn(place.id)
    assert events_of(place)[-1]["operation"] == "start_game"
    services.next_turn(place.id)
    assert events_of(place)[-1]["operation"] == "start_turn"
    with pytest.raises(errors.Refused) as e:
        services.next_turn(place.id)
    assert e.value.code == errors.TURN_OPEN
    state = engine_state(place.id)
    user_id = seats.seats_of(place.id)[state.game.turn].user_id
    import random

    services.post_cards(place.id, user_id, choose(state, random.Random(0)))
    assert events_of(place)[-1]["operation"] == "end_turn"  # no start_turn until next_turn
    services.next_turn(place.id)
    assert events_of(place)[-1]["operation"] == "start_turn"


def test_a_paced_place_waits_its_pace_between_steps(make_place):
    place = make_place(pace=2.0, game_count=1)
    services.start_place(place.id)
    place.refresh_from_db()
    assert place.next_step_at is not None
    assert not services.run_due(place.id, now=place.next_step_at - timedelta(seconds=0.1))
    assert [e["operation"] for e in events_of(place)] == ["start_place"]
    assert services.run_due(place.id, now=place.next_step_at + timedelta(seconds=0.1))
    assert events_of(place)[-1]["operation"] == "start_game"


def test_a_player_silent_past_the_deadline_misses_and_nothing_else(make_place):
    place = make_place(time_limit=3)
    services.start_place(place.id)
    place.refresh_from_db()
    before = engine_state(place.id)
    seat = before.game.turn
    name = seats.seats_of(place.id)[seat].name
    assert not services.run_due(place.id, now=place.turn_deadline - timedelta(seconds=0.5))
    n = PlaceEvent.objects.filter(place=place).count()
    assert services.run_due(place.id, now=place.turn_deadline + timedelta(seconds=0.01))
    new = events_of(place)[n:]
    assert [e["operation"] for e in new[:2]] == ["end_player", "end_turn"]
    assert new[0]["player"] == name and new[0]["rank"]["rank"]["rank"] == 5
    assert new[1]["turn_cards"] == [] and new[1]["reset_place"] is True
    assert new[2]["operation"] == "start_turn" and new[2]["player"] != name
    turn = Turn.objects.filter(game__place=place).order_by("id").first()
    assert (turn.outcome, turn.reason) == (Turn.Outcome.TIMEOUT, "TIMEOUT")
    after = engine_state(place.id)
    assert after.game.hands[seat] == 0
    assert [h.bit_count() for i, h in enumerate(after.game.hands) if i != seat] == [
        h.bit_count() for i, h in enumerate(before.game.hands) if i != seat
    ]


def test_a_post_after_the_deadline_is_the_timeout_it_came_too_late_for(make_place):
    place = make_place(time_limit=3)
    services.start_place(place.id)
    Place.objects.filter(pk=place.id).update(turn_deadline=timezone.now() - timedelta(seconds=1))
    state = engine_state(place.id)
    user_id = seats.seats_of(place.id)[state.game.turn].user_id
    import random

    result = services.post_cards(place.id, user_id, choose(state, random.Random(0)))
    assert (result.result, result.reason) == ("miss", "TIMEOUT")


def test_actions_out_of_turn_change_nothing(make_place):
    place = make_place()
    services.start_place(place.id)
    state = engine_state(place.id)
    other = seats.seats_of(place.id)[(state.game.turn + 1) % 5]
    before = Place.objects.get(pk=place.id)
    with pytest.raises(errors.Refused) as e:
        services.post_cards(place.id, other.user_id, [])
    assert (e.value.code, e.value.status) == (errors.NOT_YOUR_TURN, 409)
    after = Place.objects.get(pk=place.id)
    assert after.engine_state == before.engine_state and after.event_seq == before.event_seq
    assert after.turn_deadline == before.turn_deadline


def test_no_turn_is_open_before_the_start_or_between_paced_steps(make_place):
    place = make_place(pace=5)
    user_id = seats.seats_of(place.id)[0].user_id
    with pytest.raises(errors.Refused) as e:
        services.post_cards(place.id, user_id, [])
    assert e.value.code == errors.NO_TURN_OPEN
    services.start_place(place.id)
    with pytest.raises(errors.Refused) as e:
        services.post_cards(place.id, user_id, [])
    assert e.value.code == errors.NO_TURN_OPEN


def test_an_unreadable_card_is_an_error_not_a_miss(make_place):
    place = make_place()
    services.start_place(place.id)
    state = engine_state(place.id)
    user_id = seats.seats_of(place.id)[state.game.turn].user_id
    seq = Place.objects.get(pk=place.id).event_seq
    for bad in ("7", "5-14", "0-3", "hello"):
        with pytest.raises(errors.Refused) as e:
            services.post_cards(place.id, user_id, [bad])
        assert (e.value.code, e.value.status) == (errors.INVALID_CARD, 400)
    assert Place.objects.get(pk=place.id).event_seq == seq


def test_a_place_cannot_start_twice(make_place):
    place = make_place()
    services.start_place(place.id)
    with pytest.raises(errors.Refused) as e:
        services.start_place(place.id)
    assert e.value.code == errors.ALREADY_STARTED


@pytest.mark.parametrize(
    ("title", "names", "problem"),
    [
        ("x" * 21, None, "title"),
        ("ok", ["alice", "bob", "charlie", "dave"], "5 players"),
        ("ok", ["alice", "alice", "charlie", "dave", "eve"], "only once"),
        ("ok", ["alice", "bob", "charlie", "dave", "zed"], "unknown user: zed"),
    ],
)
def test_bad_places_are_refused_with_a_reason(users, title, names, problem):
    names = names or [u.username for u in users]
    with pytest.raises(errors.Refused) as e:
        services.create_place(title, names)
    assert problem in e.value.message
    assert not Place.objects.exists()


def test_a_place_s_seed_holding_nul_is_refused_for_that(users):
    """PostgreSQL's text holds no NUL: it was stored on SQLite and failed on PostgreSQL."""
    with pytest.raises(errors.Refused) as e:
        services.create_place("ok", [u.username for u in users], seed="a\x00b")
    assert e.value.code == errors.INVALID_PLACE
    assert e.value.message == "the seed has no NUL character (\\x00)"
    assert not Place.objects.exists()


def test_the_dealer_claims_running_places_and_runs_what_is_due(make_place):
    place = make_place(pace=0.5)
    services.start_place(place.id)
    assert dealer.claim("me") == [place.id]
    assert dealer.claim("other") == []  # the lease holds
    Place.objects.filter(pk=place.id).update(next_step_at=timezone.now() - timedelta(seconds=1))
    assert dealer.tick("me") == 1
    assert events_of(place)[-1]["operation"] == "start_game"


def test_leases_are_renewed_once_a_quarter_is_gone_not_at_every_round(
    make_place, settings, monkeypatch
):
    settings.DEALER_LEASE_SECONDS = 4
    place = make_place(pace=0.5)
    services.start_place(place.id)
    assert dealer.claim("renewer") == [place.id]
    first = Place.objects.get(pk=place.id).lease_until
    assert dealer.claim("renewer") == []
    assert Place.objects.get(pk=place.id).lease_until == first  # no write: 4 s are left
    later = timezone.now() + timedelta(seconds=1.5)  # 2.5 s left: under three quarters
    monkeypatch.setattr(dealer.timezone, "now", lambda: later)
    assert dealer.claim("renewer") == []
    assert Place.objects.get(pk=place.id).lease_until == later + timedelta(seconds=4)


def test_a_place_whose_driver_died_is_taken_over_with_a_fresh_deadline(make_place):
    place = make_place(time_limit=10)
    services.start_place(place.id)
    dealer.claim("old-process")
    stale = timezone.now() - timedelta(seconds=30)
    Place.objects.filter(pk=place.id).update(lease_until=stale, turn_deadline=stale)
    Turn.objects.filter(game__place=place, outcome="").update(deadline=stale)
    assert dealer.claim("new-process") == [place.id]
    place.refresh_from_db()
    assert place.driver == "new-process"
    assert place.turn_deadline > timezone.now() + timedelta(seconds=9)
    assert Turn.objects.get(game__place=place, outcome="").deadline == place.turn_deadline
    assert dealer.tick("new-process") == 0  # the fresh deadline has not passed: no miss
    play_out(place.id, seed=6)
    assert Place.objects.get(pk=place.id).state == Place.State.FINISHED
    assert logged(place.id) == replay(place.id)
