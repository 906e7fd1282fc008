"""``uecda_match --watch PORT``: the match's pages, served by the command's own process.

A drop-in match on the embedded defaults (SQLite, the in-memory channel layer, no
Redis) sends its live frames (:mod:`places.uecda.watch`) to the sockets of its own
process only: so the process serves the pages too. The project's ASGI app (its pages,
their JSON, the live sockets, the static files) is served by daphne as
``python -m daihinmin.serve`` serves it, from the match's own event loop
(:func:`daihinmin.serve.serve_from_loop`), without the dealer or the analyst
(``daihinmin.asgi.router``, not ``application``: this process plays its match and no
other place). The loop steps aside for its database work
(:mod:`places.realtime.between`): the pages' sockets wait while a game is stored, as
the match's clients do; Django's views run in asgiref's thread, as in any server.

Once the match is over the pages stay, for its replays and results, until SIGINT
(Ctrl-C) or SIGTERM, or for ``--watch-linger`` seconds.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
from collections.abc import Awaitable, Callable

from daihinmin.serve import daphne_loop, listening_socket, serve_from_loop
from places.realtime import broadcast

#: A match's result: its place and its seconds (``serve_match``).
Result = tuple[int, float]

#: Addresses that listen on every interface: the pages are opened on the loopback's.
_EVERY_INTERFACE = {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}


def say(line: str) -> None:
    """A line of the command's progress (stderr, as its ``listening on`` line)."""
    print(f"uecda_match: {line}", file=sys.stderr, flush=True)


def site_url(host: str, port: int) -> str:
    """The address a browser on this machine opens for pages served on ``host:port``."""
    host = _EVERY_INTERFACE.get(host.strip("[]"), host.strip("[]"))
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


class WatchPages:
    """The pages of one match: a port bound at once (``OSError`` when it is taken), served
    from the match's loop by :meth:`around`."""

    def __init__(self, host: str, port: int, linger: float | None, over: Callable[[Result], None]):
        self.sock = listening_socket(host, port)
        self.url = site_url(host, self.sock.getsockname()[1])
        self.linger = linger
        self.over = over  # told the match's result at its end, before the pages stay
        self.page = f"{self.url}/"  # the match's live page, once its place is made

    @staticmethod
    def loop() -> asyncio.AbstractEventLoop:
        """The loop the match runs on: daphne's."""
        return daphne_loop()

    def opened(self, place_id: int) -> None:
        """The match's place is open: its live page's address."""
        self.page = f"{self.url}/places/{place_id}/"
        say(f"watch at {self.page}")

    async def around(self, match: Awaitable[Result]) -> Result:
        """Serve the pages, play ``match``, tell ``over`` its result, and serve on (:meth:`stay`)."""
        from daihinmin.asgi import router

        await broadcast.attach()  # the live frames are built (watch_for) and reach the sockets
        logging.getLogger("daphne.server").setLevel(logging.WARNING)  # the lines below say it
        serve_from_loop(router, self.sock)
        say(f"watch at {self.url}/ (the match's own page follows once its players are seated)")
        result = await match
        self.over(result)
        await self.stay()
        return result

    async def stay(self) -> None:
        """Serve the pages on for ``linger`` seconds, or (None) until SIGINT or SIGTERM."""
        loop = asyncio.get_running_loop()
        stop = asyncio.Event()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, stop.set)
        until = "until Ctrl-C or SIGTERM" if self.linger is None else f"for {self.linger:g} s"
        say(f"the match is over; its pages stay at {self.page} {until}")
        try:
            await asyncio.wait_for(stop.wait(), self.linger)
        except TimeoutError:
            pass
        finally:
            for signum in (signal.SIGINT, signal.SIGTERM):
                loop.remove_signal_handler(signum)
