"""Round trips between a client and its database server, counted on the wire.

A TCP proxy in a thread: it forwards both ways and counts the client's turns to
speak (data from the client after the server last spoke, or first). A client that
waits for each answer before it sends again speaks once a round trip, whatever
its driver does inside; so the count is the round trips, not the statements.
Used by the tests (``tests/places/test_round_trips.py``) and ``bench/turn.py``.
"""

from __future__ import annotations

import selectors
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager


class RoundTripProxy:
    """``127.0.0.1:port`` forwarded to ``target``; :attr:`round_trips` so far."""

    def __init__(self, target: tuple[str, int]):
        self.target = target
        #: Round trips so far, per connection through the proxy (in the order they came).
        self.by_connection: list[int] = []
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self._lock = threading.Lock()
        self._stop = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            server = socket.create_connection(self.target)
            for s in (client, server):
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            with self._lock:
                self.by_connection.append(0)
                index = len(self.by_connection) - 1
            threading.Thread(target=self._pump, args=(client, server, index), daemon=True).start()

    @property
    def round_trips(self) -> int:
        """Of all connections (a pool may open another now and then)."""
        return sum(self.by_connection)

    def _pump(self, client: socket.socket, server: socket.socket, index: int) -> None:
        selector = selectors.DefaultSelector()
        selector.register(client, selectors.EVENT_READ, server)
        selector.register(server, selectors.EVENT_READ, client)
        last_from_client = False
        try:
            while not self._stop.is_set():
                for key, _ in selector.select(timeout=0.5):
                    source: socket.socket = key.fileobj  # type: ignore[assignment]
                    data = source.recv(65536)
                    if not data:
                        return
                    from_client = source is client
                    if from_client and not last_from_client:
                        with self._lock:
                            self.by_connection[index] += 1
                    last_from_client = from_client
                    key.data.sendall(data)
        except OSError:
            return
        finally:
            selector.close()
            client.close()
            server.close()

    def close(self) -> None:
        self._stop.set()
        self._listener.close()


@contextmanager
def counting(connection) -> Iterator[RoundTripProxy]:
    """Django's ``connection`` (PostgreSQL) reconnected through a proxy for the block.

    The connection is closed before and after, and its pool with it (Django keeps one
    pool per alias, made from the settings on first use).
    """
    settings = connection.settings_dict
    saved = (settings["HOST"], settings["PORT"])
    proxy = RoundTripProxy((saved[0] or "127.0.0.1", int(saved[1] or 5432)))

    def reconnect(host: str, port: object) -> None:
        connection.close()
        if hasattr(connection, "close_pool"):
            connection.close_pool()
        settings["HOST"], settings["PORT"] = host, port

    reconnect("127.0.0.1", proxy.port)
    try:
        yield proxy
    finally:
        reconnect(*saved)
        proxy.close()
