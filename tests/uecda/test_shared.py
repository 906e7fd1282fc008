"""UECda places on the shared server's port (places/uecda/shared.py): each client takes its
seat with its join code; a place's match starts once its seats are connected, is played
against its house bots and stored; a wrong code, no code, or a code already in use gets
no seat and is told nothing.

The listener runs on the test's own loop, on a port of its own, as daphne's loop runs it.
"""

from __future__ import annotations

import asyncio
import json
import logging
import select
import socket
import threading
import time
from io import StringIO

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth import get_user_model
from django.core.management import call_command

from bots.strategies import resolve
from bots.uecda import UecdaClient, play_tables
from daifugo import uecda_wire as w
from daifugo.rules import UECDA_NAME
from daifugo.view import BOOK_UECDA
from places import errors, services
from places.models import Game, JoinCode, Place, Tournament
from places.reads.join_codes import NoSeatNow, seat_of_code, tournament_codes
from places.reads.records import place_records
from places.reads.tournaments import tournament as tournament_view
from places.services import accounts, committed, uecda_seats
from places.services.house import house_users, make_house_user, make_wire_user
from places.services.practice import start_practice
from places.uecda.shared import SharedListener
from tests.timing import guard
from tests.uecda.test_match import check_stored

pytestmark = pytest.mark.django_db(transaction=True)


async def matches_done(shared: SharedListener) -> None:
    while shared.matches:
        await asyncio.wait_for(asyncio.gather(*shared.matches), 120)


def user(name: str):
    return make_wire_user(name, f"{name}-pw")[0]


def practice(name: str, games: int, seed: str = "") -> services.Practice:
    return start_practice(
        user(name).pk, ["greedy", "shedder", "random", "greedy"], game_count=games,
        seed=seed, rules=UECDA_NAME,
    )  # fmt: skip


def place_of_two(games: int) -> tuple[Place, dict[int, str]]:
    """A uecda place of two people (seats 1 and 3) and three house bots."""
    house = [u.username for u in house_users("greedy", 2) + house_users("shedder", 1)]
    names = [house[0], user("ann").username, house[1], user("bob").username, house[2]]
    place = services.create_place("two", names, game_count=games, seed="two", rules=UECDA_NAME)
    codes = dict(JoinCode.objects.filter(player__place=place).values_list("player__seat", "code"))
    return place, codes


async def knock(port: int, name: str | None) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """Connect and send a 20070 handshake naming ``name`` (None: send nothing, as 20060)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    if name is not None:
        writer.write(w.encode(w.handshake(name)))
    return reader, writer


async def knock_from(
    address: str, port: int, name: str | None
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """:func:`knock` from another loopback address (127.0.0.2, …): another client's machine."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(address, 0))
    if name is not None:
        writer.write(w.encode(w.handshake(name)))
    return reader, writer


async def refused(reader: asyncio.StreamReader) -> bool:
    """Closed with nothing said: no player number."""
    return await asyncio.wait_for(reader.read(4), 10) == b""


def client(port: int, code: str, strategy: str = "greedy") -> UecdaClient:
    return UecdaClient("127.0.0.1", port, code, resolve(strategy, 1, BOOK_UECDA))


# -- codes -------------------------------------------------------------------------------------


def test_each_seat_not_played_by_the_house_gets_a_code_of_14_unambiguous_characters(
    close_thread_connections,
):
    place, codes = place_of_two(1)
    assert sorted(codes) == [1, 3]
    for code in codes.values():
        assert len(code) == uecda_seats.CODE_LENGTH == w.HANDSHAKE_CHARS
        assert set(code) <= set(uecda_seats.ALPHABET)
        assert not set(code) & set("01OIL")
    assert codes[1] != codes[3]
    found = seat_of_code(codes[3])
    assert (found.place_id, found.seat, found.name, found.coded) == (place.id, 3, "bob", 2)
    assert seat_of_code(codes[3][:-1] + "X" if codes[3][-1] != "X" else "Y") is None


def test_a_2011_place_has_no_codes_and_a_uecda_place_is_not_started_by_staff(
    close_thread_connections,
):
    names = [user(n).username for n in ("u1", "u2", "u3", "u4", "u5")]
    plain = services.create_place("plain", names)
    assert not JoinCode.objects.filter(player__place=plain).exists()
    place, _ = place_of_two(1)
    with pytest.raises(errors.Refused) as refusal:
        services.start_place(place.id)
    assert refusal.value.code == errors.INVALID_PLACE
    assert Place.objects.get(pk=place.id).state == Place.State.WAITING


