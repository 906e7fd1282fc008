"""Production with TLS, as docs/production.md sets it up: nginx with a certificate in
front of a server process; https:// pages and API, wss:// sockets, secure cookies.

A self-signed certificate for 127.0.0.1 stands for the contest's own; the clients
trust it explicitly, as they would trust a real authority's.
"""

from __future__ import annotations

import ssl
import subprocess
from pathlib import Path

import httpx
import pytest
import websockets

from harness.server import Server
from harness.stack import Stack
from tests.e2e.test_place_with_bots import create_place

pytestmark = [pytest.mark.e2e, pytest.mark.needs("nginx")]


def self_signed(folder: Path) -> tuple[Path, Path]:
    certificate, key = folder / "site.pem", folder / "site.key"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
         "-keyout", str(key), "-out", str(certificate)],
        check=True, capture_output=True,
    )  # fmt: skip
    return certificate, key


@pytest.fixture
def tls_stack(tmp_path):
    certificate, key = self_signed(tmp_path)
    server = Server(tmp_path)  # the database; its own daphne stays off
    stack = Stack(server, processes=1, tls=(certificate, key), HTTPS="1")
    yield stack, certificate
    stack.stop()
    server.stop()


async def test_pages_api_and_sockets_are_served_over_tls(tls_stack):
    stack, certificate = tls_stack
    assert stack.url.startswith("https://") and stack.ws_url.startswith("wss://")
    place_id = create_place(stack.server, games=1, seed="tls")
    trusted = ssl.create_default_context(cafile=str(certificate))
    with httpx.Client(base_url=stack.url, verify=trusted, timeout=10) as client:
        assert client.get("/healthz").json()["database"] == "ok"
        form = {"name": "alice", "password": "alice-pw", "place_id": str(place_id)}
        login = client.post("/login.json", data=form)
        assert login.status_code == 200, login.text
        assert "; Secure" in login.headers["set-cookie"]  # HTTPS=1: never on plain HTTP
        assert "max-age=31536000" in login.headers["strict-transport-security"]
        info = client.get("/get_place_info.json")  # the session works over TLS
        assert info.status_code == 200 and info.json()["player_count"] == 5

    async with websockets.connect(stack.ws_url + "/", ssl=trusted) as socket:
        # the every-place stream over wss:// (nginx relays the upgrade to the process)
        await socket.ping()
    with pytest.raises(httpx.ConnectError):  # an untrusted certificate is refused
        httpx.get(stack.url + "/healthz", timeout=10)
