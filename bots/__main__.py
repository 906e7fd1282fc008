"""``python -m bots --server URL --place ID --name NAME --password PW --strategy greedy``."""

from __future__ import annotations

import argparse
import asyncio
import logging
from collections.abc import Coroutine

from bots.client import Bot, ProtocolError
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
    parser = argparse.ArgumentParser(
        prog="python -m bots",
        description="Run one AI player in a place of a server, until the place ends; print "
        "its turns, its games by rank and its points.",
        epilog="Write a strategy, try it in the arena (python -m bots.arena), run it here: "
        "docs/bots.md.",
    )
    parser.add_argument(
        "--server", default="http://127.0.0.1:8000", metavar="URL", help="the server (%(default)s)"
    )
    parser.add_argument("--place", type=int, required=True, help="the place's id, to play in")
    parser.add_argument("--name", required=True, help="the user to play as (a player of the place)")
    parser.add_argument("--password", required=True, help="that user's password")
    parser.add_argument(
        "--strategy",
        default="greedy",
        metavar="NAME|MODULE:FUNCTION",
        help=f"a sample strategy ({', '.join(sorted(STRATEGIES))}) or your own function",
    )
    parser.add_argument(
        "--transport",
        choices=["http", "ws"],
        default="http",
        help="read the hand and post over HTTP (the 2011 way, the default) or the socket",
    )
    parser.add_argument(
        "--ws-server",
        default=None,
        metavar="URL",
        help="where the RFC 6455 socket is, when not at --server (e.g. a proxy of its own)",
    )
    parser.add_argument(
        "--seed", type=int, default=None, help="the seed of a sample strategy's choices (random)"
    )
    parser.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="log each reconnection and miss, not only trouble",
    )
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
    except ProtocolError as e:  # refused for good: a wrong password, no such place, …
        raise SystemExit(f"{args.name}: {e}") from None
    print(bot.summary())


if __name__ == "__main__":
    main()