def test_a_uecda_place_of_five_house_bots_is_refused_it_would_never_start(
    close_thread_connections,
):
    names = [u.username for u in house_users("greedy", 5)]
    with pytest.raises(errors.Refused) as refusal:
        services.create_place("house", names, rules=UECDA_NAME)
    assert refusal.value.code == errors.INVALID_PLACE
    assert not Place.objects.exists()


# -- playing -----------------------------------------------------------------------------------


async def test_a_practice_client_plays_its_match_alone_against_four_house_bots(listener):
    done = await sync_to_async(practice)("pia", 4, seed="alone")
    assert done.place.state == Place.State.WAITING and done.join_code
    summary = await asyncio.wait_for(client(listener.port, done.join_code).run(), 120)
    await matches_done(listener)
    assert summary.player == done.seat and summary.games == 4 and summary.rejected == 0
    place = await sync_to_async(check_stored)(done.place.id, 4, done.players)
    assert place.seed == "alone"
    records = await sync_to_async(lambda: json.dumps(list(place_records(place.id))))()
    assert done.join_code not in records  # the client's name was its code: never recorded


async def test_two_clients_and_three_house_bots_start_once_both_are_connected(listener):
    place, codes = await sync_to_async(place_of_two)(3)
    ann = asyncio.ensure_future(client(listener.port, codes[1]).run())
    await asyncio.sleep(0.3)
    assert await sync_to_async(lambda: Place.objects.get(pk=place.id).state)() == "waiting"
    bob = client(listener.port, codes[3], "shedder")
    summaries = await asyncio.wait_for(asyncio.gather(ann, bob.run()), 120)
    await matches_done(listener)
    assert [s.player for s in summaries] == [1, 3]
    assert all(s.games == 3 for s in summaries)
    stored = await sync_to_async(check_stored)(place.id, 3)
    assert stored.seed  # drawn when the match started, as uecda_match draws one


async def test_a_20140_client_plays_its_seat_beside_a_20070_one(listener):
    """The handshake's version is each client's protocol for the match."""
    place, codes = await sync_to_async(place_of_two)(4)
    ann = UecdaClient(
        "127.0.0.1",
        listener.port,
        codes[1],
        resolve("greedy", 1, BOOK_UECDA),
        protocol=w.PROTOCOL_20140,
    )
    bob = client(listener.port, codes[3], "shedder")
    summaries = await asyncio.wait_for(asyncio.gather(ann.run(), bob.run()), 120)
    await matches_done(listener)
    assert [s.player for s in summaries] == [1, 3]
    assert all(s.games == 4 and s.rejected == 0 for s in summaries)
    await sync_to_async(check_stored)(place.id, 4)


async def test_a_wrong_code_or_none_takes_no_seat_and_is_told_nothing(listener, caplog):
    done = await sync_to_async(practice)("pia", 1)
    code = done.join_code
    wrong = ("A" if code[0] != "A" else "B") + code[1:]
    with caplog.at_level(logging.INFO, logger="places.uecda.shared"):
        for name in (wrong, code[:9], "", None):  # None: a 20060 client, which has no name
            reader, writer = await knock(listener.port, name)
            assert await refused(reader)
            writer.close()
    # one line for the address; the others are counted, in one line when its window ends
    assert sum("no seat for its name" in r.message for r in caplog.records) == 1
    assert listener.strikes["127.0.0.1"].wrong == 4
    assert all(code not in r.getMessage() for r in caplog.records)
    assert not listener.waiting and not listener.matches
    place = await sync_to_async(Place.objects.get)(pk=done.place.id)
    assert place.state == Place.State.WAITING  # and the right code still plays it
    summary = await asyncio.wait_for(client(listener.port, code).run(), 120)
    await matches_done(listener)
    assert summary.games == 1


async def test_any_name_cells_as_a_code_are_refused_cleanly(listener, caplog):
    """Every class of value in the 14 cells of a code (issue 36, item 4): no seat, no error."""
    from tests.uecda.test_bad_input import BAD_NAMES, raw_handshake

    done = await sync_to_async(practice)("pia", 1)
    with caplog.at_level(logging.INFO, logger="places.uecda.shared"):
        for cells in [*BAD_NAMES, [ord(c) for c in done.join_code[:13]] + [0xD800]]:
            reader, writer = await asyncio.open_connection("127.0.0.1", listener.port)
            writer.write(raw_handshake(cells))
            assert await refused(reader)
            writer.close()
    assert any("no seat for its name" in r.message for r in caplog.records)
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]  # no traceback
    summary = await asyncio.wait_for(client(listener.port, done.join_code).run(), 120)
    await matches_done(listener)
    assert summary.games == 1


