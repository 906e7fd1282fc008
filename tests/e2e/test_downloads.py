"""Downloads of records (``records.jsonl``) on the real server (daphne, as
``python -m daihinmin.serve`` runs it): a 600-game place's file (3.7 MB) held by
clients that never read costs the server no more than a bound per response; a dozen
downloads at once leave another client's ``state.json`` quick; an address holds a
bounded number of downloads at once (``429 TOO_MANY_DOWNLOADS``), released when a
client goes; a finished place's file is made once and answered ``304`` to a client
that has it.

The figures (the server's memory, ``state.json``'s times) are printed and go to
``artifacts/downloads.txt``; the bounds asserted are generous guards, far from them.
"""

from __future__ import annotations

import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack, closing, contextmanager
from pathlib import Path

import httpx
import pytest

from bench.tndhms_logs import valid_log
from harness.server import ROOT, Server
from tests.e2e.test_hardening import rss_mb

pytestmark = pytest.mark.e2e

GAMES = 600
#: The limit of downloads at once per address, for this module's server: the
#: unread clients of the memory test all hold one.
LIMIT = 20
URL = "/places/{}/records.jsonl"
REPORT = ROOT / "artifacts" / "downloads.txt"


def report(line: str) -> None:
    """A figure, printed and kept in :data:`REPORT`."""
    print("\n" + line)
    REPORT.parent.mkdir(exist_ok=True)
    with REPORT.open("a") as f:
        f.write(line + "\n")


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[Server]:
    """A server with one finished place of 600 games (a tndhms log, imported)."""
    workdir = tmp_path_factory.mktemp("downloads")
    log = workdir / "600.log"
    log.write_text("".join(valid_log(GAMES)), encoding="ascii")
    s = Server(workdir, DEALER_AUTOSTART="0", RECORDS_DOWNLOADS_PER_ADDRESS=str(LIMIT))
    imported = s.manage("import_tndhms_log", str(log)).stdout  # "place 1 'tndhms …': …"
    s.place = int(imported.split()[1])
    s.start()
    yield s
    s.stop()


@contextmanager
def unread(server: Server, path: str, clients: int) -> Iterator[list[socket.socket]]:
    """``clients`` connections that ask for ``path`` and read nothing but the status line."""
    with ExitStack() as stack:
        sockets = []
        for _ in range(clients):
            s = stack.enter_context(closing(socket.socket()))
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # before connect
            s.connect(("127.0.0.1", server.port))
            s.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
            sockets.append(s)
        for s in sockets:
            s.settimeout(30)
            assert s.recv(12).startswith(b"HTTP/1.1 200"), "a download refused"
        yield sockets


def settled_rss(pid: int, seconds: float = 3.0) -> float:
    """The server's RSS once it has done what it would with the clients (``seconds``)."""
    time.sleep(seconds)
    return rss_mb(pid)


def unread_cost(server: Server, path: str) -> tuple[bytes, float, float]:
    """The whole answer, and what ``LIMIT`` clients that never read it add to the server's
    RSS (MiB) while they are there and after they have gone."""
    whole = httpx.get(server.url + path, timeout=60)  # made once, and warm
    assert whole.status_code == 200 and len(whole.text.splitlines()) == GAMES
    pid = server.process.pid
    before = rss_mb(pid)
    with unread(server, path, LIMIT):
        held = settled_rss(pid)
        # and the server answers others meanwhile (on PostgreSQL each unread download held
        # a connection of its pool of 20 until it ended: the next request waited for one)
        state = httpx.get(f"{server.url}/places/{server.place}/state.json", timeout=10)
        assert state.status_code == 200
    after = settled_rss(pid, 1.0)
    # the server still answers, and whole
    assert httpx.get(server.url + path, timeout=60).content == whole.content
    return whole.content, held - before, after - before


def test_unread_downloads_cost_the_server_a_bounded_buffer_each(server):
    whole, grown, left = unread_cost(server, URL.format(server.place))
    report(
        f"{LIMIT} unread downloads of a finished place's {len(whole) / 1e6:.1f} MB: "
        f"the server's RSS +{grown:.1f} MiB while held, +{left:.1f} MiB after they closed"
    )
    # without back-pressure daphne held each whole answer: +74 to +165 MiB
    assert grown < 40 and left < 40


