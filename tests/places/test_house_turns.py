"""House turns one transaction each (issue 44, item 11): a place of house bots at pace 0
holds the place (and SQLite's one writer) for one turn's work at a time, its bots'
moves decided outside any transaction; a move decided on a place that changed
meanwhile is decided again; the dealer shares its rounds between places."""

from __future__ import annotations

import logging
import threading
import time

import pytest
from django.db import OperationalError, connection, transaction
from django.db.models import F
from django.utils import timezone

from bots.strategies import STRATEGIES, Budget, greedy_player, montecarlo_player
from daifugo.cards import format_card, sorted_ids
from daifugo.view import answer_2011
from places import dealer, services
from places.models import Place, Turn
from places.reads import seats
from places.services import change, house

from .drive import engine_state
from .test_house import HOUSE, house_place

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def small_montecarlo(monkeypatch):
    """``montecarlo`` on a small budget: its searches are each a turn's work, and short."""
    monkeypatch.setitem(
        STRATEGIES, "montecarlo", lambda seed=None: montecarlo_player(seed, Budget(playouts=120))
    )


class Writer(threading.Thread):
    """Another request's write, over and over while a place is played: how long each one
    waited for the place's row (and, on SQLite, for the database's one writer)."""

    def __init__(self, place_id: int):
        super().__init__(daemon=True)
        self.place_id = place_id
        self.waits: list[float] = []
        self.done = threading.Event()

    def run(self) -> None:
        try:
            while not self.done.is_set():
                started = time.perf_counter()
                with transaction.atomic():
                    Place.objects.select_for_update().filter(pk=self.place_id).exists()
                self.waits.append(time.perf_counter() - started)
                time.sleep(0.002)
        finally:
            connection.close()


def test_a_pace_0_place_of_house_bots_holds_the_writer_one_turn_at_a_time(small_montecarlo):
    place = house_place(["montecarlo", "greedy", "shedder", "greedy", "montecarlo"], games=2)
    services.schedule_start(place.id)  # as a tournament's table starts: the dealer plays it
    decided: list[float] = []
    decide = house.decide

    def timed(*args):
        started = time.perf_counter()
        try:
            return decide(*args)
        finally:
            decided.append(time.perf_counter() - started)

    writer = Writer(place.id)
    started = time.perf_counter()
    writer.start()
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(house, "decide", timed)
            while Place.objects.get(pk=place.id).state == Place.State.RUNNING:
                assert time.perf_counter() - started < 300, "the place did not finish"
                dealer.tick()
    finally:
        writer.done.set()
        writer.join(30)
    played = time.perf_counter() - started
    place.refresh_from_db()
    assert place.state == Place.State.FINISHED
    assert place.games.filter(status=1).count() == 2
    assert not any(t.outcome == "timeout" for t in Turn.objects.filter(game__place=place))
    longest = max(writer.waits)
    print(
        f"\npace 0, 5 house bots (2 montecarlo@120), 2 games, {len(decided)} house moves "
        f"in {played:.2f} s ({sum(decided):.2f} s deciding, the longest {max(decided) * 1000:.0f} "
        f"ms): another writer got in {len(writer.waits)} times, its longest wait "
        f"{longest * 1000:.1f} ms"
    )
    # the place was played in many short transactions, not one: the other writer got in
    # between its turns, never waiting for more than a small part of the play (one
    # transaction of the whole place made it wait for nearly all of it)
    assert len(writer.waits) > len(decided) / 4
    assert longest < played / 4


def test_a_move_decided_on_a_place_that_changed_meanwhile_is_decided_again(monkeypatch):
    place = house_place(games=1)
    calls: list[tuple[int, int]] = []
    decide = house.decide

    def meanwhile(strategy, game, seat, seed):
        calls.append((game.game_no, game.turn_no))
        if len(calls) == 3:  # another process's change while the move is decided
            Place.objects.filter(pk=place.id).update(event_seq=F("event_seq") + 1)
        return decide(strategy, game, seat, seed)

    monkeypatch.setattr(house, "decide", meanwhile)
    services.start_place(place.id)
    place.refresh_from_db()
    assert place.state == Place.State.FINISHED
    assert calls[2] == calls[3]  # the same turn, decided again
    assert len(calls) == len(set(calls)) + 1
    assert Turn.objects.filter(game__place=place).count() == len(calls) - 1