async def test_a_code_in_use_is_refused_and_a_client_that_leaves_frees_its_seat(listener):
    place, codes = await sync_to_async(place_of_two)(1)
    first_r, first_w = await knock(listener.port, codes[1])
    assert w.decode_int(await first_r.readexactly(4)) == 1
    again_r, again_w = await knock(listener.port, codes[1])
    assert await refused(again_r)
    again_w.close()
    first_w.close()  # leaves before its match: the seat is free again
    for _ in range(100):
        if not listener.waiting:
            break
        await asyncio.sleep(0.05)
    assert not listener.waiting
    summaries = await asyncio.wait_for(
        asyncio.gather(
            client(listener.port, codes[1]).run(), client(listener.port, codes[3]).run()
        ),
        120,
    )
    await matches_done(listener)
    assert [s.games for s in summaries] == [1, 1]
    await sync_to_async(check_stored)(place.id, 1)


async def test_a_finished_places_code_opens_nothing(listener):
    done = await sync_to_async(practice)("pia", 1)
    await asyncio.wait_for(client(listener.port, done.join_code).run(), 120)
    await matches_done(listener)
    reader, writer = await knock(listener.port, done.join_code)
    assert await refused(reader)
    writer.close()


async def test_a_disabled_accounts_code_takes_no_seat_and_is_no_wrong_guess(listener, caplog):
    """Issue 44, item 6: its sessions and tokens are refused, and so is its seat's code."""
    done = await sync_to_async(practice)("pia", 1)
    await sync_to_async(
        lambda: accounts.disable(
            done.place.players.values_list("user", flat=True).filter(seat=done.seat)
        )
    )()
    assert await sync_to_async(seat_of_code)(done.join_code) == NoSeatNow(
        "pia's account is disabled"
    )
    with caplog.at_level(logging.INFO, logger="places.uecda.shared"):
        reader, writer = await knock(listener.port, done.join_code)
        assert await refused(reader)  # no player number, 0 or any
        writer.close()
    assert any("pia's account is disabled" in r.getMessage() for r in caplog.records)
    assert "127.0.0.1" not in listener.strikes or listener.strikes["127.0.0.1"].wrong == 0
    assert not listener.waiting and not listener.matches


async def test_a_silent_client_passes_at_its_place_s_time_limit_and_the_match_ends(
    listener, settings
):
    settings.PRACTICE_MIN_TIME_LIMIT = 0.05
    done = await sync_to_async(
        lambda: start_practice(
            user("sil").pk,
            ["greedy", "shedder", "random", "greedy"],
            game_count=2,
            time_limit=0.05,
            seed="silent",
            rules=UECDA_NAME,
        )  # fmt: skip
    )()
    reader, writer = await knock(listener.port, done.join_code)
    assert w.decode_int(await reader.readexactly(4)) == done.seat
    running = None
    for _ in range(200):  # the match starts: the place is this process's, on a lease
        running = await sync_to_async(Place.objects.get)(pk=done.place.id)
        if running.state == Place.State.RUNNING:
            break
        await asyncio.sleep(0.02)
    assert running.state == Place.State.RUNNING
    assert running.driver and running.lease_until is not None
    await matches_done(listener)  # the client never sent a table: each of its moves a pass
    writer.close()
    place = await sync_to_async(check_stored)(done.place.id, 2, done.players)
    records = await sync_to_async(lambda: list(place_records(place.id)))()
    silent = [a for r in records for a in r["actions"] if a["player"] == done.seat]
    assert silent and all(a["table"] == "" and a["verdict"] == "pass" for a in silent)


async def test_connections_past_the_handshake_bound_are_closed_at_once(
    close_thread_connections, caplog
):
    sock = socket.create_server(("127.0.0.1", 0))
    sock.setblocking(False)
    shared = SharedListener(handshake_window=5, max_pending=3)
    await shared.start(sock)
    port = sock.getsockname()[1]
    try:
        with caplog.at_level(logging.INFO, logger="places.uecda.shared"):
            silent = [await knock(port, None) for _ in range(3)]
            for _ in range(100):
                if len(shared._handshakes) == 3:
                    break
                await asyncio.sleep(0.01)
            reader, writer = await knock(port, None)
            assert await asyncio.wait_for(reader.read(4), 2) == b""  # long before the 5 s
            writer.close()
        assert sum("handshakes pending: closed" in r.message for r in caplog.records) == 1
        assert not shared.waiting and not shared.matches
    finally:
        for _, w_ in silent:
            w_.close()
        await shared.close()


