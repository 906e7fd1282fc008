"""A WebSocket client's handshake over a raw asyncio connection, for the benchmarks'
crowds: what comes after it is the subclass's (:meth:`RawWebSocket.after_handshake`),
read as it comes, with no client library's work per message."""

from __future__ import annotations

import asyncio
import base64
import os


class RawWebSocket(asyncio.Protocol):
    """Connects, asks for the upgrade, and hands every byte after the ``101`` answer to
    :meth:`after_handshake`; ``opened`` is done once the answer came (or failed)."""

    head = b""  # the handshake's answer, until it is complete

    async def connect(self, host: str, port: int, path: str = "/") -> asyncio.Transport:
        """The connection, once the handshake is sent (``opened`` tells when it is answered)."""
        loop = asyncio.get_running_loop()
        self.opened = loop.create_future()
        transport, _ = await loop.create_connection(lambda: self, host, port)
        key = base64.b64encode(os.urandom(16)).decode()
        transport.write(
            f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n".encode()
        )
        self.transport = transport
        return transport

    def data_received(self, data: bytes) -> None:
        if self.opened.done():
            self.after_handshake(data)
            return
        self.head += data
        end = self.head.find(b"\r\n\r\n")
        if end < 0:
            return
        if not self.head.startswith(b"HTTP/1.1 101"):
            self.opened.set_exception(RuntimeError(self.head[:end].decode(errors="replace")))
            return
        self.opened.set_result(None)
        self.after_handshake(self.head[end + 4 :])

    def after_handshake(self, data: bytes) -> None:
        raise NotImplementedError

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.opened.done():
            self.opened.set_exception(ConnectionError("closed during the handshake"))
