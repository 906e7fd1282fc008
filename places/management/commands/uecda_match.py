"""``uecda_match --games N [--port 42485] [--rules uecda+11back | --config tndhms.cfg]
[--seed S] [--house STRATEGY …] [--time-limit S]``: a tndhms drop-in.

Listens for UECda clients (UECDA.md §1–4), seats the first five in the order they
connected (``--house`` strategies, played in process, take the last seats, one
each), plays the match by the ``uecda`` rules (or a variant of them: ``--rules``, or
the rules of a tndhms cfg file with ``--config``, which also gives ``GAME_NUMBER``
and ``PORT_NUMBER`` unless ``--games`` and ``--port`` say otherwise) and stores each
game as it ends in a new ``uecda`` place: results, records, profiles (ratings with
``--rated``). The last line says ``uecda_match: place P, N games in S s``. ``--watch
PORT`` serves the match's pages from this process too (``places/uecda/watch_pages.py``).
"""

from __future__ import annotations

import argparse
import asyncio
import errno
import secrets
from collections.abc import Callable, Coroutine, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from django.core.management.base import CommandError
from django.db import connections

from bots.strategies import names_for, resolve
from daifugo.numbers import ID_MAX, PORT_MAX, option
from daifugo.rules import UECDA, UECDA_NAME, Rules, UnknownRules, rules_named
from daifugo.tndhms_cfg import CfgError, read_cfg
from daifugo.uecda_wire import NAME_CHARS
from daifugo.view import BOOK_UECDA
from places.errors import Refused
from places.management.base import OneLineCommand, refused, standings_lines
from places.models import Place
from places.reads.standings import standings
from places.realtime.between import run_stepping
from places.uecda.match import POLL_SECONDS, PORT, Connection, serve_match
from places.uecda.watch_pages import WatchPages, say


def run_loop(main: Coroutine, pages: WatchPages | None = None) -> Any:
    """``asyncio.run``, on uvloop when it is installed (its wake-ups cost less), the loop
    stepping aside for the database work (:mod:`places.realtime.between`: it serves
    this match alone, and ``pages`` of ``--watch``, on daphne's loop)."""
    if pages is not None:
        return run_stepping(pages.around(main), pages.loop)
    try:
        import uvloop
    except ImportError:
        return run_stepping(main, None)
    return run_stepping(main, uvloop.new_event_loop)


