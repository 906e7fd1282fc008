"""The edges of HTTP on the real server (``python -m daihinmin.serve``): what daphne and
Twisted would answer on their own, before Django, is answered as the application would.

- a URL holding raw bytes beyond ASCII is read as a browser would have sent it
  (percent-encoded), not refused with daphne's bare 400;
- a 429 goes out as "429 Too Many Requests", not Twisted's "429 Unknown Status".
"""

from __future__ import annotations

import json
import socket

import httpx
import pytest

from tests.e2e.test_place_with_bots import create_place

pytestmark = pytest.mark.e2e


def raw_get(server, target: bytes) -> tuple[bytes, dict[bytes, bytes], bytes]:
    """A GET of ``target`` exactly as given (bytes no client library would send raw):
    the status line, the headers and the body."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as s:
        s.sendall(b"GET " + target + b" HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        answer = b""
        while chunk := s.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    status, *lines = head.split(b"\r\n")
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(b":") for line in lines)}
    return status, headers, body


def test_raw_non_ascii_bytes_in_the_url_reach_django(server):
    place_id = create_place(server, games=1, pace="manual")
    status, headers, body = raw_get(server, "/places/é/results".encode())
    assert status == b"HTTP/1.1 404 Not Found"  # Django's answer for /places/%C3%A9/results
    assert b"Invalid characters in path" not in body
    # in the query: read as the percent-encoded full-width 1, refused by the parameter's rule
    status, headers, body = raw_get(server, f"/places/{place_id}/events.json?after=１".encode())
    assert status == b"HTTP/1.1 400 Bad Request"
    assert headers[b"content-type"].startswith(b"application/json")
    assert json.loads(body)["error"]["code"] == "INVALID_PARAMETER"
    # bytes that are no UTF-8 at all: still Django's answer
    status, _, body = raw_get(server, b"/places/\xff\xfe/results")
    assert status == b"HTTP/1.1 404 Not Found" and b"Invalid characters" not in body


def test_a_429_has_its_reason_phrase(server):
    place_id = create_place(server, games=1, pace="manual")
    with httpx.Client(base_url=server.url, timeout=30) as client:
        answers = [
            client.post(
                "/login.json", data={"name": "alice", "password": "wrong", "place_id": place_id}
            )
            for _ in range(6)
        ]
    assert [a.status_code for a in answers] == [401] * 5 + [429]
    assert answers[-1].reason_phrase == "Too Many Requests"
    assert answers[-1].json()["error"]["code"] == "TOO_MANY_ATTEMPTS"


def test_a_password_in_the_query_string_logs_in_and_is_not_in_the_access_log(server):
    """Issue 44, item 9: the 2011 routes take ``?name=…&password=…``; daphne's access log
    (its stdout here) writes the request with the password redacted."""
    place_id = create_place(server, games=1, pace="manual")
    with httpx.Client(base_url=server.url, timeout=30) as client:
        query = f"name=alice&password=alice-pw&place_id={place_id}"
        answer = client.post(f"/sessions.json?{query}")
        assert answer.status_code == 200, answer.text
        assert client.get("/get_hand.json").status_code == 200  # logged in by it
        refused = client.get(f"/get_hand.json?place_id={place_id}&token=dh_0123456789ab_x")
        assert refused.status_code == 200  # the cookie's: the parameter is no credential
    log = (server.workdir / "daphne.log").read_text(errors="replace")
    assert f"/sessions.json?name=alice&password=[redacted]&place_id={place_id}" in log
    assert "alice-pw" not in log and "dh_0123456789ab" not in log
