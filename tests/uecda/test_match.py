"""``uecda_match`` over TCP: the project's UECda client and the stock C client play whole
matches, stored as a ``uecda`` place whose records replay with the engine; the 20060
fallback; bad clients."""

from __future__ import annotations

import asyncio
import logging
import socket
import struct
import sys
import threading
from pathlib import Path

import pytest
from asgiref.sync import sync_to_async
from django.core.management import call_command
from django.db import OperationalError, connections

from bots.strategies import resolve
from bots.uecda import Summary, UecdaClient
from daifugo import uecda as u
from daifugo import uecda_wire as w
from daifugo.record_schema import schema_errors
from daifugo.uecda_record import replay_records
from daifugo.view import BOOK_UECDA, View
from places import locked
from places.models import Game, Place, Rank
from places.reads.records import place_records
from places.reads.standings import standings
from places.services import uecda as uecda_services
from places.uecda.match import COUNT_SECONDS, count_due, serve_match
from tests.needs import STOCK_UECDA_CLIENT

pytestmark = pytest.mark.django_db(transaction=True)


def check_stored(place_id: int, games: int, names: list[str] | None = None) -> Place:
    """The place is finished with a record per game, each replayed by the engine."""
    place = Place.objects.get(id=place_id)
    assert place.state == Place.State.FINISHED and place.rules == "uecda"
    assert Game.objects.filter(place=place, status=Game.FINISHED).count() == games
    assert Rank.objects.filter(game__place=place).count() == 5 * games
    records = list(place_records(place.id, chunk=64))
    assert [r["game"] for r in records] == list(range(1, games + 1))
    assert schema_errors(records[-1]) == []
    replayed = list(replay_records(records))
    assert [type(r).__name__ for r in replayed] == ["Replayed"] * games
    if names is not None:
        seated = [p.user.username for p in place.players.order_by("seat")]
        assert seated == names
    assert sum(p.games for p in place.players.all()) == 5 * games
    return place


def test_the_profiles_count_a_matchs_games_once_count_seconds_have_passed():
    """The rule the match's writer and ``bench/uecda_write.py`` share."""
    assert not count_due(100.0, 100.0 + COUNT_SECONDS - 0.001)
    assert count_due(100.0, 100.0 + COUNT_SECONDS)
    assert count_due(100.0, 100.0 + 10 * COUNT_SECONDS)


async def serve(games: int, **kwargs) -> tuple[asyncio.Task, int]:
    bound: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    task = asyncio.create_task(
        serve_match(games, host="127.0.0.1", port=0, ready=bound.set_result, **kwargs)
    )
    return task, await bound


async def test_five_project_clients_play_a_match_whose_records_replay(close_thread_connections):
    task, port = await serve(12, seed="five")
    names = ["greedy", "shedder", "random", "greedy2", "shedder2"]
    clients = [
        UecdaClient("127.0.0.1", port, name, resolve(name.rstrip("2"), 1, BOOK_UECDA))
        for name in names
    ]
    summaries = await asyncio.wait_for(asyncio.gather(*(c.run() for c in clients)), 120)
    place_id, _ = await asyncio.wait_for(task, 60)
    assert sorted(s.player for s in summaries) == [0, 1, 2, 3, 4]
    assert all(s.games == 12 and s.rejected == 0 for s in summaries)
    by_number = [c.name for c in sorted(clients, key=lambda c: c.summary.player)]
    await sync_to_async(check_stored)(place_id, 12, by_number)
    await sync_to_async(check_think_times)(place_id, by_number)
    stored = await sync_to_async(points_by_name)(place_id)
    check_client_points(clients, stored, 12)


def points_by_name(place_id: int) -> dict[str, int]:
    return {s.name: s.points for s in standings(Place.objects.get(pk=place_id))}


