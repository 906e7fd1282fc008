"""End to end: the server's own UECda port (``python -m daihinmin.serve``, UECDA_PORT). A user
asks ``POST /practice.json`` for a UECda practice and plays it with ``python -m bots
--transport uecda --join-code CODE``; a place of two people and three house bots made with
``create_place --rules uecda`` is played by two such clients; a wrong code takes no seat.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time

import httpx
import pytest

from daifugo import uecda_wire as w
from harness.server import ROOT, Server, free_port
from harness.stack import Stack
from tests.e2e.marks import NEEDS_REDIS
from tests.timing import guard
from tests.uecda.test_shared import Flood

pytestmark = pytest.mark.e2e


@pytest.fixture
def server(tmp_path):
    s = Server(tmp_path, uecda=True)
    s.start()
    yield s
    s.stop()


def uecda_bot(
    server: Server, code: str, strategy: str = "greedy", port: int | None = None
) -> subprocess.Popen:
    return subprocess.Popen(
        [
            sys.executable, "-m", "bots", "--transport", "uecda",
            "--server", f"127.0.0.1:{port or server.uecda_port}", "--join-code", code,
            "--strategy", strategy,
        ],
        cwd=ROOT, env=server.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip


def finished(server: Server, place_id: int, games: int) -> list[str]:
    """Wait for the place to finish; its records' lines."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        state = httpx.get(f"{server.url}/places/{place_id}/state.json", timeout=10).json()
        if state["place"]["state"] == "finished":
            break
        time.sleep(0.2)
    lines = httpx.get(f"{server.url}/places/{place_id}/records.jsonl", timeout=10).text.splitlines()
    assert len(lines) == games
    return lines


def test_a_uecda_practice_is_played_by_the_project_s_client_with_its_code(server):
    server.manage("create_user", "pia", "--password", "pia-pw")
    answer = httpx.post(
        f"{server.url}/practice.json",
        data={"name": "pia", "password": "pia-pw", "rules": "uecda", "games": "3"},
        timeout=30,
    )
    assert answer.status_code == 200, answer.text
    doc = answer.json()
    assert doc["state"] == "waiting" and doc["uecda"]["port"] == server.uecda_port
    code = doc["uecda"]["join_code"]
    bot = uecda_bot(server, code)
    out, _ = bot.communicate(timeout=120)
    assert bot.returncode == 0, out
    assert f"player {doc['seat']}, 3 games" in out and "0 rejected" in out, out
    records = finished(server, doc["place"], 3)
    assert code not in "".join(records)
    assert all('"pia"' in line for line in records)


def test_two_people_and_three_house_bots_and_a_wrong_code_that_takes_no_seat(server):
    for name in ("ann", "bob"):
        server.manage("create_user", name, "--password", f"{name}-pw")
    for name, strategy in (
        ("h-greedy", "greedy"),
        ("h-shedder", "shedder"),
        ("h-random", "random"),
    ):
        server.manage("create_user", name, "--house", strategy)
    players = ["ann", "h-greedy", "bob", "h-shedder", "h-random"]
    made = server.manage(
        "create_place", "two", *(f"--player={p}" for p in players), "--games", "2",
        "--rules", "uecda", "--seed", "e2e",
    )  # fmt: skip
    place_id = int(made.stdout)
    lines = server.manage("join_codes", str(place_id)).stdout.split("\n")
    codes = {
        int(seat): code for _place, seat, _name, code in (line.split() for line in lines if line)
    }
    assert sorted(codes) == [0, 2]
    with socket.create_connection(("127.0.0.1", server.uecda_port), timeout=10) as wrong:
        wrong.sendall(w.encode(w.handshake("WRONGCODE23456")))
        assert wrong.recv(4) == b""  # closed, no player number: no seat
    bots = [uecda_bot(server, codes[0]), uecda_bot(server, codes[2], "shedder")]
    outs = [b.communicate(timeout=120)[0] for b in bots]
    assert [b.returncode for b in bots] == [0, 0], outs
    assert "player 0, 2 games" in outs[0] and "player 2, 2 games" in outs[1], outs
    assert outs[0].startswith("greedy (seated by its join code): player 0"), outs
    assert not any(code in out for out in outs for code in codes.values())  # never printed
    finished(server, place_id, 2)


def test_a_flood_of_silent_connections_from_one_address_keeps_no_other_from_its_seat(server):
    """The probe's flood (one address holding and re-opening silent connections as fast as
    it can) against the server itself: another address's right code is seated within
    2 s, each of three in turn. (Before: 0 of 20 seated in 8 s.)"""
    server.manage("create_user", "pia", "--password", "pia-pw")
    codes = []
    for _ in range(3):
        answer = httpx.post(
            f"{server.url}/practice.json",
            data={"name": "pia", "password": "pia-pw", "rules": "uecda", "games": "1"},
            timeout=30,
        )
        assert answer.status_code == 200, answer.text
        codes.append(answer.json()["uecda"]["join_code"])
    with Flood(server.uecda_port, ["127.0.0.2"]) as flood:
        deadline = time.monotonic() + 60
        while flood.opened < 300 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert flood.opened >= 300
        for code in codes:
            started = time.monotonic()
            with socket.create_connection(
                ("127.0.0.1", server.uecda_port), timeout=10, source_address=("127.0.0.3", 0)
            ) as client:
                client.sendall(w.encode(w.handshake(code)))
                number = client.recv(4)
            assert len(number) == 4, "closed: no seat"
            assert time.monotonic() - started < guard(2.0)


@NEEDS_REDIS
@pytest.mark.needs("nginx")
def test_in_the_production_layout_the_first_process_owns_the_uecda_port(tmp_path):
    """``serve_prod``: nginx in front of two processes; the first listens for UECda clients
    itself, and either process's practice answer names that port."""
    base = Server(tmp_path)  # the database and Redis prefix; its own daphne stays off
    port = free_port()
    stack = Stack(base, processes=2, UECDA_PORT=str(port))
    try:
        answers = []
        for name in ("pia", "quinn"):
            base.manage("create_user", name, "--password", f"{name}-pw")
            answer = httpx.post(
                f"{stack.url}/practice.json",
                data={"name": name, "password": f"{name}-pw", "rules": "uecda", "games": "2"},
                timeout=30,
            )
            assert answer.status_code == 200, answer.text
            answers.append(answer.json())
        assert [a["uecda"]["port"] for a in answers] == [port, port]
        bots = [uecda_bot(base, a["uecda"]["join_code"], port=port) for a in answers]
        outs = [b.communicate(timeout=120)[0] for b in bots]
        assert [b.returncode for b in bots] == [0, 0], outs
        for a in answers:
            base.url = stack.url  # read through nginx
            finished(base, a["place"], 2)
    finally:
        stack.stop()
        base.stop()