def test_unread_downloads_of_a_place_still_playing_cost_as_little(server):
    # read afresh for each answer, a chunk of games at a time (no dealer: it stays so)
    def set_state(state: str) -> None:
        server.manage(
            "shell", "-c",
            f"from places.models import Place; Place.objects.filter(pk={server.place})"
            f".update(state={state!r})",
        )  # fmt: skip

    set_state("running")
    try:
        whole, grown, left = unread_cost(server, URL.format(server.place))
    finally:
        set_state("finished")
    report(
        f"{LIMIT} unread downloads of a running place's {len(whole) / 1e6:.1f} MB: "
        f"the server's RSS +{grown:.1f} MiB while held, +{left:.1f} MiB after they closed"
    )
    # with back-pressure alone, twenty streams each reading its chunk on a thread of its
    # own: +134 MiB
    assert grown < 40 and left < 40


#: 12 threads downloading a URL again and again until stdin closes, in a process of their
#: own (in this one they would hold the measuring client back for the GIL); each answer's
#: status is printed.
DOWNLOADER = """
import sys, threading, httpx
url, stop, lock = sys.argv[1], threading.Event(), threading.Lock()
def download():
    with httpx.Client(timeout=60) as client:
        while not stop.is_set():
            status = client.get(url).status_code
            with lock:
                print(status, flush=True)
threads = [threading.Thread(target=download) for _ in range(12)]
for t in threads:
    t.start()
sys.stdin.read()
stop.set()
for t in threads:
    t.join()
"""


def state_times(client: httpx.Client, place: int, seconds: float) -> list[float]:
    """The times of ``state.json`` asked for every 50 ms for ``seconds``."""
    times = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        started = time.perf_counter()
        assert client.get(f"/places/{place}/state.json").status_code == 200
        times.append(time.perf_counter() - started)
        time.sleep(0.05)
    return times


def test_downloads_at_once_leave_another_client_quick(server):
    place = server.place
    with httpx.Client(base_url=server.url, timeout=60) as other:
        other.get(URL.format(place))  # the file made
        alone = state_times(other, place, 3)
        downloads = subprocess.Popen(
            [sys.executable, "-c", DOWNLOADER, server.url + URL.format(place)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )  # fmt: skip
        try:
            time.sleep(1)  # under way
            times = state_times(other, place, 10)
        finally:
            statuses, _ = downloads.communicate("", timeout=120)
    done = statuses.split().count("200")
    worst, median = max(times), statistics.median(times)
    report(
        f"state.json while 12 threads download a {GAMES}-game place's records.jsonl "
        f"({done} downloads in 11 s): worst {worst * 1000:.0f} ms, median "
        f"{median * 1000:.0f} ms over {len(times)} reads (alone: worst "
        f"{max(alone) * 1000:.0f} ms, median {statistics.median(alone) * 1000:.0f} ms)"
    )
    assert done >= 12 and set(statuses.split()) == {"200"}
    # before: a 0.8-3.9 s median, 5.6 s at worst; here about 0.1 s and 0.4 s
    assert median < 0.6 and worst < 3


def test_an_address_holds_a_bounded_number_of_downloads(server):
    place = server.place
    with unread(server, URL.format(place), LIMIT):
        refused = httpx.get(server.url + URL.format(place), timeout=30)
        assert refused.status_code == 429
        assert refused.json()["error"]["code"] == "TOO_MANY_DOWNLOADS"
        assert int(refused.headers["Retry-After"]) >= 1
    # the clients gone, their downloads are the address's again
    deadline = time.monotonic() + 10
    while (answer := httpx.get(server.url + URL.format(place), timeout=60)).status_code != 200:
        assert time.monotonic() < deadline, answer.text
        time.sleep(0.2)
    assert len(answer.text.splitlines()) == GAMES


def test_a_finished_place_s_file_is_made_once_and_validated(server):
    place = server.place
    first = httpx.get(server.url + URL.format(place), timeout=60)
    etag = first.headers["ETag"]
    assert first.headers["Content-Length"] == str(len(first.content))
    assert first.headers["Content-Type"] == "application/x-ndjson"
    again = httpx.get(server.url + URL.format(place), headers={"If-None-Match": etag})
    assert again.status_code == 304 and not again.content
    files = list((Path(server.workdir) / "records").glob("*.jsonl"))
    assert len(files) == 1 and files[0].read_bytes() == first.content
