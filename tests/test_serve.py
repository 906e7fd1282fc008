"""``python -m daihinmin.serve``: daphne, on uvloop unless told otherwise, and the 2011
event stream's port beside it."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.timing import guard

ROOT = Path(__file__).resolve().parents[1]
PROBE = (
    "from daihinmin.serve import use_uvloop; print(use_uvloop()); "
    "import daphne.server as s; print(type(s.twisted_loop).__module__)"
)


def loop_of_daphne(**env: str) -> list[str]:
    """What ``use_uvloop()`` answered, and the module of the loop daphne then made."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=ROOT,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=True,
        timeout=guard(60),
    )
    return done.stdout.split()


def test_daphne_runs_on_uvloop():
    assert loop_of_daphne() == ["True", "uvloop"]


def test_uvloop_0_leaves_daphne_on_asyncio_s_own_loop():
    assert loop_of_daphne(UVLOOP="0") == ["False", "asyncio.unix_events"]


def test_non_ascii_bytes_of_a_url_are_percent_encoded_as_a_browser_does():
    from daihinmin.serve import percent_encoded

    assert percent_encoded("/users/été?x=１".encode()) == b"/users/%C3%A9t%C3%A9?x=%EF%BC%91"
    assert percent_encoded(b"/a%20b/\xff") == b"/a%20b/%FF"  # what was encoded stays


def test_twisted_reads_a_request_line_holding_non_ascii_bytes_once_told(monkeypatch):
    from twisted.web import http

    from daihinmin.serve import lenient_request_lines

    monkeypatch.setattr(http, "_parseRequestLine", http._parseRequestLine)  # put back after
    line = "GET /users/é HTTP/1.1".encode()
    with pytest.raises(ValueError):
        http._parseRequestLine(line)  # Twisted's own answer: a bare 400
    lenient_request_lines()
    lenient_request_lines()  # twice: wrapped once
    assert http._parseRequestLine(line) == (b"GET", b"/users/%C3%A9", b"HTTP/1.1")


def test_codes_twisted_has_no_phrase_for_get_python_s():
    from daihinmin.serve import reason_phrase

    assert reason_phrase(429) == b"Too Many Requests"
    assert reason_phrase(422) == b"Unprocessable Content" or reason_phrase(422) == (
        b"Unprocessable Entity"
    )
    assert reason_phrase(599) is None


@pytest.mark.parametrize(
    ("setting", "what"),
    [("LEGACY_WS_PORT", "the 2011 event stream"), ("UECDA_PORT", "the UECda port")],
)
def test_a_port_of_its_own_already_taken_stops_the_launcher_saying_so(setting, what):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        ports = {"LEGACY_WS_PORT": "0", "UECDA_PORT": "0", setting: str(port)}
        done = subprocess.run(
            [sys.executable, "-m", "daihinmin.serve", "-b", "127.0.0.1", "-p", "0"]
            + ["daihinmin.asgi:application"],
            cwd=ROOT,
            env={**os.environ, "DEBUG": "1", **ports},
            capture_output=True,
            text=True,
            timeout=guard(60),
        )
    assert done.returncode == 1
    assert f"{what}'s port 127.0.0.1:{port} ({setting})" in done.stderr
    assert f"{setting} to another port, or 0 for none" in done.stderr


@pytest.mark.parametrize(
    ("uri", "logged"),
    [
        (
            "/sessions?name=alice&password=alice-pw&place_id=1",
            "/sessions?name=alice&password=[redacted]&place_id=1",
        ),
        ("/signup?name=a&Password=x&password_again=x", "/signup?name=a&Password=[redacted]"
         "&password_again=[redacted]"),
        ("/get_hand.json?place_id=1&access_token=abc", "/get_hand.json?place_id=1&access_token="
         "[redacted]"),
        ("/get_hand.json?place_id=1&t=dh_0123456789ab_s3cr3t", "/get_hand.json?place_id=1&t="
         "[redacted]"),
        ("/x?p%61ssword=y", "/x?p%61ssword=[redacted]"),
        ("/get_hand.json?place_id=1", "/get_hand.json?place_id=1"),
        ("/users/alice", "/users/alice"),
    ],
)  # fmt: skip
def test_the_access_log_writes_no_password_or_token_of_a_query_string(uri, logged):
    """Issue 44, item 9: the 2011 routes take the password in the query string."""
    from daihinmin.serve import redacted

    assert redacted(uri) == logged


def test_daphne_s_access_log_goes_through_the_redaction():
    import io

    from daphne.access import AccessLogGenerator

    from daihinmin.serve import redacted_access_log

    redacted_access_log()
    redacted_access_log()  # twice: wrapped once
    stream = io.StringIO()
    details = {"path": "/sessions?name=a&password=hunter2", "status": 200, "method": "POST",
               "client": "127.0.0.1:5", "size": 10}  # fmt: skip
    AccessLogGenerator(stream)("http", "complete", details)
    assert "hunter2" not in stream.getvalue()
    assert '"POST /sessions?name=a&password=[redacted]" 200 10' in stream.getvalue()
    assert details["path"].endswith("hunter2")  # daphne's own record is left as it was
