"""``demo``: the server with a demo place and five sample bots, for ``make run``.

Creates (or reuses) a staff user and five bot users, a demo place at a pace a
person can follow, starts daphne and the bots as child processes and prints
where to look. Two bots play over the wire (processes of ``python -m bots``,
so the demo still shows the protocol); three are house bots, played by the
server itself. When the place ends, a new one starts with the same bots.
Ctrl-C (or SIGTERM) stops everything it started, the demo place too: a server
started later (``make serve``) does not go on playing it without its bots. The
demo place is unrated: its games never move the leaderboard.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
import urllib.request

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from daifugo.numbers import ID_MAX, PORT_MAX, option
from daihinmin.ports import PortError, Ports, ports
from places import services
from places.errors import Refused
from places.models import ENDED, Place
from places.services import house

STAFF = ("admin", "admin")
#: (name, strategy) of the bots over the wire, then of the house bots.
BOTS = [
    ("shedder-bot", "shedder"),
    ("greedy-bot", "greedy"),
]
HOUSE_BOTS = [
    ("house-greedy", "greedy"),
    ("house-random-a", "random"),
    ("house-random-b", "random"),
]
BOT_PASSWORD = "demo-bot"
TITLE = "Demo"


def banner(place_id: int, games: int, pace: float, host: str, side: Ports) -> str:
    """What ``make run`` prints once its place plays (the README shows it)."""
    base = f"http://{host}:{side.site}"
    return (
        f"Demo place {place_id} is playing ({games} games, a step every {pace} s).\n"
        f"  live:    {base}/places/{place_id}/\n"
        f"  results: {base}/places/{place_id}/results\n"
        f"  home:    {base}/\n"
        f"  admin:   {base}/admin/  (user {STAFF[0]}, password {STAFF[1]})\n"
        f"  API:     {base}/api/docs/\n"
        + (
            f"  2011:    ws://{host}:{side.legacy_ws}/  (the 2011 bots' WebSocket)\n"
            if side.legacy_ws
            else ""
        )
        + (
            f"  UECda:   {host}:{side.uecda}  (UECda clients, with a join code: docs/bots.md)\n"
            if side.uecda
            else ""
        )
        + "Ctrl-C stops the server, the bots and the demo place.\n"
    )


class Command(BaseCommand):
    help = (
        "Serve with a demo place played by five sample bots, two over the wire and three "
        "house bots (Ctrl-C stops everything)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=option(PORT_MAX), default=8000)
        parser.add_argument("--pace", type=float, default=0.6, help="seconds between steps")
        parser.add_argument("--games", type=option(ID_MAX, 1), default=50)
        parser.add_argument("--transport", choices=["http", "ws"], default="ws")

    def handle(self, *args, host, port, pace, games, transport, **options):
        self.children: list[subprocess.Popen] = []
        self.place_id: int | None = None
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
        try:
            self._run(host, port, pace, games, transport)
        except KeyboardInterrupt:
            pass
        finally:
            self._stop_place()
            self._stop_children()

    def _run(self, host: str, port: int, pace: float, games: int, transport: str) -> None:
        try:  # the server's side ports follow --port unless set (daihinmin/ports.py)
            side = ports(os.environ, site=port)
        except PortError as e:
            raise CommandError(str(e)) from None
        self.port = port
        self._users()
        base = f"http://{host}:{port}"
        server = self._spawn(
            [
                sys.executable,
                "-m",
                "daihinmin.serve",  # daphne, on uvloop
                "-b",
                host,
                "-p",
                str(port),
                "daihinmin.asgi:application",
            ],
            quiet=True,
        )
        self._wait_until_up(base, server)
        while True:
            place = self._place(pace, games)
            self.place_id = place.id
            bots = [
                self._spawn(
                    [
                        sys.executable,
                        "-m",
                        "bots",
                        "--server",
                        base,
                        "--place",
                        str(place.id),
                        "--name",
                        name,
                        "--password",
                        BOT_PASSWORD,
                        "--strategy",
                        strategy,
                        "--transport",
                        transport,
                    ]
                )
                for name, strategy in BOTS
            ]
            time.sleep(1.0)  # the bots log in and connect before the first turn
            if place.state == Place.State.WAITING:
                services.schedule_start(place.id)
            self.stdout.write("\n" + banner(place.id, games, pace, host, side))
            for bot in bots:
                bot.wait()
            if server.poll() is not None:
                raise SystemExit("the server stopped")

    def _users(self) -> None:
        model = get_user_model()
        staff, _ = model.objects.get_or_create(username=STAFF[0])
        if not staff.is_staff or not staff.has_usable_password():
            staff.is_staff = staff.is_superuser = True
            staff.set_password(STAFF[1])
            staff.save()
        for name, _ in BOTS:
            user = model.objects.filter(username=name).first()
            if user is None or not user.check_password(BOT_PASSWORD):
                house.make_wire_user(name, BOT_PASSWORD)
        for name, strategy in HOUSE_BOTS:
            house.make_house_user(name, strategy)

    def _place(self, pace: float, games: int) -> Place:
        """The demo place still to play (of these bots), or a new one, unrated.

        A rated one left by an older version is stopped: its games would move the
        leaderboard.
        """
        names = [name for name, _ in BOTS + HOUSE_BOTS]
        unfinished = Place.objects.filter(title=TITLE).exclude(state__in=ENDED).order_by("-id")
        for place in unfinished:
            if sorted(place.players.values_list("user__username", flat=True)) != sorted(names):
                continue
            if not place.rated:
                return place
            services.stop_place(place.id)
        return services.create_place(
            TITLE, names, game_count=games, pace=pace, time_limit=10, rated=False
        )

    def _stop_place(self) -> None:
        """Abort the demo place, here and now: its server and its bots are stopping too,
        so nobody is left to hear its ``end_place`` or to play it."""
        if self.place_id is None:
            return
        with contextlib.suppress(Refused):  # it had ended already
            services.stop_place(self.place_id)
        self.stdout.write(f"Demo place {self.place_id} stopped.")

    def _spawn(self, argv: list[str], quiet: bool = False) -> subprocess.Popen:
        env = {**os.environ, "PYTHONUNBUFFERED": "1", "PORT": str(self.port)}
        out = subprocess.DEVNULL if quiet else None
        child = subprocess.Popen(argv, cwd=settings.BASE_DIR, env=env, stdout=out, stderr=None)
        self.children.append(child)
        return child

    def _wait_until_up(self, base: str, server: subprocess.Popen) -> None:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if server.poll() is not None:
                raise SystemExit("daphne could not start (is the port taken?)")
            try:
                with urllib.request.urlopen(f"{base}/healthz", timeout=1):
                    return
            except OSError:
                time.sleep(0.2)
        raise SystemExit("daphne did not answer within 30 s")

    def _stop_children(self) -> None:
        for child in self.children:
            if child.poll() is None:
                child.terminate()
        for child in self.children:
            try:
                child.wait(5)
            except subprocess.TimeoutExpired:
                child.kill()