class Command(OneLineCommand):
    help = (
        "Play a UECda match over TCP as tndhms does (port 42485): the first five clients "
        "to connect, or fewer with house bots, N games by the uecda rules, stored as a place."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--games", type=option(ID_MAX), default=None, help="games in the match (or the cfg's)"
        )
        parser.add_argument(
            "--port", type=option(PORT_MAX), default=None, help=f"the port ({PORT}, or the cfg's)"
        )
        rules = parser.add_mutually_exclusive_group()
        rules.add_argument(
            "--rules",
            default=UECDA_NAME,
            help="the uecda rules or a variant of them, e.g. uecda+11back+no-lock (docs/rules.md)",
        )
        rules.add_argument(
            "--config",
            metavar="TNDHMS_CFG",
            help="a tndhms cfg file: its rules, GAME_NUMBER and PORT_NUMBER, read as tndhms "
            "reads them (keys it does not know are passed over)",
        )
        parser.add_argument("--host", default="0.0.0.0", help="the address (%(default)s)")
        parser.add_argument("--seed", default=None, help="the seed of seats and deals (random)")
        parser.add_argument(
            "--house",
            action="append",
            default=[],
            type=house_strategy,
            metavar="STRATEGY",
            help="a house bot in the last free seat (repeat: up to 5): "
            f"{', '.join(sorted(names_for(BOOK_UECDA)))}, montecarlo@BUDGET (500, 100ms) or "
            "module:function, as the arena and the client read them",
        )
        parser.add_argument("--title", default="uecda_match", help="the place's title")
        parser.add_argument("--rated", action="store_true", help="its games move ratings")
        parser.add_argument(
            "--write-every",
            type=float,
            default=None,
            metavar="SECONDS",
            help="store games behind the match, those that end within SECONDS in one "
            "transaction (faster; a crash loses up to SECONDS of games). Default: each game "
            "stored before the clients hear it is over (a crash loses the game in play only)",
        )
        parser.add_argument(
            "--time-limit",
            type=float,
            default=None,
            metavar="SECONDS",
            help="each move's time limit: a late move is a pass (default: none, as tndhms)",
        )
        parser.add_argument(
            "--time-bank",
            type=float,
            default=0.0,
            metavar="SECONDS",
            help="seconds a player's moves may run past the limit over one game (0: none)",
        )
        parser.add_argument(
            "--poll",
            type=float,
            default=POLL_SECONDS * 1e6,
            metavar="MICROSECONDS",
            help="how long the server polls for a client's table before it sleeps "
            "(%(default)g; quicker turns with quick clients, that much CPU a turn with slow "
            "ones; 0: it sleeps at once)",
        )
        parser.add_argument(
            "--watch",
            type=option(PORT_MAX),
            default=None,
            metavar="PORT",
            help="serve the match's live page, results and replays on this port from this "
            "process (no Redis needed); once the match is over they stay until Ctrl-C or "
            "SIGTERM (or --watch-linger)",
        )
        parser.add_argument(
            "--watch-host", default="127.0.0.1", help="the pages' address (%(default)s)"
        )
        parser.add_argument(
            "--watch-linger",
            type=float,
            default=None,
            metavar="SECONDS",
            help="with --watch: serve the pages that long after the match, then exit "
            "(default: until Ctrl-C or SIGTERM)",
        )

    def handle(
        self,
        *args,
        games: int | None,
        port: int | None,
        rules: str,
        config: str | None,
        host: str,
        seed,
        house,
        title,
        rated,
        write_every,
        time_limit,
        time_bank,
        poll,
        watch,
        watch_host,
        watch_linger,
        **options,
    ):
        if len(house) > 5:
            raise CommandError("at most 5 house bots")
        played, games, port = match_settings(config, rules, games, port)
        seed = seed if seed is not None else secrets.token_hex(8)

        def ready(bound: int) -> None:
            say(f"listening on {host}:{bound}, {games} games by the {played.label} rules")

        def over(result: tuple[int, float]) -> None:
            """The standings and the last line of the match (with ``--watch``: at its end,
            before the pages stay)."""
            for line in off_the_loop(final_standings, result[0]):
                self.stdout.write(line)
            self.stdout.write(f"uecda_match: place {result[0]}, {games} games in {result[1]:.1f} s")
            self.stdout.flush()

        pages = None if watch is None else watch_pages(watch_host, watch, watch_linger, over)
        try:
            result = run_loop(
                serve_match(
                    games,
                    host=host,
                    port=port,
                    seed=seed,
                    house=house,
                    title=title,
                    rated=rated,
                    ready=ready,
                    opened=None if pages is None else pages.opened,
                    seated=say_seated,
                    write_every=None if write_every is None else max(0.0, write_every),
                    move_seconds=time_limit,
                    bank_seconds=time_bank,
                    poll_seconds=max(0.0, poll) / 1e6,
                    rules=played,
                ),
                pages,
            )
        except Refused as e:
            raise refused(e) from None
        except OSError as e:
            hint = (
                " (a server of this project, make run or make serve, listens on it too: "
                "give --port another)"
                if e.errno == errno.EADDRINUSE
                else ""
            )
            raise CommandError(f"cannot listen on {host}:{port}: {e.strerror}{hint}") from None
        if pages is None:
            over(result)


def say_seated(conns: Sequence[Connection]) -> None:
    """Each client's player number and name, and where tndhms's cut shortened the name
    it sent (a drop-in keeps a name's first 9 characters, as tndhms: UECDA.md §2)."""
    for p, conn in enumerate(conns):
        if not conn.name and not conn.sent:
            say(f"player {p}: no name (no handshake in 2 s: a 20060 client)")
            continue
        cut = (
            f" (it sent {conn.sent!r}: tndhms keeps a name's first {NAME_CHARS} characters)"
            if conn.sent != conn.name
            else ""
        )
        say(f"player {p}: {conn.name!r}{cut}")


def final_standings(place_id: int) -> list[str]:
    """The match's standings as ``place_status`` prints them: each player's points and
    ranks, under the names stored (``uecda-P`` or ``NAME-P`` where a name was not free)."""
    place = Place.objects.get(pk=place_id)
    return standings_lines([s.as_dict() for s in standings(place)])


def off_the_loop(read: Callable[[int], list[str]], place_id: int) -> list[str]:
    """``read(place_id)``, in a thread of its own when an event loop runs in this one
    (``--watch``: the match ends on the pages' loop, where the ORM may not be called)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return read(place_id)

    def in_thread() -> list[str]:
        try:
            return read(place_id)
        finally:
            connections.close_all()  # this thread's own

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(in_thread).result()


def house_strategy(spec: str) -> str:
    """A ``--house`` strategy, read as the arena and the client read one
    (:func:`bots.strategies.resolve`, UECda's book); argparse's one-line error otherwise."""
    try:
        resolve(spec, 0, BOOK_UECDA)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return spec


def match_settings(
    config: str | None, rules: str, games: int | None, port: int | None
) -> tuple[Rules, int, int]:
    """The rules, games and port: a tndhms cfg's (``--games`` and ``--port`` winning), or
    ``--rules``'s variant; a cfg that cannot be read, or rules no drop-in plays, refused."""
    if config is not None:
        try:
            with open(config, encoding="latin-1") as f:  # tndhms reads bytes: any will do
                cfg = read_cfg(f.read())
        except OSError as e:
            raise CommandError(f"cannot read {config}: {e.strerror}") from None
        except CfgError as e:
            raise CommandError(f"{config}: {e}") from None
        return cfg.rules, cfg.games if games is None else games, cfg.port if port is None else port
    try:
        played = rules_named(rules)
    except UnknownRules as e:
        raise CommandError(str(e)) from None
    if played.name != UECDA.name:
        raise CommandError(f"a drop-in plays the {UECDA_NAME} rules or a variant of them")
    if games is None:
        raise CommandError("give --games N (or --config with a GAME_NUMBER)")
    return played, games, PORT if port is None else port


def watch_pages(
    host: str, port: int, linger: float | None, over: Callable[[tuple[int, float]], None]
) -> WatchPages:
    """``--watch``'s pages, their port bound (a port taken: the command's one-line error)."""
    if linger is not None and not linger >= 0:
        raise CommandError("--watch-linger takes seconds, 0 or more")
    try:
        return WatchPages(host, port, linger, over)
    except OSError as e:
        raise CommandError(f"cannot serve --watch on {host}:{port}: {e.strerror}") from None
