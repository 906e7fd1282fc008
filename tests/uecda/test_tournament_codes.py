"""UECda tournaments on the shared port, one join code an entrant (places/reads/join_codes.py):
the code seats its client at the entrant's next table waiting for it, in table order, and
again after each match; a wrong code, another tournament's, no table waiting, a second
connection for a seat in play, and a server restart each do what docs/tournaments.md says.
Then five entrants' processes (``python -m bots … --strategy stock --rejoin``) play a
round robin and a duplicate tournament to their standings.

The listener runs on the test's loop, as in test_shared.py; the entrants' clients are
processes of their own.
"""

from __future__ import annotations

import asyncio
import io
import logging
import socket
import sys
from collections import Counter
from pathlib import Path

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth import get_user_model
from django.core.management import call_command

from daifugo import uecda_wire as w
from daifugo.deal import drawn_ranks
from daifugo.rules import UECDA_NAME
from places import errors, services
from places.models import EntrantCode, Game, JoinCode, Place, Player, Tournament
from places.reads.join_codes import NoSeatNow, seat_of_code, tournament_codes
from places.reads.records import place_records
from places.reads.tournaments import tournament as tournament_view
from places.services import accounts, uecda_seats
from places.services.house import make_house_user
from places.services.tournaments import table_seed
from places.uecda.shared import SharedListener
from tests.needs import STOCK_UECDA_CLIENT
from tests.uecda.test_match import check_stored
from tests.uecda.test_shared import knock, matches_done, refused, user

pytestmark = pytest.mark.django_db(transaction=True)

ROOT = Path(__file__).resolve().parents[2]


def cup(
    names: list[str], *, start: bool = True, title: str = "cup", **settings
) -> tuple[Tournament, dict[str, str]]:
    """A uecda tournament of these users (made when new), started unless told; its codes
    by name."""
    for name in names:
        if not get_user_model().objects.filter(username=name).exists():
            user(name)
    t = services.create_tournament(title, names, rules=UECDA_NAME, **settings)
    if start:
        assert services.start_tournament(t.id) == 0  # no table starts without its clients
    return t, {name: code for _, name, code in tournament_codes(t.id)}


def tables_of(t: Tournament, name: str) -> list[Player]:
    """The entrant's seats, in table order."""
    return list(
        Player.objects.filter(place__tournament=t, user__username=name)
        .select_related("place")
        .order_by("place__table_no")
    )


async def seated(port: int, code: str) -> tuple[int, asyncio.StreamReader, asyncio.StreamWriter]:
    """Connect with ``code`` and read the player number it is given."""
    reader, writer = await knock(port, code)
    return w.decode_int(await asyncio.wait_for(reader.readexactly(4), 10)), reader, writer


async def until(check, seconds: float = 20) -> None:
    """Wait for ``check()`` (a database read, run in a thread) to hold."""
    for _ in range(int(seconds / 0.05)):
        if await sync_to_async(check)():
            return
        await asyncio.sleep(0.05)
    raise AssertionError("it never held")


def state_of(place_id: int) -> str:
    return Place.objects.get(pk=place_id).state


# -- the codes -----------------------------------------------------------------------------


def test_each_entrant_with_a_client_gets_one_code_and_the_tables_get_none(
    close_thread_connections,
):
    make_house_user("h-house", "shedder")
    names = ["e1", "e2", "e3", "e4", "e5", "h-house"]
    t, codes = cup(names, start=False)
    assert sorted(codes) == names[:5]  # the house entrant needs none
    assert len(set(codes.values())) == 5
    for code in codes.values():
        assert len(code) == uecda_seats.CODE_LENGTH == w.HANDSHAKE_CHARS
        assert set(code) <= set(uecda_seats.ALPHABET)
    assert not JoinCode.objects.filter(player__place__tournament=t).exists()
    assert EntrantCode.objects.filter(entrant__tournament=t).count() == 5
    # the organiser's list, in entrant order; each user reads only their own
    out = io.StringIO()
    call_command("join_codes", "--tournament", str(t.id), stdout=out)
    assert out.getvalue().split("\n")[:5] == [
        f"{i} e{i + 1} {codes[f'e{i + 1}']}" for i in range(5)
    ]
    e2 = t.entrants.get(user__username="e2").user_id
    assert tournament_codes(t.id, e2) == [(1, "e2", codes["e2"])]