def check_client_points(clients: list[UecdaClient], stored: dict[str, int], games: int) -> None:
    """Each client's last line gives its points: the stored ones, but for the games a
    20-pass draw hid its rank in (left out, and said so)."""
    for c in clients:
        s = c.summary
        line = s.line(c.name)
        assert f", {s.points} points" in line
        if s.unseen:
            assert f"({s.unseen} games left out" in line
            assert 1 * s.unseen <= stored[c.name] - s.points <= 5 * s.unseen
        else:
            assert s.points == stored[c.name], (c.name, s, stored)
    assert sum(stored.values()) == games * (5 + 4 + 3 + 2 + 1)  # UECda's 5 … 1 a game


async def test_a_client_reads_its_information_set_off_the_tables(close_thread_connections):
    """Over the port, every turn's view carries the set the tables add up to
    (``bots.uecda_seen``): exchanges included (games 2–6), none refused as inconsistent."""
    views: list[View] = []
    greedy = resolve("greedy", 1, BOOK_UECDA)

    def watched(view: View) -> u.Move | None:
        views.append(view)
        return greedy(view)

    task, port = await serve(6, seed="seen", house=["shedder", "random", "greedy"])
    clients = [
        UecdaClient("127.0.0.1", port, "watched", watched),
        UecdaClient(
            "127.0.0.1", port, "other", resolve("greedy", 2, BOOK_UECDA), protocol=w.PROTOCOL_20140
        ),
    ]
    await asyncio.wait_for(asyncio.gather(*(c.run() for c in clients)), 120)
    await asyncio.wait_for(task, 60)
    assert len(views) > 30
    assert all(v.info is not None and v.info.hand == v.hand for v in views)
    assert any(any(v.info.known) for v in views if v.info is not None)


def check_think_times(place_id: int, names: list[str]) -> None:
    """Each move's time from asking to answer is in its record, and the players' profiles
    count it (an imported log has none: tests/places/test_uecda_profiles.py)."""
    from places.reads.profiles import profile

    actions = [a for r in place_records(place_id, chunk=64) for a in r["actions"]]
    assert all(isinstance(a["ms"], float | int) and 0 <= a["ms"] < 60_000 for a in actions)
    assert any(a["ms"] > 0 for a in actions)
    for name in names:
        found = profile(name)
        assert found.think_ms_mean is not None and found.think_ms_p99 >= found.think_ms_mean / 10
        assert found.turns == sum(a["player"] == names.index(name) for a in actions)


async def play_in_order(
    protocols: list[w.Protocol], seed: str, games: int
) -> tuple[int, list[Summary]]:
    """A match of five project clients, client ``i`` seated as player ``i`` (each connects
    once the one before has its number) and speaking ``protocols[i]``."""
    task, port = await serve(games, seed=seed)
    strategies = ["greedy", "shedder", "random", "greedy", "shedder"]
    clients = [
        UecdaClient("127.0.0.1", port, f"p{i}", resolve(name, i, BOOK_UECDA), protocol=protocol)
        for i, (name, protocol) in enumerate(zip(strategies, protocols, strict=True))
    ]
    runs = []
    for c in clients:
        runs.append(asyncio.ensure_future(c.run()))
        for _ in range(1000):
            if c.summary.player >= 0 or runs[-1].done():
                break
            await asyncio.sleep(0.01)
    summaries = await asyncio.wait_for(asyncio.gather(*runs), 120)
    place_id, _ = await asyncio.wait_for(task, 60)
    return place_id, summaries


def moves_of(actions: list[dict]) -> list[dict]:
    """The actions without their think times (``ms``): what two runs of a match must share."""
    return [{k: v for k, v in a.items() if k != "ms"} for a in actions]


def games_played(place_id: int) -> list[tuple]:
    """Each game's exchange, hands and moves: what two runs of one match must share."""
    return [
        (r["choices"], r["exchange"], r["hands"], moves_of(r["actions"]))
        for r in place_records(place_id, chunk=64)
    ]


