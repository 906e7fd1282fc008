"""``manage.py demo`` (``make run``): its place is unrated, and is stopped when it stops
(issue 27, item 3: a server started later must not go on playing it without its bots)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time

import pytest

from harness.server import ROOT, Server, free_port
from tests.timing import guard

#: ``make run``'s demo: the embedded default's own (CI runs it in both steps).
pytestmark = [pytest.mark.e2e, pytest.mark.embedded_default]

READ = (
    "import json; from places.models import Place, Game; p = Place.objects.get(pk={pk}); "
    "print(json.dumps({{'state': p.state, 'rated': p.rated, "
    "'games': list(p.games.values_list('no', 'status'))}}))"
)


def place_of(server: Server, pk: int) -> dict:
    done = server.manage("shell", "-c", READ.format(pk=pk))
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGTERM])
def test_the_demo_place_is_unrated_and_stopped_with_the_demo(tmp_path, how):
    server = Server(tmp_path)  # its database and environment; the demo starts its own daphne
    demo = subprocess.Popen(
        [sys.executable, "manage.py", "demo", "--port", str(free_port()), "--pace", "0.05"],
        cwd=ROOT,
        env=server.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,  # Ctrl-C reaches the whole group: SIGINT to it
    )
    try:
        pk = None
        deadline = time.monotonic() + guard(120)
        while pk is None and time.monotonic() < deadline:
            line = demo.stdout.readline()
            assert line or demo.poll() is None, "the demo exited"
            m = re.match(r"Demo place (\d+) is playing", line)
            pk = int(m.group(1)) if m else None
        assert pk is not None, "the demo did not start its place"
        assert place_of(server, pk)["rated"] is False
        while time.monotonic() < deadline:  # a game over, the next one under way
            seen = place_of(server, pk)
            if any(status == 1 for _, status in seen["games"]):
                break
            time.sleep(0.5)
        if how == signal.SIGINT:
            os.killpg(demo.pid, signal.SIGINT)
        else:
            demo.send_signal(signal.SIGTERM)  # the demo alone: it stops its children
        out, _ = demo.communicate(timeout=guard(60))
        assert f"Demo place {pk} stopped." in out
        after = place_of(server, pk)
        assert after["state"] == "aborted", (after, out)
        assert after["games"] and all(status == 1 for _, status in after["games"])  # none in play
    finally:
        if demo.poll() is None:
            os.killpg(demo.pid, signal.SIGKILL)
            demo.wait()
        server.stop()