class Flood:
    """Silent connections from some addresses, in a thread of their own, as many as each
    address can hold (up to ``hold``): one the server closes is re-opened at once."""

    def __init__(self, port: int, addresses: list[str], hold: int = 70):
        self.port, self.addresses, self.hold = port, addresses, hold
        self.opened = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        held: dict[str, list[socket.socket]] = {a: [] for a in self.addresses}
        try:
            while not self.stop.is_set():
                for address, socks in held.items():
                    closed, _, _ = select.select(socks, [], [], 0) if socks else ([], [], [])
                    for s in closed:  # the server closed it (a refusal, its window's end)
                        socks.remove(s)
                        s.close()
                    while len(socks) < self.hold:
                        s = socket.socket()
                        s.bind((address, 0))
                        try:
                            s.connect(("127.0.0.1", self.port))
                        except OSError:
                            s.close()
                            break
                        socks.append(s)
                        self.opened += 1
                time.sleep(0.002)
        finally:
            for socks in held.values():
                for s in socks:
                    s.close()

    def __enter__(self) -> Flood:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        self.thread.join(30)


@pytest.mark.parametrize("flooders", [1, 8])
async def test_addresses_flooding_silent_connections_keep_no_other_address_from_its_seat(
    flooders, close_thread_connections
):
    """One address (or eight: more than the port's slots, 16 each) holds and re-opens
    silent connections as fast as it can; a right code from another address is seated
    within 2 s, every time. (Before: 64 slots for all, and the flood took them all.)"""
    sock = socket.create_server(("127.0.0.1", 0))
    sock.setblocking(False)
    shared = SharedListener(wrong_codes=10**6)  # the handshake bounds alone, tndhms's 2 s
    await shared.start(sock)
    port = sock.getsockname()[1]
    codes = [(await sync_to_async(practice)(f"p{flooders}{i}", 1)).join_code for i in range(3)]
    # more than the port's 64 slots: one address 70, eight 20 each
    flood = Flood(port, [f"127.0.0.{2 + i}" for i in range(flooders)], 70 if flooders == 1 else 20)
    try:
        with flood:
            for _ in range(1000):  # the slots are taken: the flood's first round is in
                if flood.opened >= 200:
                    break
                await asyncio.sleep(0.01)
            assert flood.opened >= 200
            for code in codes:  # one after the other, while the flood goes on
                started = time.monotonic()
                reader, writer = await knock_from("127.0.0.99", port, code)
                number = await asyncio.wait_for(reader.read(4), 10)
                seated_in = time.monotonic() - started
                writer.close()
                assert len(number) == 4, "closed: no seat"
                assert seated_in < 2.0
            assert all(len(held) <= 16 for held in shared.pending.values())
            assert sum(len(held) for held in shared.pending.values()) <= 64
        await matches_done(shared)
    finally:
        await shared.close()


async def test_an_address_past_its_wrong_codes_is_closed_unheard_and_others_are_seated(
    close_thread_connections, caplog
):
    """40 wrong codes from one address: the first 5 looked up, the rest closed as they come;
    then that address's right code is refused while another address's is seated; a
    bounded number of log lines, not one a guess."""
    sock = socket.create_server(("127.0.0.1", 0))
    sock.setblocking(False)
    shared = SharedListener(handshake_window=0.3, wrong_codes=5, wrong_codes_seconds=60)
    await shared.start(sock)
    port = sock.getsockname()[1]
    mine = await sync_to_async(practice)("guess", 1)
    theirs = await sync_to_async(practice)("other", 1)
    wrong = "23456789ABCDEF"
    try:
        with caplog.at_level(logging.INFO, logger="places.uecda.shared"):
            for _ in range(40):
                reader, writer = await knock_from("127.0.0.2", port, wrong)
                assert await refused(reader)
                writer.close()
            reader, writer = await knock_from("127.0.0.2", port, mine.join_code)
            assert await refused(reader)  # held back: however right its code
            writer.close()
            reader, writer = await knock_from("127.0.0.3", port, theirs.join_code)
            assert w.decode_int(await asyncio.wait_for(reader.readexactly(4), 10)) == theirs.seat
            writer.close()
            await matches_done(shared)
        assert shared.strikes["127.0.0.2"].wrong == 5
        assert shared.strikes["127.0.0.2"].turned_away == 36
        lines = [r.getMessage() for r in caplog.records if "127.0.0.2" in r.getMessage()]
        assert len(lines) == 3, lines  # its first wrong name, its hold, its first turned away
        assert await sync_to_async(lambda: Place.objects.get(pk=mine.place.id).state)() == (
            Place.State.WAITING
        )
    finally:
        await shared.close()


