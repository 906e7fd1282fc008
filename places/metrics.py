"""What an operator watches, in Prometheus' format (``/metrics``, ``places/views/health.py``).

One registry of this module's own (not the library's global one, which would
also carry whatever else a library registers). Each server process serves its
own figures: scrape every process (each listens on its own port behind nginx),
and let Prometheus add them up. Counters count what committed: they are moved
in the after-commit hook of a change (``places/services/change.py``), never for a
change that rolled back.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

REGISTRY = CollectorRegistry(auto_describe=True)

TURNS = Counter(
    "daihinmin_turns",
    "Turns settled, by outcome (play, pass, miss, timeout).",
    ["outcome"],
    registry=REGISTRY,
)
MISSES = Counter(
    "daihinmin_misses",
    "Misses, by reason (docs/rules.md); timeouts are counted as turns with outcome timeout.",
    ["reason"],
    registry=REGISTRY,
)
POST_SECONDS = Histogram(
    "daihinmin_post_seconds",
    "Server time of a player's post, from the service call to its commit.",
    buckets=(0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5),
    registry=REGISTRY,
)
DEALER_LAG_SECONDS = Histogram(
    "daihinmin_dealer_lag_seconds",
    "How late the dealer ran a due step or deadline, after its scheduled time.",
    buckets=(0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0),
    registry=REGISTRY,
)
EVENTS_SENT = Counter(
    "daihinmin_events_sent",
    "Events this process committed and handed to its sender.",
    registry=REGISTRY,
)
EVENTS_RELAYED = Counter(
    "daihinmin_events_relayed",
    "Events other processes sent that this process's relay received from Redis.",
    registry=REGISTRY,
)

RELAY_DELAY_SECONDS = Histogram(
    "daihinmin_relay_delay_seconds",
    "From another process's send of committed events to this process's relay receiving them "
    "(the two machines' clocks: on one machine, exact).",
    buckets=(0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5),
    registry=REGISTRY,
)
EVENTS_FILLED = Counter(
    "daihinmin_events_filled",
    "Events read from the event log for this process's sockets: a gap in what other "
    "processes sent, or a catch-up after Redis failed (the sequencer).",
    registry=REGISTRY,
)
LOOP_LAG_SECONDS = Histogram(
    "daihinmin_loop_lag_seconds",
    "How late the event loop ran a timer: what every socket's frames and answers wait "
    "on a busy process.",
    buckets=(0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0),
    registry=REGISTRY,
)
LIMITS_UNSHARED = Counter(
    "daihinmin_limits_unshared",
    "Requests a limit counted in this process's own memory because the shared cache "
    "(Redis) did not answer (api/counts.py), by limit (api-rate, login, downloads).",
    ["limit"],
    registry=REGISTRY,
)


def _no_sockets() -> tuple[int, int]:
    return 0, 0


#: This process's open sockets and, of those, the 2011 port's: counted by the sockets' layer,
#: which installs its count here when it loads (``places/realtime/auth.py``), since a metric
#: imports nothing of the realtime layer it measures. A process without it holds none.
_sockets: Callable[[], tuple[int, int]] = _no_sockets


def count_sockets_with(count: Callable[[], tuple[int, int]]) -> None:
    """Read the open sockets (all, the 2011 port's) with ``count`` when scraped."""
    global _sockets
    _sockets = count


class LiveFigures(Collector):
    """Figures read when scraped: places running (the database), open sockets (this process)."""

    def describe(self) -> Iterator[GaugeMetricFamily]:
        """The names alone: registering asks for them, before any database is there."""
        yield GaugeMetricFamily("daihinmin_places_running", "")
        yield GaugeMetricFamily("daihinmin_open_sockets", "")
        yield GaugeMetricFamily("daihinmin_legacy_sockets", "")

    def collect(self) -> Iterator[GaugeMetricFamily]:
        from places.models import Place

        sockets, legacy = _sockets()

        yield GaugeMetricFamily(
            "daihinmin_places_running",
            "Places running (all processes: read from the database).",
            value=Place.objects.filter(state=Place.State.RUNNING).count(),
        )
        yield GaugeMetricFamily(
            "daihinmin_open_sockets", "WebSockets open on this process.", value=sockets
        )
        yield GaugeMetricFamily(
            "daihinmin_legacy_sockets",
            "Of those, the 2011 sockets of the legacy port (LEGACY_WS_PORT).",
            value=legacy,
        )


REGISTRY.register(LiveFigures())


def settled(turns: list[tuple[str, str]], events: int) -> None:
    """A change committed: its settled turns ``(outcome, reason)`` and its events."""
    for outcome, reason in turns:
        TURNS.labels(outcome).inc()
        if outcome == "miss":
            MISSES.labels(reason or "unknown").inc()
    if events:
        EVENTS_SENT.inc(events)


#: The loop whose timers are timed (``daihinmin_loop_lag_seconds``), and how often.
_watched: asyncio.AbstractEventLoop | None = None
LAG_PROBE_SECONDS = 0.1


def watch_loop_lag() -> asyncio.Task | None:
    """Time the running loop's timers from now on (once per loop: the server's); the
    probing task when it starts."""
    global _watched
    loop = asyncio.get_running_loop()
    if _watched is loop:
        return None
    _watched = loop
    return loop.create_task(_probe_lag(loop))


async def _probe_lag(loop: asyncio.AbstractEventLoop) -> None:
    while True:
        asked = loop.time() + LAG_PROBE_SECONDS
        await asyncio.sleep(LAG_PROBE_SECONDS)
        LOOP_LAG_SECONDS.observe(max(0.0, loop.time() - asked))


def exposition() -> bytes:
    """The registry in Prometheus' text format."""
    return generate_latest(REGISTRY)
