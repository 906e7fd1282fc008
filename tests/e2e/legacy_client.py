"""A client of the 2011 event stream for the tests (``places/realtime/legacy.py``)."""

from __future__ import annotations

import asyncio
import json

from tests.places.test_legacy import DRAFT_76_REQUEST, SAMPLE_REQUEST

__all__ = ["DRAFT_76_REQUEST", "SAMPLE_REQUEST", "Legacy"]


class Legacy:
    """A 2011 client that reads its frames properly (whatever one read holds)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, head: bytes):
        self.reader, self.writer, self.head = reader, writer, head
        self.buffer = b""

    @classmethod
    async def connect(cls, port: int, request: bytes = SAMPLE_REQUEST) -> Legacy:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(request)
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), timeout=30)
        if b" 101 " in head.split(b"\r\n")[0] and b"Sec-WebSocket-Key1" in request:
            head += await asyncio.wait_for(reader.readexactly(16), timeout=30)
        return cls(reader, writer, head)

    async def frame(self) -> str:
        while True:
            end = self.buffer.find(b"\xff")
            if end >= 0:
                frame, self.buffer = self.buffer[:end], self.buffer[end + 1 :]
                assert frame[:1] == b"\x00", frame[:20]
                return frame[1:].decode("utf-8")
            data = await self.reader.read(65536)
            if not data:
                raise ConnectionError("closed")
            self.buffer += data

    async def place(self, place_id: int) -> list[str]:
        """This place's events, up to its end_place."""
        texts = []
        while True:
            text = await self.frame()
            event = json.loads(text)
            if event["place"] == place_id:
                texts.append(text)
                if event["operation"] == "end_place":
                    return texts

    def close(self) -> None:
        self.writer.close()
