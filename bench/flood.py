"""A flood against a real server: its memory, and a player's answers meanwhile.

``--target all`` (or ``place``): one anonymous client sends ``{"action":"get_hand"}``
to ``ws://HOST/`` (or to a place's socket) as fast as it can, reconnecting when the
server closes its socket. ``--target bodies``: eight clients post 50 MB bodies to
``post_cards.json`` at once, again and again. Meanwhile a logged-in player asks for
its hand over its own socket every 50 ms. Prints the server's resident memory
before, at its peak and after, what was sent, and the player's p50/p99 answer time.

    python bench/flood.py [--seconds 60] [--target all|place|bodies]

Not a test: figures (SQLite, production settings).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402
import websockets  # noqa: E402

from harness.server import Server  # noqa: E402

NAMES = ["flood1", "flood2", "flood3", "flood4", "flood5"]
FRAME = json.dumps({"action": "get_hand"})


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def flood(url: str, stop: float, counts: dict) -> None:
    while time.monotonic() < stop:
        try:
            async with websockets.connect(url, max_queue=None) as socket:
                while time.monotonic() < stop:
                    for _ in range(200):
                        await socket.send(FRAME)
                    counts["sent"] += 200
                    await asyncio.sleep(0)
        except websockets.WebSocketException:
            counts["closed"] += 1
        except OSError:
            await asyncio.sleep(0.05)


async def big_posts(base: str, cookie: str, stop: float, counts: dict) -> None:
    body = b"card_0=" + b"2" * (50 * 1024 * 1024)

    async def one_client() -> None:
        async with httpx.AsyncClient(base_url=base, timeout=120) as client:
            while time.monotonic() < stop:
                response = await client.post(
                    "/post_cards.json",
                    content=body,
                    headers={
                        "Cookie": f"sessionid={cookie}",
                        "Content-Type": "application/x-www-form-urlencoded",
                    },
                )
                counts["sent"] += 1
                counts["closed"] += response.status_code == 413

    await asyncio.gather(*(one_client() for _ in range(8)))


async def player(url: str, cookie: str, stop: float, times: list[float]) -> None:
    async with websockets.connect(url, additional_headers={"Cookie": f"sessionid={cookie}"}) as s:
        while time.monotonic() < stop:
            started = time.perf_counter()
            await s.send(FRAME)
            while True:
                message = json.loads(await s.recv())
                if message.get("reply") == "get_hand":
                    break
            times.append((time.perf_counter() - started) * 1000)
            await asyncio.sleep(0.05)


async def watch_memory(pid: int, stop: float, peak: list[float]) -> None:
    while time.monotonic() < stop:
        peak[0] = max(peak[0], rss_mb(pid))
        await asyncio.sleep(0.2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--target", choices=["all", "place", "bodies"], default="all")
    args = parser.parse_args()
    server = Server(Path(tempfile.mkdtemp(prefix="bench-flood-")), DEBUG="0", SECRET_KEY="flood")
    server.start()
    try:
        for name in NAMES:
            server.manage("create_user", name, "--password", "pw")
        players = [a for n in NAMES for a in ("--player", n)]
        place_id = int(server.manage("create_place", "flood", *players, "--pace", "manual").stdout)
        server.manage("start_place", str(place_id))
        login = httpx.post(
            server.url + "/login.json",
            data={"name": NAMES[0], "password": "pw", "place_id": place_id},
        )
        cookie = login.cookies["sessionid"]
        place_url = f"{server.ws_url}/ws/places/{place_id}/"
        target = server.ws_url + "/" if args.target == "all" else place_url
        pid = server.process.pid

        async def run() -> tuple[dict, list[float], float]:
            stop = time.monotonic() + args.seconds
            counts = {"sent": 0, "closed": 0}
            times: list[float] = []
            peak = [0.0]
            attack = (
                big_posts(server.url, cookie, stop, counts)
                if args.target == "bodies"
                else flood(target, stop, counts)
            )
            await asyncio.gather(
                attack,
                player(place_url, cookie, stop, times),
                watch_memory(pid, stop, peak),
            )
            return counts, times, peak[0]

        before = rss_mb(pid)
        counts, times, peak = asyncio.run(run())
        time.sleep(3)
        after = rss_mb(pid)
        times.sort()
        clients = "eight clients" if args.target == "bodies" else "one client"
        print(f"flood of {args.target!r} for {args.seconds:.0f} s ({clients})")
        print(
            f"  server memory: {before:.0f} MB before, peak {peak:.0f} MB, {after:.0f} MB 3 s after"
        )
        if args.target == "bodies":
            print(f"  50 MB posts: {counts['sent']}, answered 413: {counts['closed']}")
        else:
            print(
                f"  frames sent: {counts['sent']}, sockets closed by the server: {counts['closed']}"
            )
        print(
            f"  a player's get_hand meanwhile: {len(times)} answers, "
            f"p50 {statistics.median(times):.1f} ms, p99 {times[int(len(times) * 0.99)]:.1f} ms"
        )
    finally:
        server.stop()


if __name__ == "__main__":
    main()