def test_a_stop_while_a_house_move_is_decided_leaves_the_move_unplayed(monkeypatch):
    place = house_place(games=2)
    decide = house.decide
    calls = []

    def stopped(strategy, game, seat, seed):
        calls.append(game.turn_no)
        if len(calls) == 5:
            services.schedule_stop(place.id)
        return decide(strategy, game, seat, seed)

    monkeypatch.setattr(house, "decide", stopped)
    services.start_place(place.id)
    place.refresh_from_db()
    assert place.state == Place.State.RUNNING and place.stop_requested
    assert len(calls) == 5  # no move decided after the stop
    open_turn = Turn.objects.get(game__place=place, outcome="")
    assert open_turn.no == calls[-1]  # the move decided meanwhile was not played
    assert services.run_due(place.id)
    place.refresh_from_db()
    assert place.state == Place.State.ABORTED


def test_the_dealer_plays_a_place_s_house_turns_a_while_a_round_and_leaves_the_rest_due(
    monkeypatch,
):
    monkeypatch.setattr(dealer, "HOUSE_SECONDS", 0.0)  # one house move a round
    place = house_place(games=1)
    services.schedule_start(place.id)
    dealer.tick()
    place.refresh_from_db()
    assert place.state == Place.State.RUNNING
    assert engine_state(place.id).needs_action  # a house turn open, due at once
    assert place.next_step_at is not None and place.next_step_at <= timezone.now()
    assert Turn.objects.filter(game__place=place).exclude(outcome="").count() == 1
    rounds = 1
    while place.state == Place.State.RUNNING:
        dealer.tick()
        rounds += 1
        place.refresh_from_db()
        assert rounds < 1000
    assert place.state == Place.State.FINISHED
    assert rounds >= Turn.objects.filter(game__place=place).count()


def test_the_dealer_leaves_a_place_to_the_thread_playing_its_house_turns():
    place = house_place(games=1)
    services.schedule_start(place.id)
    dealer.claim()
    with change._house_locks[place.id]:  # another thread of this process plays them on
        assert services.playing() == {place.id}
        assert dealer.due_places() == []
        services.run_due(place.id)  # the first step only: its house turn is left open
        assert not services.run_due(place.id)
        assert engine_state(place.id).needs_action
    assert services.playing() == set()
    assert services.run_due(place.id)  # the dealer's, the thread done: it plays them
    place.refresh_from_db()
    assert place.state == Place.State.FINISHED


def test_a_post_is_answered_though_the_house_play_after_it_fails_and_the_dealer_plays_on(
    monkeypatch, caplog
):
    place = house_place(HOUSE[:4], wire=["alice"], games=1)
    services.start_place(place.id)
    alice = seats.seats_of(place.id)[0]
    state = engine_state(place.id)
    assert state.game.turn == alice.no

    def gone(place_id, *args):
        raise OperationalError("the server closed the connection")

    monkeypatch.setattr(change, "_apply_house_move", gone)  # the house's move, after the post
    game = state.game
    choice = answer_2011(greedy_player(), game.hands[alice.no], game.table, game.revolution)
    cards = [] if choice is None else [format_card(c) for c in sorted_ids(choice)]
    with caplog.at_level(logging.ERROR, logger="places.services.change"):
        result = services.post_cards(place.id, alice.user_id, cards)
    assert result.result in ("play", "pass")  # committed, and answered so
    assert "left to the dealer" in caplog.text
    state = engine_state(place.id)
    assert state.needs_action and state.game.turn != alice.no  # the house's turn, open
    monkeypatch.undo()
    place.refresh_from_db()
    assert services.run_due(place.id, now=place.turn_deadline)
    assert engine_state(place.id).game.turn == alice.no  # the house played on up to alice


def test_a_house_turn_open_in_a_place_taken_over_is_played_at_once():
    place = house_place(games=1)
    services.schedule_start(place.id)
    dealer.claim("old")
    with change._house_locks[place.id]:  # the old process opened a house turn, then died
        services.run_due(place.id)
    Place.objects.filter(pk=place.id).update(lease_until=timezone.now())
    assert engine_state(place.id).needs_action
    assert dealer.tick("new") == 1  # not at the turn's deadline: now
    assert Turn.objects.filter(game__place=place).exclude(outcome="").exists()