async def test_20140_clients_among_20070_ones_play_the_match_20070_clients_play(
    close_thread_connections,
):
    """Players 0 and 2 speak 20140: they read every table and send every play and every
    exchange as five 20070 clients do, the same seed giving the same games."""
    mixed = [w.PROTOCOL_20140, w.PROTOCOL_20070, w.PROTOCOL_20140, *[w.PROTOCOL_20070] * 2]
    mixed_id, summaries = await play_in_order(mixed, "protocols", 7)
    assert [s.player for s in summaries] == [0, 1, 2, 3, 4]
    assert all(s.games == 7 and s.rejected == 0 for s in summaries)
    await sync_to_async(check_stored)(mixed_id, 7, [f"p{i}" for i in range(5)])
    plain_id, _ = await play_in_order([w.PROTOCOL_20070] * 5, "protocols", 7)
    games = await sync_to_async(games_played)(mixed_id)
    assert games == await sync_to_async(games_played)(plain_id)
    assert sum(bool(exchange) for _, exchange, _, _ in games) == 6  # games 2–7


async def test_two_clients_and_three_house_bots(close_thread_connections, caplog):
    task, port = await serve(15, seed="mixed", house=["greedy", "shedder", "random"])
    clients = [
        UecdaClient("127.0.0.1", port, f"c{i}", resolve("greedy", None, BOOK_UECDA)) for i in (0, 1)
    ]
    with caplog.at_level(logging.INFO, logger="places.uecda.match"):
        await asyncio.wait_for(asyncio.gather(*(c.run() for c in clients)), 120)
        place_id, _ = await asyncio.wait_for(task, 60)
    # told the match is over, a client closes: no news (a close mid-match is logged)
    assert not [r for r in caplog.records if "disconnected" in r.message]
    names = [c.name for c in sorted(clients, key=lambda c: c.summary.player)] + [
        "house-greedy",
        "house-shedder",
        "house-random",
    ]
    await sync_to_async(check_stored)(place_id, 15, names)


async def test_the_player_number_is_the_accept_order(close_thread_connections, caplog):
    task, port = await serve(1, seed="order", house=["greedy"] * 3)
    numbers = []
    socks = []
    for name in ("first", "second"):
        r, wr = await asyncio.open_connection("127.0.0.1", port)
        wr.write(w.encode(w.handshake(name)))
        numbers.append(w.decode_int(await r.readexactly(4)))
        socks.append(wr)
    assert numbers == [0, 1]
    with caplog.at_level(logging.INFO, logger="places.uecda.match"):
        for wr in socks:
            wr.close()  # they pass from now on: the match still ends
        place_id, _ = await asyncio.wait_for(task, 60)
    assert len([r for r in caplog.records if "disconnected" in r.message]) == 2
    await sync_to_async(check_stored)(
        place_id, 1, ["first", "second", "house-greedy", "house-greedy-3", "house-greedy-4"]
    )


async def test_no_handshake_in_2_s_is_20060_native_byte_order(close_thread_connections):
    task, port = await serve(2, seed="native", house=["greedy"] * 4)
    r, wr = await asyncio.open_connection("127.0.0.1", port)
    start = asyncio.get_running_loop().time()
    number = await asyncio.wait_for(r.readexactly(4), 10)
    assert asyncio.get_running_loop().time() - start >= 1.9
    assert number == struct.pack("=i", 0)
    delivery = w.decode(await r.readexactly(w.TABLE_BYTES), w.PROTOCOL_20060)
    assert delivery[75] == 1 and delivery[78] == w.DELIVERY_MARK
    assert sum(1 for v in delivery[:75] if v) == delivery[90]  # its cards, as many as counted
    wr.close()  # a client that leaves passes from then on
    place_id, _ = await asyncio.wait_for(task, 60)
    await sync_to_async(check_stored)(place_id, 2)


