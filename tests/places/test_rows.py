"""``places.rows`` reads and writes rows exactly as the ORM would."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.db import transaction
from django.forms.models import model_to_dict
from django.utils import timezone

from places import rows
from places.models import Game, Place, PlaceEvent, Player, Turn

pytestmark = pytest.mark.django_db


def all_fields(obj) -> dict:
    return {f.attname: getattr(obj, f.attname) for f in type(obj)._meta.concrete_fields}


@pytest.fixture
def place() -> Place:
    now = timezone.now()
    return Place.objects.create(
        title="rows",
        pace=None,
        time_limit=2.5,
        seed="s",
        state=Place.State.RUNNING,
        engine_state={"place": {"x": [1, 2]}, "game_id": None, "turn_no": None},
        event_seq=7,
        next_step_at=now,
        turn_deadline=now + timedelta(seconds=3),
        started_at=now,
    )


def test_lock_reads_what_the_orm_reads(place):
    with transaction.atomic():
        locked = rows.lock(Place, place.id)
    read = Place.objects.get(pk=place.id)
    assert all_fields(locked) == all_fields(read)
    assert locked.pace is None and locked.engine_state["place"] == {"x": [1, 2]}
    assert not locked._state.adding


def test_lock_of_some_fields_reads_them_defers_the_rest_and_saves_as_the_orm(place):
    with transaction.atomic():
        locked = rows.lock(Place, place.id, ("state", "engine_state"))
        orm = Place.objects.select_for_update().only("state", "engine_state").get(pk=place.id)
        assert locked.get_deferred_fields() == orm.get_deferred_fields()
        assert (locked.id, locked.state, locked.engine_state) == (
            orm.id,
            orm.state,
            orm.engine_state,
        )
        locked.engine_state = {"place": None}
        rows.save(locked, ["engine_state", "updated_at"])
    after = Place.objects.get(pk=place.id)
    assert after.engine_state == {"place": None} and after.title == "rows"
    assert after.updated_at > place.updated_at


def test_insert_many_times_its_rows_alike(place):
    """The ``auto_now_add`` time is prepared once a statement: every row has the same."""
    rows.insert_many(
        PlaceEvent,
        [{"place_id": place.id, "seq": n, "operation": "a", "message": "{}"} for n in range(3)],
    )
    times = set(PlaceEvent.objects.filter(place=place).values_list("created_at", flat=True))
    assert len(times) == 1 and times.pop() >= place.created_at


def test_lock_of_a_missing_row_is_does_not_exist():
    with pytest.raises(Place.DoesNotExist), transaction.atomic():
        rows.lock(Place, 10**9)


def test_save_writes_the_fields_named_and_touches_updated_at(place):
    before = Place.objects.get(pk=place.id)
    place.engine_state = {"place": None, "turn_no": 3}
    place.turn_deadline = None
    place.title = "not saved"
    rows.save(place, ["engine_state", "turn_deadline", "updated_at"])
    after = Place.objects.get(pk=place.id)
    assert after.engine_state == {"place": None, "turn_no": 3}
    assert after.turn_deadline is None
    assert after.title == "rows"
    assert after.updated_at > before.updated_at


def test_read_reads_what_the_orm_reads(place):
    assert all_fields(rows.read(Place, place.id)) == all_fields(Place.objects.get(pk=place.id))
    with pytest.raises(Place.DoesNotExist):
        rows.read(Place, 10**9)


def test_insert_many_and_update_where_make_the_rows_the_orm_would(place):
    user = get_user_model().objects.create_user("u")
    player = Player.objects.create(place=place, user=user, seat=0)
    game = Game.objects.create(place=place, no=1)
    opened = timezone.now()
    values = dict(
        game_id=game.id,
        player_id=player.id,
        table=[3, 4],
        revolution=True,
        opened_at=opened,
        deadline=opened + timedelta(seconds=1),
    )
    rows.insert_many(Turn, [{**values, "no": 1}])
    orm = Turn.objects.create(**{**values, "no": 2})
    fast = Turn.objects.get(game=game, no=1)
    skip = {"id", "no"}
    assert {k: v for k, v in model_to_dict(fast).items() if k not in skip} == {
        k: v for k, v in model_to_dict(orm).items() if k not in skip
    }
    settled = timezone.now()
    rows.update_where(
        Turn,
        {"game_id": game.id, "no": 1},
        cards=[5],
        outcome="play",
        reset=True,
        settled_at=settled,
    )
    fast.refresh_from_db()
    assert (fast.cards, fast.outcome, fast.reset, fast.settled_at) == ([5], "play", True, settled)
    orm.refresh_from_db()
    assert orm.outcome == ""  # only the row named


def test_insert_many_adds_rows_in_order_with_their_times(place):
    rows.insert_many(
        PlaceEvent,
        [
            {"place_id": place.id, "seq": 1, "operation": "a", "message": "{}"},
            {"place_id": place.id, "seq": 2, "operation": "b", "message": "日本"},
        ],
    )
    events = list(PlaceEvent.objects.filter(place=place).order_by("seq"))
    assert [(e.seq, e.operation, e.message) for e in events] == [(1, "a", "{}"), (2, "b", "日本")]
    assert all(e.created_at is not None for e in events)
    rows.insert_many(PlaceEvent, [])  # nothing to do
    assert PlaceEvent.objects.filter(place=place).count() == 2


def test_writes_held_together_are_sent_at_the_end_in_order(place):
    with transaction.atomic(), rows.together():
        rows.update_where(Place, {"id": place.id}, title="first")
        rows.update_where(Place, {"id": place.id, "seed": "s"}, title="second")
        assert Place.objects.get(pk=place.id).title == "rows"  # not sent yet
    assert Place.objects.get(pk=place.id).title == "second"


def test_writes_at_once_go_after_what_is_held_and_the_block_holds_again(place):
    with transaction.atomic(), rows.together():
        rows.update_where(Place, {"id": place.id}, title="held")
        with rows.at_once():
            assert Place.objects.get(pk=place.id).title == "held"  # what was held went first
            rows.update_where(Place, {"id": place.id}, seed="now")
            assert Place.objects.get(pk=place.id).seed == "now"
        rows.update_where(Place, {"id": place.id}, title="last")
        assert Place.objects.get(pk=place.id).title == "held"  # held again
    assert Place.objects.get(pk=place.id).title == "last"


def test_writes_held_together_are_dropped_when_the_block_fails(place):
    with pytest.raises(RuntimeError), transaction.atomic(), rows.together():
        rows.update_where(Place, {"id": place.id}, title="never")
        raise RuntimeError
    assert Place.objects.get(pk=place.id).title == "rows"
    rows.update_where(Place, {"id": place.id}, title="later")  # and nothing is held afterwards
    assert Place.objects.get(pk=place.id).title == "later"
