"""A post's transaction: BEGIN with the lock, and the writes with their COMMIT.

On PostgreSQL that is two round trips (counted on the wire by a proxy), a
socket's post with its session's check too, once the database session has prepared
the statements (its first post prepares each, a round trip each; without prepared
statements, none); a precondition read with the lock
that no longer holds changes nothing; the lock that carries the BEGIN holds the row and begins a real transaction, at
the isolation level Django set; on any database the COMMIT sent with the
writes commits exactly what Django's would, a failing write rolls everything
back, and a block nested in another transaction leaves the commit to the outer
one.
"""

from __future__ import annotations

import random

import pytest
from django.db import (
    DEFAULT_DB_ALIAS,
    DatabaseError,
    OperationalError,
    connection,
    connections,
    transaction,
)
from django.test import Client
from psycopg import IsolationLevel

from places import rows, services
from places.models import Place, PlaceEvent, Turn
from places.reads.position import state_of
from places.reads.seats import seats_of
from places.realtime.consumers import PlaceConsumer
from places.services import committed
from places.sessions import SocketSession
from tests.api.helpers import login, session_cookie
from tests.needs import need
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


@pytest.fixture
def counted(make_place, monkeypatch) -> int:
    """A running place whose posts' transactions alone are counted: what the events'
    delivery does after commit is not their cost (a relay or sequencer left by an
    earlier test may read the log), and no turn times out, however slow the run."""
    monkeypatch.setattr(committed, "_send", lambda place_id, batch: None)
    place_id = make_place(pace=0, time_limit=3600).id
    services.start_place(place_id)
    seats_of(place_id)  # kept per process once the place runs, as in the server
    return place_id


def only_on_postgresql() -> None:
    need("postgresql")  # round trips and the BEGIN carried by the lock are PostgreSQL's


def most_spent(proxy, before: list[int]) -> int:
    """The round trips of the busiest connection since ``before`` (a pool may open
    another meanwhile: not the post's)."""
    after = list(proxy.by_connection)
    return max(n - (before[i] if i < len(before) else 0) for i, n in enumerate(after))


def test_a_post_is_two_round_trips_on_postgresql(counted):
    only_on_postgresql()
    running = counted
    post_a_move(running)  # the first one may read more (a game's first turn)
    turns_before = Turn.objects.filter(game__place_id=running).count()
    statements: list[str] = []

    def noted(execute, sql, params, many, context):
        statements.append(sql[:60])
        return execute(sql, params, many, context)

    with counting(connection) as proxy:
        connection.ensure_connection()
        post_a_move(running, seed=2)  # a new database session: its first post prepares
        state = state_of(Place.objects.get(pk=running))
        user_id = seats_of(running)[state.game.turn].user_id
        cards = choose(state, random.Random(1))
        before = list(proxy.by_connection)
        with connection.execute_wrapper(noted):
            services.post_cards(running, user_id, cards)
        spent = most_spent(proxy, before)
    assert spent == 2, (before, statements)  # BEGIN and the lock; the writes and COMMIT
    # and the move is committed: the turn settled, the next one opened, the events logged
    assert Turn.objects.filter(game__place_id=running).count() > turns_before
    assert (
        Place.objects.get(pk=running).event_seq
        == PlaceEvent.objects.filter(place_id=running).count()
    )


def test_a_post_over_a_socket_is_two_round_trips_with_its_session_check(counted):
    """The session's check rides with the place's lock (``sessions.Unchanged``)."""
    only_on_postgresql()
    running = counted
    state = state_of(Place.objects.get(pk=running))
    player = seats_of(running)[state.game.turn]
    client = Client(HTTP_HOST="127.0.0.1")
    login(client, player.name, running)
    socket = PlaceConsumer()
    socket.scope = {"session_key": session_cookie(client), "client": ["127.0.0.1", 50000]}
    socket.place_id = running
    socket._session = SocketSession(session_cookie(client))
    assert "cards" in socket._act("get_hand", {})  # Django's check, once
    with counting(connection) as proxy:
        connection.ensure_connection()
        # a new database session: its first post over a socket prepares the statements
        reply = socket._act("post_cards", {"cards": choose(state, random.Random(1))})
        assert "error" not in reply, reply
        while (state := state_of(Place.objects.get(pk=running))).game.turn != player.no:
            post_a_move(running)  # round the table to the same player
        cards = choose(state, random.Random(1))
        before = list(proxy.by_connection)
        reply = socket._act("post_cards", {"cards": cards})
        spent = most_spent(proxy, before)
    assert reply["reply"] == "post_cards" and "error" not in reply, reply
    assert spent == 2, before