async def test_a_wrong_version_takes_no_seat_and_garbage_tables_are_passes(
    close_thread_connections,
):
    task, port = await serve(3, seed="bad", house=["greedy"] * 4)
    r, wr = await asyncio.open_connection("127.0.0.1", port)
    wr.write(w.encode(w.handshake("wrong", version=20141)))
    assert await asyncio.wait_for(r.read(4), 10) == b""  # closed, no number sent
    r, wr = await asyncio.open_connection("127.0.0.1", port)
    wr.write(w.encode(w.handshake("garbage")))
    assert w.decode_int(await r.readexactly(4)) == 0
    sent = 0
    while True:  # answer every turn with a table of 7s, sent in three short writes
        table = w.decode(await r.readexactly(w.TABLE_BYTES))
        if table[75] == 1:  # a delivery: nothing to give in the first game
            continue
        if table[77] == 1:
            data = w.encode([7] * w.CELLS)
            for part in (data[:100], data[100:101], data[101:]):
                wr.write(part)
                await wr.drain()
                await asyncio.sleep(0)
            sent += 1
            assert w.decode_int(await r.readexactly(4)) in (w.ACCEPTED, w.REJECTED)
        await r.readexactly(w.TABLE_BYTES)  # the field table
        state = w.decode_int(await r.readexactly(4))
        if state == w.MATCH_OVER:
            break
        if state == w.GAME_OVER and sent >= 3:
            wr.close()  # and it leaves mid-match: it passes from then on
            break
    place_id, _ = await asyncio.wait_for(task, 60)
    place = await sync_to_async(check_stored)(place_id, 3)
    records = await sync_to_async(lambda: [g.record for g in Game.objects.filter(place=place)])()
    mine = [a for r in records for a in r["actions"] if a["player"] == 0]
    assert mine and all(a["verdict"] == "pass" for a in mine)
    assert (await sync_to_async(lambda: place.players.get(seat=0).user.username)()) == "garbage"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_the_command_prints_its_last_line(capsys):
    port = free_port()
    out: list[str] = []

    def command() -> None:
        call_command(
            "uecda_match",
            "--games",
            "5",
            "--port",
            str(port),
            "--host",
            "127.0.0.1",
            "--seed",
            "cmd",
            "--house",
            "montecarlo@20",
            "--house",
            "shedder",
            "--house",
            "random",
            "--house",
            "greedy",
            "--write-every",
            "0.2",
            "--poll",
            "0",
        )
        connections.close_all()  # the command's writes ran in this thread (its loop steps aside)

    thread = threading.Thread(target=command)
    thread.start()

    async def one_client():
        for _ in range(100):
            try:
                client = UecdaClient(
                    "127.0.0.1", port, "solo-longname", resolve("greedy", None, BOOK_UECDA)
                )
                await client.run()
                return client
            except ConnectionRefusedError:
                await asyncio.sleep(0.1)
        raise AssertionError("uecda_match never listened")

    client = asyncio.run(one_client())
    summary = client.summary
    thread.join(60)
    captured = capsys.readouterr()
    out = captured.out.splitlines()
    place = Place.objects.latest("id")
    assert out[-1].startswith(f"uecda_match: place {place.id}, 5 games in ")
    assert out[-1].endswith(" s")
    assert summary.player == 0 and summary.games == 5
    names = ["solo-long", "house-montecarlo@20", "house-shedder", "house-random", "house-greedy"]
    check_stored(place.id, 5, names)
    # the name tndhms's 9 characters cut is said so, as the client is seated
    assert (
        "uecda_match: player 0: 'solo-long' (it sent 'solo-longname': tndhms keeps a name's "
        "first 9 characters)" in captured.err
    )
    # the standings come before the last line, as place_status prints them
    stored = points_by_name(place.id)
    assert out[-7].split() == ["#", "player", "points", "1st", "2nd", "3rd", "4th", "5th"]
    rows = [line.split() for line in out[-6:-1]]
    assert {row[1]: int(row[2]) for row in rows} == stored
    assert [int(row[2]) for row in rows] == sorted(stored.values(), reverse=True)
    client.name = "solo-long"  # as stored
    check_client_points([client], stored, 5)


@pytest.mark.needs("uecda-client")
async def test_five_stock_clients_play_20_games(close_thread_connections):
    task, port = await serve(20, seed="stock")
    procs = [
        await asyncio.create_subprocess_exec(
            str(STOCK_UECDA_CLIENT),
            "-h",
            "127.0.0.1",
            "-p",
            str(port),
            "-n",
            f"stock{i}",
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
        )
        for i in range(5)
    ]
    place_id, _ = await asyncio.wait_for(task, 120)
    codes = [await asyncio.wait_for(p.wait(), 30) for p in procs]
    assert codes == [0] * 5  # each read the game state 2 and exited
    place = await sync_to_async(check_stored)(place_id, 20)
    names = await sync_to_async(lambda: sorted(p.user.username for p in place.players.all()))()
    assert names == [f"stock{i}" for i in range(5)]


