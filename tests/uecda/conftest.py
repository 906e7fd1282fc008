"""What the UECda tests share: the shared server's listener on a port of its own."""

from __future__ import annotations

import socket

import pytest

from places.uecda.shared import SharedListener


@pytest.fixture
async def listener(close_thread_connections):
    """A listener on 127.0.0.1, a free port: ``listener.port``; on the test's own loop, as
    daphne's loop runs it."""
    sock = socket.create_server(("127.0.0.1", 0))
    sock.setblocking(False)
    shared = SharedListener(handshake_window=0.3)
    await shared.start(sock)
    shared.port = sock.getsockname()[1]
    yield shared
    await shared.close()