async def test_an_address_s_window_ends_with_one_line_counting_it_and_its_codes_work_again(
    close_thread_connections, caplog
):
    sock = socket.create_server(("127.0.0.1", 0))
    sock.setblocking(False)
    shared = SharedListener(handshake_window=0.3, wrong_codes=5, wrong_codes_seconds=3)
    await shared.start(sock)
    port = sock.getsockname()[1]
    done = await sync_to_async(practice)("again", 1)
    try:
        with caplog.at_level(logging.INFO, logger="places.uecda.shared"):
            for _ in range(12):
                reader, writer = await knock_from("127.0.0.2", port, "23456789ABCDEF")
                assert await refused(reader)
                writer.close()
            summary: list[str] = []
            for _ in range(200):  # the window ends 3 s after the first wrong code
                summary = [r.getMessage() for r in caplog.records if " in 3 s: " in r.getMessage()]
                if summary:
                    break
                await asyncio.sleep(0.05)
            assert summary == [
                "UECda address 127.0.0.2 in 3 s: 5 names opened no seat, "
                "7 connections closed as they came"
            ]
            reader, writer = await knock_from("127.0.0.2", port, done.join_code)
            assert w.decode_int(await asyncio.wait_for(reader.readexactly(4), 10)) == done.seat
            writer.close()
            await matches_done(shared)
    finally:
        await shared.close()


async def one_waiting(
    listener,
) -> tuple[Place, list[str], asyncio.StreamReader, asyncio.StreamWriter]:
    """A place of two seats, one of them taken by a client that waits for the other."""
    place, codes = await sync_to_async(place_of_two)(2)
    reader, writer = await knock(listener.port, codes[1])
    assert w.decode_int(await reader.readexactly(4)) == 1
    for _ in range(100):
        if listener.waiting:
            break
        await asyncio.sleep(0.02)
    assert place.id in listener.waiting
    return place, codes, reader, writer


async def test_staff_stop_of_a_waiting_place_ends_its_seated_clients_with_the_end_flag(listener):
    """Before: the seated client was left open, told nothing."""
    place, codes, reader, writer = await one_waiting(listener)
    await sync_to_async(services.stop_place)(place.id)
    stopped = time.monotonic()
    assert w.decode_int(await asyncio.wait_for(reader.readexactly(4), 5)) == w.MATCH_OVER
    assert await asyncio.wait_for(reader.read(1), 5) == b""  # and closed
    assert time.monotonic() - stopped < guard(1.0)
    writer.close()
    assert not listener.waiting
    reader, writer = await knock(listener.port, codes[3])  # its seats take nobody any more
    assert await refused(reader)
    writer.close()
    assert await sync_to_async(Game.objects.filter(place_id=place.id).count)() == 0


async def test_the_project_s_client_ends_cleanly_when_its_waiting_place_is_stopped(listener):
    place, codes = await sync_to_async(place_of_two)(2)
    ann = asyncio.ensure_future(client(listener.port, codes[1]).run())
    for _ in range(200):
        if listener.waiting:
            break
        await asyncio.sleep(0.02)
    await sync_to_async(services.stop_place)(place.id)
    summary = await asyncio.wait_for(ann, 10)
    assert (summary.player, summary.games) == (1, 0)


async def test_stop_place_from_another_process_without_redis_ends_the_waiting_clients(
    listener, monkeypatch
):
    """Issue 44, item 12: the command's ``end_place`` reached no socket of the server."""
    monkeypatch.setattr(committed, "_send", lambda place_id, batch: None)  # not here
    place, codes, reader, writer = await one_waiting(listener)
    out = StringIO()
    await sync_to_async(call_command)("stop_place", str(place.id), stdout=out)
    assert out.getvalue().strip() == f"place {place.id} aborted"
    stopped = time.monotonic()
    assert w.decode_int(await asyncio.wait_for(reader.readexactly(4), 10)) == w.MATCH_OVER
    assert await asyncio.wait_for(reader.read(1), 10) == b""  # and closed
    print(f"\nthe client of a place stopped elsewhere closed in {time.monotonic() - stopped:.2f} s")
    writer.close()
    assert not listener.waiting
    reader, writer = await knock(listener.port, codes[3])  # its seats take nobody any more
    assert await refused(reader)
    writer.close()