async def test_games_are_stored_as_they_end_and_a_server_stopped_mid_match_keeps_them(
    close_thread_connections,
):
    task, port = await serve(10, seed="crash", house=["greedy"] * 4)
    r, wr = await asyncio.open_connection("127.0.0.1", port)
    wr.write(w.encode(w.handshake("stopper")))
    await r.readexactly(4)
    over = 0
    while over < 2:  # pass on every turn of two games
        table = w.decode(await r.readexactly(w.TABLE_BYTES))
        if table[75] == 1:
            continue
        if table[77] == 1:
            wr.write(w.encode([0] * w.CELLS))
            await r.readexactly(4)
        await r.readexactly(w.TABLE_BYTES)
        over += w.decode_int(await r.readexactly(4)) == w.GAME_OVER

    def stored() -> int:
        return Game.objects.filter(place__title="uecda_match").count()

    for _ in range(200):  # the server now waits on this client, in game 3 at most
        if await sync_to_async(stored)() >= 2:
            break
        await asyncio.sleep(0.05)
    task.cancel()  # the server stops mid-match
    with pytest.raises(asyncio.CancelledError):
        await task
    wr.close()

    def check() -> None:
        place = Place.objects.get(title="uecda_match")
        assert place.state == Place.State.RUNNING
        games = list(Game.objects.filter(place=place).order_by("no"))
        assert 2 <= len(games) <= 3  # the two it finished; the third only if it ended
        records = [g.record for g in games]
        assert all(type(r).__name__ == "Replayed" for r in replay_records(records))

    await sync_to_async(check)()


@pytest.mark.parametrize("protocol", [[], ["--protocol", "20140"]])
async def test_python_m_bots_transport_uecda_plays_a_match(protocol, close_thread_connections):
    task, port = await serve(3, seed="cli", house=["greedy"] * 4)
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bots", "--transport", "uecda",
        "--server", f"127.0.0.1:{port}", "--strategy", "shedder", *protocol,
        stdout=asyncio.subprocess.PIPE, cwd=Path(__file__).resolve().parents[2],
    )  # fmt: skip
    out, _ = await asyncio.wait_for(proc.communicate(), 120)
    place_id, _ = await asyncio.wait_for(task, 60)
    assert proc.returncode == 0
    assert out.decode().splitlines()[-1].startswith("shedder: player 0, 3 games, ")
    await sync_to_async(check_stored)(place_id, 3)


def test_the_http_transports_still_need_a_place_a_name_and_a_password(capsys):
    from bots.__main__ import main

    with pytest.raises(SystemExit) as e:
        main(["--name", "alice", "--password", "pw"])
    assert e.value.code == 2
    assert "--place is required with --transport http" in capsys.readouterr().err


async def test_a_game_s_write_that_meets_a_locked_database_is_tried_again(
    close_thread_connections, monkeypatch
):
    """Issue 44, item 11: a rated match in another process crashed on it at game 35 of 50."""
    monkeypatch.setattr(locked, "FIRST_PAUSE", 0.01)
    store = uecda_services.store_match_games
    calls = []

    def locked_once(*args, **kwargs):
        calls.append(args[1][0]["game"])
        if len(calls) == 2:  # another process held SQLite's one writer past its busy timeout
            raise OperationalError("database is locked")
        return store(*args, **kwargs)

    monkeypatch.setattr(uecda_services, "store_match_games", locked_once)
    task, _ = await serve(3, seed="locked", house=["greedy"] * 5)
    place_id, _ = await asyncio.wait_for(task, 60)
    assert calls == [1, 2, 2, 3]
    await sync_to_async(check_stored)(place_id, 3)
