"""The live frames of a UECda match on a running server: ``manage.py uecda_match`` in one
process, daphne in another, meeting through Redis (as a drop-in's spectators do).

A spectator's socket receives the match's frames in order, and they replay to the
records the server stored; the live page (Debian's Chromium) draws a locked field in a
revolution as a frame shows it. The clients are the project's, in a thread of the test:
a strategy holds the match at a chosen moment (its socket then waits, as tndhms waits
for a client) while the test looks.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
import time

import httpx
import pytest
import websockets

from bots.strategies import resolve
from bots.uecda import UecdaClient
from daifugo.view import BOOK_UECDA, View
from harness.server import ROOT, Server, free_port
from tests.e2e.marks import NEEDS_REDIS
from tests.pages.browser import VIEWPORT, require_chromium, shot, watch_errors
from tests.uecda.test_live_frames import check_frames_replay

pytestmark = [pytest.mark.e2e, NEEDS_REDIS]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    require_chromium()
    s = Server(tmp_path_factory.mktemp("uecda-live"))
    s.start()
    yield s
    s.stop()


class Hold:
    """Stops the match (the clients' thread) at the first turn each of ``whens`` holds, in
    turn, until that stop is released."""

    def __init__(self, *whens):
        self.whens = whens
        self.at = 0
        self.reached = [threading.Event() for _ in whens]
        self.released = [threading.Event() for _ in whens]

    def wrap(self, strategy):
        def choose(view: View):
            if self.at < len(self.whens) and self.whens[self.at](view):
                stop, self.at = self.at, self.at + 1
                self.reached[stop].set()
                self.released[stop].wait(120)
            return strategy(view)

        return choose

    def release(self, stop: int) -> None:
        self.released[stop].set()


class Match:
    """``uecda_match`` on the server's database and Redis, five clients in a thread."""

    def __init__(self, server: Server, games: int, seed: str, hold: Hold):
        port = free_port()
        self.games = games
        self.process = subprocess.Popen(
            [sys.executable, "manage.py", "uecda_match", "--games", str(games), "--port",
             str(port), "--host", "127.0.0.1", "--seed", seed, "--title", f"live {seed}"],
            cwd=ROOT, env=server.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        self.process.stderr.readline()  # "listening on …"
        names = ["ann", "bea", "cy", "dee", "eve"]
        kinds = ["shedder", "greedy", "shedder", "random", "shedder"]
        self.clients = [
            UecdaClient("127.0.0.1", port, n, hold.wrap(resolve(k, i, BOOK_UECDA)))
            for i, (n, k) in enumerate(zip(names, kinds, strict=True))
        ]
        self.thread = threading.Thread(target=self._play, daemon=True)
        self.thread.start()

    def _play(self) -> None:
        async def all_clients():
            await asyncio.gather(*(c.run() for c in self.clients))

        asyncio.run(all_clients())

    def place_id(self, server: Server) -> int:
        out = server.manage(
            "shell", "-c", "from places.models import Place; print(Place.objects.latest('id').id)"
        )
        return int(out.stdout.split()[-1])

    def finish(self) -> int:
        out, err = self.process.communicate(timeout=120)
        assert self.process.returncode == 0, err
        self.thread.join(30)
        return int(out.split("place ")[1].split(",")[0])


async def frames_until_over(url: str, games: int, out: list[dict], opened: threading.Event):
    async with websockets.connect(url) as socket:
        opened.set()
        while True:
            frame = json.loads(await asyncio.wait_for(socket.recv(), 60))
            out.append(frame["uecda"])
            if frame["uecda"]["game"] == games and frame["uecda"]["phase"] == "over":
                return


def test_a_spectator_socket_receives_the_frames_in_order(server):
    hold = Hold(lambda view: True)  # the first turn: the socket opens meanwhile
    match = Match(server, 6, "socket", hold)
    assert hold.reached[0].wait(60)
    place_id = match.place_id(server)
    frames: list[dict] = []
    opened = threading.Event()
    url = f"{server.ws_url}/ws/places/{place_id}/live/"
    reader = threading.Thread(
        target=lambda: asyncio.run(frames_until_over(url, 6, frames, opened)), daemon=True
    )
    reader.start()
    assert opened.wait(30)
    time.sleep(0.5)  # the socket listens before it is accepted; the relays met long before
    hold.release(0)
    assert match.finish() == place_id
    reader.join(60)
    assert frames and frames[-1]["phase"] == "over" and frames[-1]["game"] == 6
    steps = [(f["game"], f["at"]) for f in frames]
    assert steps == sorted(steps)  # in order, none twice
    text = httpx.get(f"{server.url}/places/{place_id}/records.jsonl").text
    records = [json.loads(line) for line in text.splitlines()]
    assert [r["game"] for r in records] == list(range(1, 7))
    # games 2-6 whole (game 1's first frame went before the socket opened)
    check_frames_replay(records, frames, list(range(2, 7)))


def test_the_live_page_draws_a_locked_field_in_a_revolution(server, browser):
    # held at the first turn while the page opens, then where a lock holds in a revolution
    hold = Hold(lambda view: True, lambda view: view.revolution and view.locked)
    match = Match(server, 200, "lockrev", hold)
    assert hold.reached[0].wait(60)
    place_id = match.place_id(server)
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    errors = watch_errors(page)
    try:
        page.goto(f"{server.url}/places/{place_id}/")
        page.wait_for_selector("#live[data-ready='1']")
        assert page.get_attribute("#live", "data-source") == "waiting"  # no game finished yet
        page.wait_for_selector("#conn.up")
        time.sleep(0.3)
        hold.release(0)
        assert hold.reached[1].wait(120), "no locked field in a revolution in 200 games"
        page.wait_for_function("() => document.getElementById('live').dataset.lock !== ''")
        page.wait_for_timeout(300)  # the held turn's frame is the newest: nothing follows it
        where = page.eval_on_selector("#live", "el => ({...el.dataset})")
        assert where["source"] == "live"
        assert where["order"] == "Revolution" and where["lock"] != ""
        assert page.locator("#lock").is_visible()
        assert "Locked to" in page.locator("#lock").text_content()
        assert page.locator("#felt.revolution").count() == 1
        assert page.locator("#seats .seat").count() == 5
        assert page.locator("#standings tr").count() == 5
        path = shot(page, "live-uecda-lock-revolution")
        page.screenshot(path="/tmp/uecda-live.png", full_page=True)
        assert path.exists()
        hold.release(1)
        match.finish()
        # the match over, a page that opens now shows its last game as it ended, with the
        # exchange's cards and the rich's choice (its record is public: no other place
        # deals this seed)
        page.reload()
        page.wait_for_selector("#live[data-ready='1']")
        assert page.get_attribute("#live", "data-source") == "last"
        assert page.get_attribute("#live", "data-game") == "200"
        record = httpx.get(f"{server.url}/places/{place_id}/games/200/record.json").json()
        exchange = page.locator("#exchange li")
        if record["exchange"]:
            assert exchange.count() == 4 and "chose" in exchange.nth(2).text_content()
        lines = httpx.get(f"{server.url}/places/{place_id}/records.jsonl").text.splitlines()
        totals = [sum(json.loads(line)["points"][p] for line in lines) for p in range(5)]
        shown = page.locator("#standings tr").evaluate_all(
            "rows => rows.map(r => [Number(r.dataset.player), Number(r.dataset.points)])"
        )
        assert sorted(tuple(row) for row in shown) == list(enumerate(totals))
    finally:
        hold.release(0)
        hold.release(1)
        context.close()
    assert errors == []
