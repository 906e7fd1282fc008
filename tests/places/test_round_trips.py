"""A post's transaction: BEGIN, the lock, and the writes with their COMMIT.

On PostgreSQL that is three round trips (counted on the wire by a proxy; psycopg
sends a transaction's BEGIN alone and waits for it); on any database the COMMIT
sent with the writes commits exactly what Django's would, a failing write rolls
everything back, and a block nested in another transaction leaves the commit to
the outer one.
"""

from __future__ import annotations

import random

import pytest
from django.db import DatabaseError, connection, transaction

from places import rows, services
from places.models import Place, PlaceEvent, Turn
from places.reads.position import state_of
from places.reads.seats import seats_of
from places.realtime import broadcast
from tests.places.drive import choose
from tests.round_trips import counting

pytestmark = pytest.mark.django_db(transaction=True)


def post_a_move(place_id: int, seed: int = 0) -> None:
    state = state_of(Place.objects.get(pk=place_id))
    user_id = seats_of(place_id)[state.game.turn].user_id
    services.post_cards(place_id, user_id, choose(state, random.Random(seed)))


@pytest.fixture
def running(make_place) -> int:
    place = make_place(pace=0)
    services.start_place(place.id)
    return place.id


def test_a_post_is_three_round_trips_on_postgresql(make_place, monkeypatch):
    if connection.vendor != "postgresql":
        pytest.skip("round trips are PostgreSQL's (SQLite is in process)")
    # the transaction alone: what the events' delivery does after commit is not its cost
    # (a relay or sequencer left by an earlier test may read the log)
    monkeypatch.setattr(broadcast, "send_events", lambda place_id, batch: None)
    running = make_place(pace=0, time_limit=3600).id  # no timeout, however slow the run
    services.start_place(running)
    seats_of(running)  # kept per process once the place runs, as in the server
    post_a_move(running)  # the first one may read more (a game's first turn)
    turns_before = Turn.objects.filter(game__place_id=running).count()
    statements: list[str] = []

    def noted(execute, sql, params, many, context):
        statements.append(sql[:60])
        return execute(sql, params, many, context)

    with counting(connection) as proxy:
        connection.ensure_connection()
        state = state_of(Place.objects.get(pk=running))
        user_id = seats_of(running)[state.game.turn].user_id
        cards = choose(state, random.Random(1))
        before = list(proxy.by_connection)
        with connection.execute_wrapper(noted):
            services.post_cards(running, user_id, cards)
        after = list(proxy.by_connection)
    # the post's connection (another one a pool opened meanwhile is not the post's)
    spent = max(n - (before[i] if i < len(before) else 0) for i, n in enumerate(after))
    assert spent == 3, (before, after, statements)  # BEGIN; the lock; the writes and COMMIT
    # and the move is committed: the turn settled, the next one opened, the events logged
    assert Turn.objects.filter(game__place_id=running).count() > turns_before
    assert Place.objects.get(pk=running).event_seq == PlaceEvent.objects.filter(
        place_id=running
    ).count()


def test_the_commit_sent_with_the_writes_commits_them_and_runs_the_hooks(running):
    hooks = []
    with transaction.atomic():
        rows.lock(Place, running)
        with rows.together(commit=True):
            rows.update_where(Place, {"id": running}, title="committed")
            transaction.on_commit(lambda: hooks.append("ran"))
    assert hooks == ["ran"]
    assert Place.objects.get(pk=running).title == "committed"
    assert connection.get_autocommit()  # Django's state is back as after any commit
    post_a_move(running)  # and the connection goes on working


def test_a_failing_write_rolls_the_whole_transaction_back(running):
    hooks = []
    with pytest.raises(DatabaseError), transaction.atomic():
        rows.lock(Place, running)
        with rows.together(commit=True):
            rows.update_where(Place, {"id": running}, title="never")
            rows.insert_many(  # a second event with the same number: a unique violation
                PlaceEvent,
                [
                    {"place_id": running, "seq": 1, "operation": "x", "message": "{}"},
                    {"place_id": running, "seq": 1, "operation": "x", "message": "{}"},
                ],
            )
            transaction.on_commit(lambda: hooks.append("ran"))
    assert hooks == []
    assert Place.objects.get(pk=running).title == "Test place"
    post_a_move(running)  # the connection is usable afterwards


def test_nested_in_another_transaction_the_outer_one_decides(running):
    with pytest.raises(RuntimeError), transaction.atomic():
        with transaction.atomic():
            rows.lock(Place, running)
            with rows.together(commit=True):
                rows.update_where(Place, {"id": running}, title="outer decides")
        raise RuntimeError
    assert Place.objects.get(pk=running).title == "Test place"