def prepared_here() -> set[str]:
    """The names of this session's prepared statements of ours."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT name FROM pg_prepared_statements WHERE name LIKE 'daihinmin_%%'")
        return {name for (name,) in cursor.fetchall()}


def test_a_database_session_prepares_each_statement_once(counted):
    """The first post on a session prepares its statements, one round trip each; later
    posts execute them, a rollback between them undoes no PREPARE, and a new session
    (the pool's next connection) prepares its own."""
    only_on_postgresql()
    running = counted
    for _session in range(2):
        with counting(connection) as proxy:
            connection.ensure_connection()
            assert not prepared_here()
            spent = []
            for seed in range(3):
                before = list(proxy.by_connection)
                post_a_move(running, seed)
                spent.append(most_spent(proxy, before))
                if seed == 0:
                    # a failed change between two posts: rolled back, nothing unprepared
                    with pytest.raises(DatabaseError), transaction.atomic():
                        rows.lock(Place, running)
                        with connection.cursor() as cursor:
                            cursor.execute("SELECT 1 / 0")
            ours = prepared_here()
        # a post: the ORM's read of the state, then BEGIN + lock, and writes + COMMIT; the
        # first one also prepares each of its statements (lock, settle, open, save, log)
        assert len(ours) >= 5, ours
        assert spent == [3 + len(ours), 3, 3], (spent, ours)


def test_a_session_whose_statements_are_gone_prepares_them_again(running):
    """A ``DEALLOCATE`` behind the server's back: the post that meets it fails and changes
    nothing, the next one prepares again and goes through."""
    only_on_postgresql()
    post_a_move(running)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT name FROM pg_prepared_statements"
            " WHERE name LIKE 'daihinmin_%%' AND statement LIKE '%%FOR UPDATE%%'"
        )
        (lock,) = cursor.fetchone()
        cursor.execute(f"DEALLOCATE {lock}")  # the lock's: the others are still there
    before = Place.objects.get(pk=running).engine_state, PlaceEvent.objects.count()
    failed = 0
    for seed in range(3):  # whichever of its statements a post meets first fails it
        try:
            post_a_move(running, seed)
        except DatabaseError:
            failed += 1
            assert (
                Place.objects.get(pk=running).engine_state,
                PlaceEvent.objects.count(),
            ) == before
        else:
            break
    assert failed == 1
    assert Place.objects.get(pk=running).engine_state != before[0]
    post_a_move(running, 7)  # and on it goes
    assert lock in prepared_here()


def test_without_prepared_statements_a_post_sends_its_sql(counted, settings):
    only_on_postgresql()
    settings.DATABASE_PREPARED_STATEMENTS = False  # behind a transaction pooler
    running = counted
    with counting(connection) as proxy:
        connection.ensure_connection()
        before = list(proxy.by_connection)
        post_a_move(running)
        spent = most_spent(proxy, before)
        assert not prepared_here()
    assert spent == 3  # the ORM's read of the state, then BEGIN + lock, writes + COMMIT


class Never:
    """A precondition read with the lock that never holds (and what it read)."""

    sql = "SELECT 1, 'read with the lock'"
    params = ()
    row = None

    def holds(self, row) -> bool:
        self.row = tuple(row)
        return False


def test_a_post_whose_precondition_no_longer_holds_changes_nothing(running):
    state = state_of(Place.objects.get(pk=running))
    user_id = seats_of(running)[state.game.turn].user_id
    before = Place.objects.get(pk=running).engine_state, PlaceEvent.objects.count()
    never = Never()
    with pytest.raises(services.Stale):
        services.post_cards(running, user_id, choose(state, random.Random(1)), never)
    assert never.row == (1, "read with the lock")
    assert (Place.objects.get(pk=running).engine_state, PlaceEvent.objects.count()) == before
    assert connection.get_autocommit()
    post_a_move(running)  # the connection goes on working


@pytest.mark.parametrize("isolation", [None, IsolationLevel.SERIALIZABLE])
def test_the_lock_that_carries_the_begin_holds_the_row_until_the_end(running, isolation):
    only_on_postgresql()
    connection.ensure_connection()
    connection.connection.isolation_level = isolation  # as Django's OPTIONS would set it
    other = connections.create_connection(DEFAULT_DB_ALIAS)
    try:
        with transaction.atomic():
            rows.lock(Place, running)
            level = connection.connection.isolation_level  # None: the server's default
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT current_setting('transaction_isolation'),"
                    " current_setting('default_transaction_isolation')"
                )
                now, default = cursor.fetchone()
            assert now == (
                default if level is None else IsolationLevel(level).name.replace("_", " ").lower()
            )
            with pytest.raises(OperationalError), other.cursor() as cursor:
                cursor.execute(
                    f"SELECT id FROM places_place WHERE id = {running} FOR UPDATE NOWAIT"
                )
        with other.cursor() as cursor:  # released by the commit
            cursor.execute(f"SELECT id FROM places_place WHERE id = {running} FOR UPDATE NOWAIT")
            assert cursor.fetchone() == (running,)
    finally:
        other.close()
        connection.connection.isolation_level = None


def test_what_follows_the_lock_is_in_its_transaction(running):
    """Writes after the lock, through the ORM, go with the transaction: a rollback takes them
    back (autocommit would have kept them)."""
    with pytest.raises(RuntimeError), transaction.atomic():
        rows.lock(Place, running)
        Place.objects.filter(pk=running).update(title="rolled back")
        raise RuntimeError
    assert Place.objects.get(pk=running).title == "Test place"
    assert connection.get_autocommit()
    with transaction.atomic():  # and the next transaction is a transaction too
        rows.lock(Place, running)
        Place.objects.filter(pk=running).update(title="kept")
    assert Place.objects.get(pk=running).title == "kept"


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