def test_a_2011_tournament_has_no_codes_and_a_uecda_table_seats_entrants_only(
    close_thread_connections,
):
    names = [user(f"p{i}").username for i in range(5)]
    plain = services.create_tournament("plain", names, game_count=1)
    assert not EntrantCode.objects.filter(entrant__tournament=plain).exists()
    t, _ = cup([f"q{i}" for i in range(5)], start=False, title="cup")
    table = Place.objects.filter(tournament=t).order_by("table_no").first()
    outsider = user("outsider").username
    seats = [p.user.username for p in table.players.order_by("seat")]
    with pytest.raises(errors.Refused) as refusal:  # the admin's reseat of a waiting table
        services.reseat_place(table.id, [outsider, *seats[1:]])
    assert refusal.value.code == errors.INVALID_PLACE
    assert "seats its entrants only" in refusal.value.message
    assert [p.user.username for p in table.players.order_by("seat")] == seats


def test_the_code_opens_the_entrants_first_table_not_over_in_table_order(
    close_thread_connections,
):
    names = [f"o{i}" for i in range(5)]
    t, codes = cup(names, start=False)
    assert seat_of_code(codes["o0"]) == NoSeatNow(f"tournament {t.id} has not started")
    services.start_tournament(t.id)
    mine = tables_of(t, "o0")
    assert len(mine) == 5
    found = seat_of_code(codes["o0"])
    assert (found.place_id, found.seat, found.name, found.coded) == (
        mine[0].place_id, mine[0].seat, "o0", 5,
    )  # fmt: skip
    services.stop_place(mine[0].place_id)  # over (aborted): the next one
    found = seat_of_code(codes["o0"])
    assert (found.place_id, found.seat) == (mine[1].place_id, mine[1].seat)
    uecda_seats.begin_match(mine[1].place_id)  # in play: the entrant's already
    assert seat_of_code(codes["o0"]) == NoSeatNow(
        f"o0's table 2 of tournament {t.id} (place {mine[1].place_id}) is being played"
    )
    for player in mine[1:]:
        services.stop_place(player.place_id)
    assert seat_of_code(codes["o0"]) == NoSeatNow(f"o0 has no table left in tournament {t.id}")
    wrong = ("A" if codes["o0"][0] != "A" else "B") + codes["o0"][1:]
    assert seat_of_code(wrong) is None


def test_a_code_of_another_tournament_seats_only_at_that_tournaments_table(
    close_thread_connections,
):
    names = [f"x{i}" for i in range(5)]
    first, first_codes = cup(names, title="first")
    second, second_codes = cup(names, title="second", seed="second")
    assert first_codes["x3"] != second_codes["x3"]
    for t, codes in ((first, first_codes), (second, second_codes)):
        found = seat_of_code(codes["x3"])
        table = tables_of(t, "x3")[0]
        assert (found.place_id, found.seat) == (table.place_id, table.seat)
    services.stop_place(tables_of(first, "x3")[0].place_id)  # no sway over the other's
    found = seat_of_code(second_codes["x3"])
    assert found.place_id == tables_of(second, "x3")[0].place_id


# -- over the port -------------------------------------------------------------------------


async def test_before_the_start_and_with_no_table_left_a_right_code_is_closed_with_its_reason(
    listener, caplog
):
    t, codes = await sync_to_async(cup)([f"n{i}" for i in range(5)], start=False)
    with caplog.at_level(logging.INFO, logger="places.uecda.shared"):
        reader, writer = await knock(listener.port, codes["n0"])
        assert await refused(reader)
        writer.close()
        await sync_to_async(services.start_tournament)(t.id)

        def stop_all() -> None:
            for place in Place.objects.filter(tournament=t):
                services.stop_place(place.id)

        await sync_to_async(stop_all)()
        reader, writer = await knock(listener.port, codes["n0"])
        assert await refused(reader)
        writer.close()
    lines = [r.getMessage() for r in caplog.records]
    assert any(f"tournament {t.id} has not started: closed" in m for m in lines)
    assert any(f"n0 has no table left in tournament {t.id}: closed" in m for m in lines)
    assert all(codes["n0"] not in m for m in lines)
    assert "127.0.0.1" not in listener.strikes  # a right code is no wrong guess


