"""A place's time limit and bank over TCP: a late move (or exchange choice) is a pass (the
strongest cards), answered 8, and the late table, when it comes, is discarded so the
stream stays in step; a client that never answers passes at each deadline."""

from __future__ import annotations

import asyncio
import socket
import time

import pytest
from asgiref.sync import sync_to_async
from django.core.management import call_command
from django.core.management.base import CommandError

from bots.strategies import resolve
from bots.uecda import UecdaClient
from daifugo import uecda as u
from daifugo import uecda_wire as w
from daifugo.record_schema import schema_errors
from daifugo.replay import Replayed
from daifugo.uecda_record import mask_of_written, replay_game
from daifugo.view import BOOK_UECDA, View
from places.models import Game, Place
from tests.uecda.test_match import check_stored, serve

pytestmark = pytest.mark.django_db(transaction=True)


class Sleepy:
    """Greedy, but it sleeps ``sleeps[i]`` seconds before its i-th move that plays cards
    (and ``give_sleep`` before each exchange choice); it keeps the plays it sent on time."""

    def __init__(self, sleeps: dict[int, float], give_sleep: float = 0.0):
        self.greedy = resolve("greedy", None, BOOK_UECDA)
        self.sleeps = sleeps
        self.give_sleep = give_sleep
        self.playable = 0
        self.on_time: list[str] = []
        self.late: list[str] = []
        self.gave = 0

    def __call__(self, view: View) -> u.Move | None:
        move = self.greedy(view)
        if move is None:
            return None
        sleep = self.sleeps.get(self.playable, 0.0)
        self.playable += 1
        if sleep:
            time.sleep(sleep)
            self.late.append(move.text())
        else:
            self.on_time.append(move.text())
        return move

    def give(self, hand: int, n: int) -> int:
        self.gave += 1
        time.sleep(self.give_sleep)
        return u.weakest(hand, n)


def in_thread(client: UecdaClient):
    """The client on a loop of its own, so that its sleeps hold up nobody but itself."""
    return asyncio.to_thread(asyncio.run, client.run())


def stored_actions(place_id: int, player: int) -> list[dict]:
    games = Game.objects.filter(place_id=place_id).order_by("no")
    return [a for g in games for a in g.record["actions"] if a["player"] == player]


def played(actions: list[dict]) -> list[str]:
    return [a["table"] for a in actions if a["verdict"] == "play"]


async def test_a_move_past_the_limit_is_a_pass_and_the_client_plays_on(close_thread_connections):
    task, port = await serve(3, seed="late", house=["greedy"] * 4, move_seconds=0.5)
    # its first play comes 0.3 s late: its next turn has the limit afresh, and more
    strategy = Sleepy({0: 0.8})
    summary = await asyncio.wait_for(
        in_thread(UecdaClient("127.0.0.1", port, "late", strategy)), 120
    )
    place_id, _ = await asyncio.wait_for(task, 60)
    assert summary.games == 3 and summary.rejected == 1  # the late play was answered 8
    place = await sync_to_async(check_stored)(place_id, 3)
    assert place.time_limit == 0.5
    actions = await sync_to_async(stored_actions)(place_id, 0)
    assert len(strategy.late) == 1 and strategy.on_time
    # every play sent on time was judged as sent, in order: the late table was discarded
    assert played(actions) == strategy.on_time
    # the record marks the late move beside its pass; no other move says late
    late = [a for a in actions if "late" in a]
    assert [(a["late"], a["verdict"], a["table"]) for a in late] == [(True, "pass", "")]

    def late_record() -> dict:
        games = Game.objects.filter(place_id=place_id).order_by("no")
        return next(g.record for g in games if any("late" in a for a in g.record["actions"]))

    record = await sync_to_async(late_record)()
    assert schema_errors(record) == []
    assert isinstance(replay_game(record), Replayed)


