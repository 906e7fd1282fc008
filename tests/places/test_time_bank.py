"""The time bank: a turn may run past its limit while its player's bank for the game lasts."""

from __future__ import annotations

import json
import random
from datetime import timedelta

import pytest
from django.utils import timezone

from places import services
from places.models import Place, PlaceEvent, Turn
from places.reads.position import Position
from places.reads.seats import seats_of
from places.reads.snapshot import snapshot

from .drive import choose, engine_state

pytestmark = pytest.mark.django_db

LIMIT, BANK = 1.0, 5.0


class Clock:
    """``timezone.now`` held still, moved by hand."""

    def __init__(self, monkeypatch):
        self.now = timezone.now()
        monkeypatch.setattr(timezone, "now", lambda: self.now)

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


def banks(place_id: int) -> tuple[float, ...] | None:
    return Position.decode(Place.objects.get(pk=place_id).engine_state).banks


def open_turn(place_id: int) -> tuple[int, int]:
    """The seat whose turn is open, and its user."""
    seat = engine_state(place_id).game.turn
    return seat, seats_of(place_id)[seat].user_id


def play(place_id: int) -> None:
    _, user_id = open_turn(place_id)
    services.post_cards(place_id, user_id, choose(engine_state(place_id), random.Random(1)))


def test_overrun_comes_off_the_bank_and_later_deadlines_shrink(make_place, monkeypatch):
    clock = Clock(monkeypatch)
    place = make_place(time_limit=LIMIT, time_bank=BANK, game_count=2)
    services.start_place(place.id)
    assert banks(place.id) == (BANK,) * 5
    first, _ = open_turn(place.id)
    place.refresh_from_db()
    assert place.turn_deadline == clock.now + timedelta(seconds=LIMIT + BANK)

    clock.advance(3.0)  # two seconds past the limit, inside the bank
    play(place.id)
    assert banks(place.id)[first] == pytest.approx(BANK - 2.0)
    assert Turn.objects.filter(game__place=place, no=1).get().outcome in ("play", "pass")

    # the next seats answer at once; the first seat's next turn has only 3 s of bank left
    while open_turn(place.id)[0] != first:
        play(place.id)
    place.refresh_from_db()
    assert place.turn_deadline == clock.now + timedelta(seconds=LIMIT + BANK - 2.0)
    doc = snapshot(place.id)
    assert doc["place"]["time_bank"] == BANK
    assert doc["seats"][first]["bank"] == pytest.approx(BANK - 2.0)

    # a timeout spends the whole bank
    clock.advance(LIMIT + BANK)
    assert services.run_due(place.id)
    assert banks(place.id)[first] == 0.0
    assert Turn.objects.filter(game__place=place, outcome="timeout").count() == 1


def test_a_new_game_fills_every_bank_again(make_place, monkeypatch):
    clock = Clock(monkeypatch)
    place = make_place(time_limit=LIMIT, time_bank=BANK, game_count=2)
    services.start_place(place.id)
    clock.advance(LIMIT + 1.5)
    play(place.id)
    assert min(banks(place.id)) == pytest.approx(BANK - 1.5)
    while engine_state(place.id).game_no == 1:
        play(place.id)
    assert banks(place.id) == (BANK,) * 5


def test_without_a_bank_nothing_changes(make_place, monkeypatch):
    clock = Clock(monkeypatch)
    place = make_place(time_limit=LIMIT)
    services.start_place(place.id)
    place.refresh_from_db()
    assert place.turn_deadline == clock.now + timedelta(seconds=LIMIT)
    assert banks(place.id) is None and "banks" not in place.engine_state
    assert snapshot(place.id)["seats"][0]["bank"] is None


def test_the_2011_events_are_the_same_with_a_bank(make_place, monkeypatch):
    Clock(monkeypatch)
    plain = make_place(time_limit=LIMIT)
    banked = make_place(time_limit=LIMIT, time_bank=BANK)
    for p in (plain, banked):
        services.start_place(p.id)
    texts = [
        [
            json.loads(m)
            for m in PlaceEvent.objects.filter(place=p)
            .order_by("seq")
            .values_list("message", flat=True)
        ]
        for p in (plain, banked)
    ]
    for a, b in zip(*texts, strict=True):
        a.pop("place_id", None), b.pop("place_id", None)
        assert list(a) == list(b)  # the same keys in the same order
    assert [e["operation"] for e in texts[0]] == [e["operation"] for e in texts[1]]


def test_a_takeover_gives_the_open_turn_its_limit_and_its_bank(make_place, monkeypatch):
    clock = Clock(monkeypatch)
    place = make_place(time_limit=LIMIT, time_bank=BANK)
    services.start_place(place.id)
    clock.advance(2.0)
    services.resume(place.id)
    place.refresh_from_db()
    assert place.turn_deadline == clock.now + timedelta(seconds=LIMIT + BANK)