async def test_the_project_s_client_seated_nowhere_at_its_first_try_ends_with_status_1(listener):
    _, codes = await sync_to_async(cup)([f"f{i}" for i in range(5)], start=False)
    status, out = await entrant_process(listener.port, codes["f0"], "bots")
    assert status == 1 and "the server gave no seat" in out and codes["f0"] not in out


async def test_a_second_connection_for_a_seat_waiting_or_in_play_takes_nothing(listener, caplog):
    names = [f"s{i}" for i in range(5)]
    t, codes = await sync_to_async(cup)(names, game_count=2, time_limit=0.05)
    first = await sync_to_async(tables_of)(t, "s0")
    number, reader0, writer0 = await seated(listener.port, codes["s0"])
    assert number == first[0].seat
    again_r, again_w = await knock(listener.port, codes["s0"])  # the seat is connected
    assert await refused(again_r)
    again_w.close()
    others = [await seated(listener.port, codes[n]) for n in names[1:]]  # the table starts
    await until(lambda: state_of(first[0].place_id) == Place.State.RUNNING)
    with caplog.at_level(logging.INFO, logger="places.uecda.shared"):
        again_r, again_w = await knock(listener.port, codes["s0"])  # its table is in play
        assert await refused(again_r)
        again_w.close()
    assert any("is being played: closed" in r.getMessage() for r in caplog.records)
    # the match goes on with the first connection (silent clients: every move a pass)
    await matches_done(listener)
    await until(lambda: state_of(first[0].place_id) == Place.State.FINISHED)
    for _, _, writer in [(number, reader0, writer0), *others]:
        writer.close()
    # and the code now seats at the entrant's next table
    number, _, writer = await seated(listener.port, codes["s0"])
    assert number == first[1].seat
    assert first[1].place_id in listener.waiting
    writer.close()


async def test_after_a_restart_the_same_code_seats_at_the_next_table(close_thread_connections):
    names = [f"r{i}" for i in range(5)]
    t, codes = await sync_to_async(cup)(names, game_count=50, time_limit=0.05)
    mine = await sync_to_async(tables_of)(t, "r0")
    ports = []
    for _ in range(2):  # the server before its stop, and after
        sock = socket.create_server(("127.0.0.1", 0))
        sock.setblocking(False)
        shared = SharedListener(handshake_window=0.3)
        await shared.start(sock)  # the second aborts the match the first left running
        ports.append(sock.getsockname()[1])
        try:
            if len(ports) == 1:
                conns = [await seated(ports[0], codes[n]) for n in names]
                await until(lambda: state_of(mine[0].place_id) == Place.State.RUNNING)
                continue
            assert await sync_to_async(state_of)(mine[0].place_id) == Place.State.ABORTED
            number, _, writer = await seated(ports[1], codes["r0"])
            assert number == mine[1].seat and mine[1].place_id in shared.waiting
            writer.close()
        finally:
            await shared.close()  # the first: the server stops mid-match
    for _, _, writer in conns:
        writer.close()


# -- whole tournaments, one process an entrant ---------------------------------------------

GAMES = 3


async def entrant_process(port: int, code: str, client: str) -> tuple[int, str]:
    """An entrant's one process with its code, to its end: its exit status and what it
    printed. ``bots``: ``python -m bots --transport uecda --strategy stock --rejoin``;
    ``stock``: the stock C client in docs/tournaments.md's shell loop, run again after
    each match (status 0) until it gets no seat (status 1)."""
    if client == "bots":
        command = [
            sys.executable, "-m", "bots", "--transport", "uecda", "--server",
            f"127.0.0.1:{port}", "--join-code", code, "--strategy", "stock", "--seed", "1",
            "--rejoin",
        ]  # fmt: skip
    else:
        loop = f'while "$0" -h 127.0.0.1 -p {port} -n {code}; do :; done'
        command = ["sh", "-c", loop, str(STOCK_UECDA_CLIENT)]
    process = await asyncio.create_subprocess_exec(
        *command, cwd=ROOT, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT
    )
    out, _ = await asyncio.wait_for(process.communicate(), 300)
    return process.returncode, out.decode(errors="replace")


