"""Two posts racing for one turn: the place row lock lets exactly one apply.

The process-local send lock would serialise the two threads by itself, so it
is replaced by a no-op here: what is tested is the database lock, as between
two server processes.
"""

from __future__ import annotations

import random
import threading
from collections import defaultdict

import pytest
from django.contrib.auth import get_user_model
from django.db import connection

from places import errors, services
from places.models import PlaceEvent, Turn
from places.reads import seats
from places.services import change
from tests.places.conftest import NAMES
from tests.places.drive import choose, engine_state

pytestmark = pytest.mark.django_db(transaction=True)


class _NoLock:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@pytest.fixture
def no_process_lock(monkeypatch):
    monkeypatch.setattr(change, "_send_locks", defaultdict(_NoLock))


def _race(fn, n=2):
    barrier = threading.Barrier(n)
    results: list = [None] * n

    def run(i):
        try:
            barrier.wait()
            results[i] = fn(i)
        except Exception as e:  # noqa: BLE001 - the outcome is what is checked
            results[i] = e
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    return results


@pytest.mark.parametrize("repeat", range(3))
def test_the_same_turn_posted_twice_at_once_applies_once(no_process_lock, repeat):
    model = get_user_model()
    for name in NAMES:
        model.objects.create_user(name, password="pw")
    seats.forget()
    place = services.create_place("race", NAMES, game_count=1, pace=0, seed=f"race{repeat}")
    services.start_place(place.id)
    state = engine_state(place.id)
    user_id = seats.seats_of(place.id)[state.game.turn].user_id
    cards = choose(state, random.Random(repeat))
    turns_before = Turn.objects.exclude(outcome="").count()
    events_before = PlaceEvent.objects.filter(operation="end_turn").count()

    results = _race(lambda i: services.post_cards(place.id, user_id, cards))

    applied = [r for r in results if isinstance(r, services.PostResult)]
    refused = [r for r in results if isinstance(r, errors.Refused)]
    assert len(applied) == 1, results
    assert len(refused) == 1, results
    assert refused[0].code in (errors.NOT_YOUR_TURN, errors.NO_TURN_OPEN)
    assert Turn.objects.exclude(outcome="").count() == turns_before + 1
    assert PlaceEvent.objects.filter(operation="end_turn").count() == events_before + 1
    seqs = list(PlaceEvent.objects.filter(place=place).values_list("seq", flat=True))
    assert seqs == list(range(1, len(seqs) + 1))
