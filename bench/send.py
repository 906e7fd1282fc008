"""What sending one committed change costs a process without a server's loop (a command,
a test, a bench) on a layer shared with other processes (Redis), by the two ways it can:
``async_to_sync`` (a new loop, and a new Redis connection, each send) and the process's
own sender loop (``places.realtime.broadcast._own_loop``). Not a test: figures.

    REDIS_URL=redis://127.0.0.1:6379/0 python bench/send.py [--sends 300] [--runs 3]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sends", type=int, default=300)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    if not os.environ.get("REDIS_URL"):
        sys.exit("send.py: set REDIS_URL (the cost it measures is a shared layer's)")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "daihinmin.settings")
    os.environ.setdefault("REDIS_PREFIX", f"bench-send-{os.getpid()}")
    import django

    django.setup()
    from asgiref.sync import async_to_sync
    from channels.layers import get_channel_layer

    from places.realtime import broadcast

    layer = get_channel_layer()
    place = 10**9  # a place no listener anywhere hears

    def by_async_to_sync(seq: int) -> None:
        async_to_sync(broadcast._send)(layer, place, [(seq, "{}")])

    def by_own_loop(seq: int) -> None:
        coroutine = broadcast._send(layer, place, [(seq, "{}")])
        asyncio.run_coroutine_threadsafe(coroutine, broadcast._own_loop()).result()

    medians = {}
    for name, send in (("async_to_sync", by_async_to_sync), ("own loop", by_own_loop)):
        runs = []
        for _ in range(args.runs):
            started = time.perf_counter()
            for seq in range(args.sends):
                send(seq)
            runs.append((time.perf_counter() - started) / args.sends * 1000)
        medians[name] = statistics.median(runs)
        print(f"{name}: {medians[name]:.2f} ms a send (median of {args.runs} runs of {args.sends})")
    print(f"ratio: {medians['async_to_sync'] / medians['own loop']:.1f}x")


if __name__ == "__main__":
    main()