@pytest.mark.parametrize(
    ("format", "client"),
    [
        ("round-robin", "bots"),
        ("duplicate", "bots"),
        pytest.param("duplicate", "stock", marks=pytest.mark.needs("uecda-client")),
    ],
)
async def test_five_entrants_processes_play_a_tournament_to_its_standings(listener, format, client):
    names = [f"{format[0]}{client[0]}{i}" for i in range(5)]
    seed = f"{format}-{client}"
    t, codes = await sync_to_async(cup)(names, format=format, game_count=GAMES, seed=seed)
    done = await asyncio.gather(*(entrant_process(listener.port, codes[n], client) for n in names))
    await matches_done(listener)
    tables = await sync_to_async(Place.objects.filter(tournament=t).count)()
    assert tables == 5  # five entrants: five tables, each of all five (duplicate: rotations)
    for status, out in done:
        assert status == 0, out
        if client == "bots":  # a line a match
            lines = out.strip().split("\n")
            assert len(lines) == tables and all(f"{GAMES} games" in line for line in lines), out
            assert all(code not in out for code in codes.values())  # kept out of its output

    def over() -> Tournament:
        services.advance_running()  # the dealer's round
        return Tournament.objects.get(pk=t.id)

    assert (await sync_to_async(over)()).state == Tournament.State.FINISHED
    view = await sync_to_async(tournament_view)(t.id)
    assert sorted(s.name for s in view.standings) == names
    assert all(s.games == GAMES * tables for s in view.standings)
    assert sum(s.points for s in view.standings) == 15 * GAMES * tables  # 5 … 1 points a game
    places = await sync_to_async(list)(Place.objects.filter(tournament=t).order_by("table_no"))
    for place in places:
        await sync_to_async(check_stored)(place.id, GAMES)  # records that replay
    if format == "duplicate":
        await sync_to_async(check_duplicate)(places, names, seed)


def check_duplicate(places: list[Place], names: list[str], seed: str) -> None:
    """The five rotations of the deal set deal game k alike, player number by player
    number (seats, deal and exchange ranks from the seed), and each entrant holds each
    player number's hand once."""
    assert all(p.duplicate_deals and p.seed == places[0].seed for p in places)
    assert places[0].seed == table_seed(seed, 0)
    for no in range(1, GAMES + 1):
        records = [next(r for r in place_records(p.id) if r["game"] == no) for p in places]
        first = records[0]
        assert first["place"]["duplicate_deals"] is True
        assert first["ranks_before"] == (None if no == 1 else list(drawn_ranks(places[0].seed, no)))
        for r in records[1:]:
            for key in ("seats", "ranks_before", "deal_from", "dealt"):
                assert r[key] == first[key], (no, key)
        held: Counter = Counter()
        for place, record in zip(places, records, strict=True):
            for player in place.players.select_related("user"):
                held[(player.user.username, tuple(record["dealt"][player.seat]))] += 1
        assert len(held) == 25 and set(held.values()) == {1}
        assert {name for name, _ in held} == set(names)
    assert Game.objects.filter(place__in=places, status=Game.FINISHED).count() == 5 * GAMES


def test_a_disabled_entrants_code_opens_no_table(close_thread_connections):
    """Issue 44, item 6: an entrant's code is refused once the account is disabled."""
    t, codes = cup([f"d{i}" for i in range(5)])
    assert seat_of_code(codes["d2"]).name == "d2"
    accounts.disable([t.entrants.get(user__username="d2").user_id])
    assert seat_of_code(codes["d2"]) == NoSeatNow("d2's account is disabled")
    assert seat_of_code(codes["d3"]).name == "d3"  # the others' codes still open their tables