async def test_the_bank_lets_a_move_run_past_the_limit_while_it_lasts(close_thread_connections):
    task, port = await serve(
        2, seed="bank", house=["greedy"] * 4, move_seconds=0.5, bank_seconds=1.0
    )
    # 1 s: 0.5 s past the limit, from a bank of 1 s; then 1.25 s: past the 0.5 s left
    strategy = Sleepy({0: 1.0, 1: 1.25})
    summary = await asyncio.wait_for(
        in_thread(UecdaClient("127.0.0.1", port, "bank", strategy)), 120
    )
    place_id, _ = await asyncio.wait_for(task, 60)
    assert summary.rejected == 1
    actions = await sync_to_async(stored_actions)(place_id, 0)
    assert played(actions) == [strategy.late[0], *strategy.on_time]


async def test_a_late_exchange_gives_the_strongest_cards(close_thread_connections):
    task, port = await serve(8, seed="late-give", house=["random"] * 4, move_seconds=0.5)
    strategy = Sleepy({}, give_sleep=0.8)
    summary = await asyncio.wait_for(
        in_thread(UecdaClient("127.0.0.1", port, "rich", strategy)), 120
    )
    place_id, _ = await asyncio.wait_for(task, 60)
    assert strategy.gave >= 1 and summary.rejected == 0

    def records() -> list[dict]:
        return [g.record for g in Game.objects.filter(place_id=place_id).order_by("no")]

    gave = 0
    for record in await sync_to_async(records)():
        for x in record["exchange"][2:]:  # the rich give back
            if x["from"] != 0:
                continue
            hand = mask_of_written(record["dealt"][0])
            for tribute in record["exchange"][:2]:
                if tribute["to"] == 0:
                    hand |= mask_of_written(tribute["cards"])
            given = mask_of_written(x["cards"])
            assert given == u.strongest(hand, given.bit_count())
            gave += 1
    assert gave == strategy.gave
    actions = await sync_to_async(stored_actions)(place_id, 0)
    assert played(actions) == strategy.on_time  # the late exchange tables were discarded


async def test_a_client_that_never_answers_passes_at_each_deadline(close_thread_connections):
    task, port = await serve(2, seed="mute", house=["greedy"] * 4, move_seconds=0.05)
    r, wr = await asyncio.open_connection("127.0.0.1", port)
    wr.write(w.encode(w.handshake("mute")))
    assert w.decode_int(await r.readexactly(4)) == 0
    codes = []
    while True:  # it reads everything and answers nothing
        table = w.decode(await r.readexactly(w.TABLE_BYTES))
        if table[75] == 1:
            continue
        if table[77] == 1:
            codes.append(w.decode_int(await r.readexactly(4)))
        await r.readexactly(w.TABLE_BYTES)
        if w.decode_int(await r.readexactly(4)) == w.MATCH_OVER:
            break
    wr.close()
    place_id, _ = await asyncio.wait_for(task, 60)
    await sync_to_async(check_stored)(place_id, 2)
    actions = await sync_to_async(stored_actions)(place_id, 0)
    assert codes and codes == [w.REJECTED] * len(codes) == [w.REJECTED] * len(actions)
    assert all(a["verdict"] == "pass" for a in actions)


@pytest.mark.parametrize(
    "args, problem",
    [
        (["--time-limit", "0"], "the time limit must be more than 0"),
        (["--time-limit", "1", "--time-bank", "-1"], "the time bank is 0 (none) to"),
        (["--time-bank", "5"], "a time bank needs a time limit"),
    ],
)
def test_a_clock_out_of_bounds_is_refused_before_listening(args, problem):
    with pytest.raises(CommandError) as e:
        call_command("uecda_match", "--games", "1", "--port", "0", *args)
    assert problem in str(e.value)
    assert not Place.objects.exists()


def test_a_port_another_server_holds_is_refused_saying_to_give_another():
    """``make run`` listens on 42485 too: the match's default port was taken without a word
    of which option frees it."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        with pytest.raises(CommandError, match=r"(?i)address already in use.*give --port another"):
            call_command("uecda_match", "--games", "1", "--host", "127.0.0.1", "--port", port)
    assert not Place.objects.exists()
