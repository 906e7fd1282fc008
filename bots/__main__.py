"""``python -m bots --server URL --place ID --name NAME --password PW --strategy greedy``
(or ``--token TOKEN``, or ``DAIHINMIN_TOKEN`` in the environment, instead of the password);
``python -m bots --transport uecda --server HOST:PORT --strategy greedy`` for a UECda server."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
from collections.abc import Coroutine
from typing import Any

from bots.client import Bot, ProtocolError
from bots.strategies import STRATEGIES, resolve
from daifugo.numbers import ID_MAX, PORT_MAX, option, whole
from daifugo.view import BOOK_UECDA

#: The environment variable a token may come from (kept out of the command line and its history).
TOKEN_VARIABLE = "DAIHINMIN_TOKEN"


def run(main: Coroutine) -> Any:
    """``asyncio.run``, on uvloop when it is installed.

    A bot wakes several times a turn for the place's events; uvloop's wake-ups
    cost less (bench/place.py: the five bots' CPU a turn fell by a quarter).
    """
    try:
        import uvloop
    except ImportError:
        return asyncio.run(main)
    else:
        return uvloop.run(main)


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
    parser.add_argument(
        "--place", type=option(ID_MAX, 1), help="the place's id, to play in (not with uecda)"
    )
    parser.add_argument(
        "--name", help="the user to play as (a player of the place); uecda: the name sent"
    )
    parser.add_argument("--password", help="that user's password (not with uecda)")
    parser.add_argument(
        "--join-code",
        metavar="CODE",
        help="uecda: a seat's join code (a practice's, a tournament's), sent as the name; "
        "kept out of what the client prints",
    )
    parser.add_argument(
        "--rejoin",
        action="store_true",
        help="uecda: after each match, connect again with the same join code (a tournament "
        "entrant's: its next table), until the server seats the client no more",
    )
    parser.add_argument(
        "--protocol",
        type=int,
        choices=[20070, 20140],
        default=20070,
        help="uecda: the protocol the handshake names: 20070 (480-byte tables, the stock "
        "client's; the default) or 20140 (tables as 33 characters)",
    )
    parser.add_argument(
        "--token",
        default=os.environ.get(TOKEN_VARIABLE) or None,
        help=f"a personal API token of that user (made on the site's /account page), sent as "
        f"Authorization: Bearer instead of the password (default: ${TOKEN_VARIABLE})",
    )
    parser.add_argument(
        "--strategy",
        default="greedy",
        metavar="NAME|MODULE:FUNCTION",
        help=f"a sample strategy ({', '.join(sorted(STRATEGIES))}) or your own function",
    )
    parser.add_argument(
        "--transport",
        choices=["http", "ws", "uecda"],
        default="http",
        help="read the hand and post over HTTP (the 2011 way, the default) or the socket; "
        "uecda: play a UECda match over tndhms's TCP protocol (--server HOST:PORT)",
    )
    parser.add_argument(
        "--rules",
        default="uecda",
        help="with uecda: the rules the server plays, e.g. uecda+no-stairs (docs/rules.md "
        '"Variants"): the strategy is offered only the moves they allow (default %(default)s)',
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
    if args.transport == "uecda":
        play_uecda(parser, args)
        return
    for needed in ("place", "name"):
        if getattr(args, needed) is None:
            parser.error(f"--{needed} is required with --transport {args.transport}")
    if args.password is not None:
        args.token = None  # a password given on the command line wins over the environment
    elif args.token is None:
        parser.error(f"--password or --token (or ${TOKEN_VARIABLE}) is required")
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
        token=args.token,
    )
    try:
        run(bot.run())
    except KeyboardInterrupt:  # Ctrl-C (make run stops its bots so): no traceback
        raise SystemExit(130) from None
    except ProtocolError as e:  # refused for good: a wrong password, no such place, …
        raise SystemExit(f"{args.name}: {e}") from None
    print(bot.summary())


def play_uecda(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """One UECda client until the server ends the match (``bots.uecda``); with
    ``--rejoin``, match after match until the server seats it no more."""
    from bots.uecda import PORT, UecdaClient, UecdaProtocolError, play_tables
    from daifugo.rules import UECDA_NAME, UnknownRules, rules_named
    from daifugo.uecda_wire import Protocol

    try:
        strategy = resolve(args.strategy, args.seed, BOOK_UECDA)
    except ValueError as e:
        parser.error(f"--strategy {e}")
    try:
        rules = rules_named(args.rules)
    except UnknownRules as e:
        parser.error(f"--rules {e}")
    if rules.name != UECDA_NAME:
        parser.error(f"--rules: a UECda client plays the {UECDA_NAME} rules or a variant of them")
    server = args.server
    if "://" in server:  # the HTTP default: its host, tndhms's port
        server = server.split("://", 1)[1].split("/", 1)[0].rsplit(":", 1)[0]
    host, _, port = server.rpartition(":") if ":" in server else (server, "", str(PORT))
    port_number = whole(port, PORT_MAX)
    if port_number is None:
        parser.error(f"--server {args.server[:60]!r}: not HOST:PORT")
    if args.join_code and args.name:
        parser.error("--join-code is the name the client sends: give one of them")
    name = args.name or args.strategy.rsplit(":", 1)[-1][:9]
    label = f"{name} (seated by its join code)" if args.join_code else name
    sent = args.join_code or name
    protocol = Protocol(args.protocol)
    try:
        if args.rejoin:
            run(
                play_tables(
                    host,
                    port_number,
                    sent,
                    strategy,
                    lambda s: print(s.line(label), flush=True),
                    rules,
                    protocol,
                )
            )
            return
        summary = run(UecdaClient(host, port_number, sent, strategy, rules, protocol).run())
    except KeyboardInterrupt:
        raise SystemExit(130) from None
    except (OSError, asyncio.IncompleteReadError, UecdaProtocolError) as e:
        raise SystemExit(f"{label}: {e}") from None
    print(summary.line(label))


if __name__ == "__main__":
    main()
