"""``python -m bots --server URL --place ID --name NAME --password PW --strategy greedy``."""

from __future__ import annotations

import argparse
import asyncio
import logging
from collections.abc import Coroutine

from bots.client import Bot
from bots.strategies import STRATEGIES, resolve


def run(main: Coroutine) -> None:
    """``asyncio.run``, on uvloop when it is installed.

    A bot wakes several times a turn for the place's events; uvloop's wake-ups
    cost less (bench/place.py: the five bots' CPU a turn fell by a quarter).
    """
    try:
        import uvloop
    except ImportError:
        asyncio.run(main)
    else:
        uvloop.run(main)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bots", description="Run one AI player.")
    parser.add_argument("--server", default="http://127.0.0.1:8000")
    parser.add_argument("--place", type=int, required=True)
    parser.add_argument("--name", required=True)
    parser.add_argument("--password", required=True)
    parser.add_argument(
        "--strategy",
        default="greedy",
        metavar="NAME|MODULE:FUNCTION",
        help=f"a sample strategy ({', '.join(sorted(STRATEGIES))}) or your own function",
    )
    parser.add_argument("--transport", choices=["http", "ws"], default="http")
    parser.add_argument(
        "--ws-server",
        default=None,
        metavar="URL",
        help="where the socket is, when not at --server (e.g. ws://HOST:8081, the 2011 port)",
    )
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args(argv)
    try:
        strategy = resolve(args.strategy, args.seed)
    except ValueError as e:
        parser.error(f"--strategy {e}")
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(asctime)s %(name)s %(message)s",
    )
    bot = Bot(
        args.server,
        args.place,
        args.name,
        args.password,
        strategy,
        transport=args.transport,
        ws_server=args.ws_server,
    )
    try:
        run(bot.run())
    except KeyboardInterrupt:  # Ctrl-C (make run stops its bots so): no traceback
        raise SystemExit(130) from None
    print(f"{args.name}: {bot.turns_played} turns, {bot.results}")


if __name__ == "__main__":
    main()