def test_a_match_a_stopped_server_left_running_is_aborted_by_the_next_listener(
    close_thread_connections,
):
    place, _ = place_of_two(2)
    uecda_seats.begin_match(place.id)
    assert uecda_seats.abort_unplayed() == [place.id]
    assert Place.objects.get(pk=place.id).state == Place.State.ABORTED
    with pytest.raises(errors.Refused) as refusal:
        uecda_seats.begin_match(place.id)
    assert refusal.value.code == errors.ALREADY_OVER


def test_a_practice_no_client_joined_expires_when_its_user_asks_for_another(
    close_thread_connections, settings
):
    settings.PRACTICE_PLACES_PER_USER = 1
    settings.UECDA_PRACTICE_WAIT = 0
    first = practice("pia", 1)
    second = practice("pia", 1)  # the first waited too long: aborted, not counted
    assert Place.objects.get(pk=first.place.id).state == Place.State.ABORTED
    assert Place.objects.get(pk=second.place.id).state == Place.State.WAITING
    assert get_user_model().objects.filter(username="pia").count() == 1


async def test_a_playing_seat_s_code_is_refused_and_staff_stop_ends_the_match(listener):
    done = await sync_to_async(practice)("pia", 100)
    play = asyncio.ensure_future(client(listener.port, done.join_code).run())
    games = Game.objects.filter(place_id=done.place.id)
    for _ in range(400):
        if await sync_to_async(games.exists)():
            break
        await asyncio.sleep(0.05)
    reader, writer = await knock(listener.port, done.join_code)  # its seat is playing
    assert await refused(reader)
    writer.close()
    await sync_to_async(services.stop_place)(done.place.id)
    await matches_done(listener)
    with pytest.raises((asyncio.IncompleteReadError, ConnectionError)):  # closed mid-match
        await asyncio.wait_for(play, 30)
    place = await sync_to_async(Place.objects.get)(pk=done.place.id)
    assert place.state == Place.State.ABORTED
    stored = await sync_to_async(games.count)()
    assert 1 <= stored < 100
    await asyncio.sleep(0.2)
    assert await sync_to_async(games.count)() == stored  # nothing written after the stop


# -- tournaments -------------------------------------------------------------------------------


async def test_a_uecda_tournament_is_played_by_its_entrants_clients_table_by_table(listener):
    """Six entrants, two of them house bots: each client plays its tables in table order,
    with the entrant's one code, connecting again after each match (``play_tables``)."""
    people, house = ["t1", "t2", "t3", "t4"], ["t5-house", "t6-house"]

    def make() -> tuple[int, dict[str, str]]:
        for name in people:
            user(name)
        for name in house:
            make_house_user(name, "shedder")
        t = services.create_tournament(
            "cup", people + house, game_count=2, seed="cup", rules=UECDA_NAME
        )
        assert services.start_tournament(t.id) == 0  # no table starts without its clients
        assert all(p.rules == UECDA_NAME for p in Place.objects.filter(tournament=t))
        return t.id, {name: code for _, name, code in tournament_codes(t.id)}

    tournament_id, codes = await sync_to_async(make)()
    assert sorted(codes) == people  # the house entrants need none

    async def entrant(name: str) -> int:
        summaries: list = []
        strategy = resolve("greedy", 1, BOOK_UECDA)
        await play_tables("127.0.0.1", listener.port, codes[name], strategy, summaries.append)
        return sum(s.games for s in summaries)

    played = await asyncio.wait_for(asyncio.gather(*(entrant(n) for n in people)), 240)
    await matches_done(listener)
    tables_of = await sync_to_async(
        lambda: {
            n: Place.objects.filter(tournament_id=tournament_id, players__user__username=n).count()
            for n in people
        }
    )()
    assert played == [2 * tables_of[n] for n in people]

    def over() -> Tournament:
        services.advance_running()  # the dealer's round
        return Tournament.objects.get(pk=tournament_id)

    t = await sync_to_async(over)()
    assert t.state == Tournament.State.FINISHED
    view = await sync_to_async(tournament_view)(t.id)
    tables = await sync_to_async(Place.objects.filter(tournament=t).count)()
    assert sum(s.points for s in view.standings) == 15 * 2 * tables  # 5 … 1 points a game
    for place in await sync_to_async(list)(Place.objects.filter(tournament=t)):
        await sync_to_async(check_stored)(place.id, 2)
