"""A crash of ``uecda_match`` loses at most the game in play: every game its clients heard
end is in the database, whole (its record replays, its ranks, the standings), and the
place, whose process is gone, is aborted when the next one starts."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
import time

import pytest

from bots.strategies import resolve
from bots.uecda import UecdaClient
from daifugo.view import BOOK_UECDA
from harness.server import ROOT, Server, free_port

pytestmark = pytest.mark.e2e

CHECK = """
import json
from daifugo.uecda_record import replay_records
from places.models import Game, Place, ProfileTotals, Rank
from places.reads.position import Position
place = Place.objects.get()
games = list(Game.objects.filter(place=place).order_by("no"))
records = [g.record for g in games]
replayed = [type(r).__name__ for r in replay_records(records)]
ranks = sorted(Rank.objects.filter(game__place=place).values_list("game__no", "rank"))
points = [0] * 5
for r in records:
    points = [a + b for a, b in zip(points, r["points"])]
state = Position.decode(place.engine_state).state
print(json.dumps({
    "state": place.state, "nos": [g.no for g in games], "replayed": replayed,
    "ranks": ranks == sorted((g.no, k) for g in games for k in range(1, 6)),
    "points": list(state.points) == points if records else True,
    "played": sorted(p.games for p in place.players.all()),
    "profiles": sorted(ProfileTotals.objects.filter(
        user__in=place.players.values("user")).values_list("games", flat=True)),
}))
"""


def manage_json(server: Server, code: str) -> dict:
    out = server.manage("shell", "-c", code).stdout
    return json.loads(out.strip().splitlines()[-1])


def test_a_match_killed_mid_way_keeps_every_game_its_clients_saw_end(tmp_path):
    server = Server(tmp_path)
    port = free_port()
    log = tmp_path / "uecda_match.log"
    proc = subprocess.Popen(
        [sys.executable, "manage.py", "uecda_match", "--games", "500", "--port", str(port),
         "--host", "127.0.0.1", "--seed", "kill"],
        cwd=ROOT, env=server.env, stdout=subprocess.DEVNULL, stderr=log.open("w"),
    )  # fmt: skip
    clients = [
        UecdaClient("127.0.0.1", port, f"bot{i}", resolve("greedy", None, BOOK_UECDA))
        for i in range(5)
    ]

    async def play() -> None:
        while "listening on" not in log.read_text():  # a probe connection would take a seat
            await asyncio.sleep(0.05)
        runs = [asyncio.create_task(c.run()) for c in clients]
        while min(c.summary.games for c in clients) < 5:
            await asyncio.sleep(0.01)
        proc.send_signal(signal.SIGKILL)  # mid-match, no clean shutdown
        await asyncio.gather(*runs, return_exceptions=True)

    try:
        asyncio.run(asyncio.wait_for(play(), 120))
        check_after_the_kill(server, min(c.summary.games for c in clients))
    finally:
        proc.kill()
        proc.wait(10)
        server.stop()


def check_after_the_kill(server: Server, heard: int) -> None:
    found = manage_json(server, CHECK)
    assert found["state"] == "running"
    # every game its clients heard end, and at most the one in play besides
    assert found["nos"][:heard] == list(range(1, heard + 1))
    assert heard <= len(found["nos"]) <= heard + 1
    assert found["replayed"] == ["Replayed"] * len(found["nos"])
    assert found["ranks"] and found["points"]
    # the profiles count the games stored once a second: some of them, the same for all
    counted = found["played"][0]
    assert found["played"] == [counted] * 5 and counted <= len(found["nos"])
    assert found["profiles"] in ([], [counted] * 5)

    time.sleep(1.2)  # its lease (1 s in these tests) runs out: the process is gone
    aborted = manage_json(
        server,
        "import json; from places.services.uecda import abort_orphaned_matches;"
        "print(json.dumps({'ids': abort_orphaned_matches()}))",
    )
    assert len(aborted["ids"]) == 1
    after = manage_json(server, CHECK)
    assert after["state"] == "aborted" and after["nos"] == found["nos"]
    # the abort counted the rest: each game stored counted once
    assert after["played"] == after["profiles"] == [len(found["nos"])] * 5


@pytest.mark.django_db
def test_a_match_whose_process_holds_its_lease_is_left_alone_and_a_dealer_aborts_a_lost_one():
    from places.models import Place
    from places.services import lifecycle
    from places.services.uecda import abort_orphaned_matches, open_match, renew_match

    place_id = open_match("held", 10, "", [f"p{i}" for i in range(5)], False)
    renew_match(place_id)
    assert abort_orphaned_matches() == []  # its lease holds: its process plays it
    lifecycle.resume(place_id)  # a dealer took it over: its process is gone
    assert Place.objects.get(id=place_id).state == Place.State.ABORTED
