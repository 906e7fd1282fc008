"""End to end: the founding document's own sample bot, in Ruby, plays a whole place.

The Ruby code blocks are taken out of the founding document (the project's shared
``seeds/``, section "サンプル") when the test runs; they are not copied into the
project. Only what the document leaves to a bot's author, or what 2011 could not
know, is changed, each by one replacement that must match once:

- the site's and the stream's host and ports (``http://localhost:3000``,
  ``WebsocketClient.connect("localhost", 8081)``);
- ``require "EventMachine"`` and ``require 'Mechanize'`` in lower case (Linux's file
  names);
- ``# encoding: binary`` on the first line (today's Ruby reads a source as UTF-8, where
  the reader's ``/^\\x00(.*)\\xff$/m`` is an invalid multibyte escape);
- the author's part: ``require "json"``, the name, password and place from the command
  line, and the strategy in place of ``# 出すカードを作る`` (on its own turn: the weakest
  single card that may be played, leading or over a single; a pass otherwise).

It runs with Debian's ``ruby``, ``ruby-mechanize`` and ``ruby-eventmachine`` (``.ci/run``
installs them) as one player of a place against four house bots, to the place's end.
With Redis (CI's second step) the server is two processes: the bot's HTTP goes to one,
its stream comes from the other's 2011 port, through Redis.
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import subprocess
import sys
import time
from collections import Counter

import httpx
import pytest

from harness.server import ROOT, Server
from tests.needs import SEED_NAME, shared_folder
from tests.timing import guard

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.needs("seeds", "ruby", "ruby-mechanize", "ruby-eventmachine"),
]

#: The founding document, in the project's shared folder beside the repository (or
#: beside the folder of its worktrees).
SEED = shared_folder() / "seeds" / SEED_NAME
ARTIFACTS = ROOT / "artifacts"
#: What the sample prints for a read it cannot parse (frames that came together).
NOT_JSON = "not json\n"
HOUSE = ["greedy", "shedder", "random", "greedy"]
GAMES = 3
#: Seconds between the dealer's steps: none, the house bots answer at once, so that the
#: events between two of the sample's turns leave together (its reader takes one read as
#: one frame: the stream paces them, ``places/realtime/legacy.py``).
PACE = "0"

#: The author's part before the flow: what the sample uses and leaves undefined.
AUTHOR_PREAMBLE = """\
require "json"
user_name, password, place_id = ARGV
$stdout.sync = true
"""
#: The author's strategy, in the hole the sample leaves (inside its ``Thread.new``): a
#: single card, the weakest that may be played, or a pass.
STRATEGY = """\
        next unless json["player"] == user_name
        revolution = json["place_info"] == "Revolution"
        order = lambda do |c|  # 0 the weakest ... 12 the strongest number, 13 a joker
          next 13 if c["joker"]
          normal = (c["number"] + 10) % 13
          revolution ? 12 - normal : normal
        end
        hand = player_accsesor.get_hand.map { |c| c["card"] }.sort_by { |c| order.call(c) }
        table = json["place_cards"].map { |c| c["card"] }
        choices = case table.size
                  when 0 then hand
                  when 1 then hand.select { |c| order.call(c) > order.call(table[0]) }
                  else []
                  end
        # the last card may not be a joker or of the strongest number: pass rather than miss
        choices = [] if hand.size == 1 && !table.empty? && order.call(hand[0]) >= 12
        put_cards = choices.first(1).map { |c| {joker: c["joker"], mark: c["mark"], number: c["number"]} }
        puts "#{user_name} plays #{put_cards.inspect}"
"""


def sample_blocks(document: str) -> list[str]:
    """The Ruby code blocks of the section "サンプル", in order."""
    start = document.index('<a name="sample-2">')
    end = document.index('<a name="todo">')
    return re.findall(r"``` ruby\n(.*?)```", document[start:end], re.S)


def replaced(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, f"the sample no longer holds {old!r} once"
    return text.replace(old, new)


def assembled(document: str, site: str, stream: tuple[str, int]) -> str:
    """The sample as its author would run it today: the blocks, changed as the module says."""
    client, accessor, flow = sample_blocks(document)
    client = replaced(client, 'require "EventMachine"', 'require "eventmachine"')
    accessor = replaced(accessor, "require 'Mechanize'", "require 'mechanize'")
    flow = replaced(flow, '"http://localhost:3000"', json.dumps(site))
    flow = replaced(
        flow, 'WebsocketClient.connect("localhost", 8081)', f"WebsocketClient.connect{stream!r}"
    )
    flow = replaced(flow, "        # 出すカードを作る\n", STRATEGY)
    return "\n".join(["# encoding: binary", client, accessor, AUTHOR_PREAMBLE, flow])


def ruby() -> str:
    return shutil.which("ruby")


def legacy_sockets(server: Server) -> int:
    text = httpx.get(
        f"{server.url}/metrics", headers={"Authorization": "Bearer legacy-test"}, timeout=10
    ).text
    return int(float(re.search(r"^daihinmin_legacy_sockets (\S+)$", text, re.M)[1]))


def shell(server: Server, code: str):
    return json.loads(server.manage("shell", "--no-imports", "-c", code).stdout)


@pytest.fixture(params=["idle", "busy"])
def machine(request):
    """The machine as it is, or busy: every core kept busy, by as many CPU-bound processes
    beside the server and the bot as the load leaves idle (two on an idle two-core machine;
    none where the other tests' workers already keep the cores busy, as in CI: on top of
    them, two more left the sample unscheduled for longer than the stream's gap between
    frames, and it read two frames as one)."""
    burners = []
    if request.param == "busy":
        idle = (os.cpu_count() or 1) - round(os.getloadavg()[0])
        burners = [
            subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(idle)
        ]
    yield request.param
    for burner in burners:
        burner.terminate()
        burner.wait()


def busy_factor(machine: str) -> int:
    """How much longer a wait is given in the busy case: the load average, a minute's, has
    not yet seen the burners it starts."""
    return 2 if machine == "busy" else 1


def frame_gap(machine: str) -> float:
    """The stream's gap between frames: its default (20 ms) on an idle machine, as an
    operator would raise it on a slower or loaded one (``LEGACY_FRAME_GAP_SECONDS``), twice
    that in the busy case. The sample takes one read as one frame: scheduled later than the
    gap, it reads two as one (beside three test workers, 2 to 9 times in 3 games at 20 ms)
    and may miss its turn."""
    return round(guard(0.01) * busy_factor(machine), 3)


@pytest.fixture
def servers(tmp_path, machine):
    """The bot's site and the server of its stream: one process, or two with Redis; the
    stream's frames as far apart as :func:`frame_gap` says for this machine."""
    gap = str(frame_gap(machine))
    site = Server(tmp_path, legacy=True, METRICS_TOKEN="legacy-test", LEGACY_FRAME_GAP_SECONDS=gap)
    started = [site]
    site.start()
    stream = site
    if os.environ.get("REDIS_URL"):
        stream = site.sibling()
        stream.start()
        started.append(stream)
    yield site, stream
    for s in reversed(started):
        s.stop()


def turn_seconds(machine: str) -> int:
    """The place's time for a turn: 10 s on an idle machine, more on a slower or loaded one,
    twice that in the busy case. The sample must answer every turn; the time is a guard
    against a hang, not a figure."""
    return math.ceil(guard(5) * busy_factor(machine))


def test_the_founding_documents_sample_bot_plays_a_whole_place_unchanged(
    servers, machine, tmp_path
):
    site, stream = servers
    players = [
        arg for n in ["sample", "house0", "house1", "house2", "house3"] for arg in ("--player", n)
    ]
    *_, made = site.manage_all(
        ["create_user", "sample", "--password", "sample-pw"],
        *(["create_user", f"house{i}", "--house", strategy] for i, strategy in enumerate(HOUSE)),
        ["create_place", "2011 sample", *players, "--games", str(GAMES), "--pace", PACE,
         "--timeout", str(turn_seconds(machine)), "--seed", "sample-2011"],
    )  # fmt: skip
    place_id = int(made.strip())
    script = tmp_path / "sample_bot.rb"
    script.write_text(
        assembled(SEED.read_text(), site.url, ("127.0.0.1", stream.legacy_port)), encoding="utf-8"
    )
    log = tmp_path / "sample_bot.log"
    with open(log, "wb") as out:
        bot = subprocess.Popen(
            [ruby(), str(script), "sample", "sample-pw", str(place_id)],
            cwd=tmp_path,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
        try:
            deadline = time.monotonic() + 60
            while legacy_sockets(stream) < 1:  # logged in, listening: the place may start
                assert bot.poll() is None, log.read_text(errors="replace")
                assert time.monotonic() < deadline, log.read_text(errors="replace")
                time.sleep(0.2)
            site.manage("start_place", str(place_id))
            returncode = bot.wait(timeout=600)
        finally:
            if bot.poll() is None:
                bot.kill()
                bot.wait()
    output = log.read_text(errors="replace")
    # the sample leaves with exit(0) on its place's end_place, and only there
    assert returncode == 0, output[-4000:]

    turns = shell(
        site,
        "import json; from places.models import Turn; print(json.dumps(list(Turn.objects.filter("
        f"game__place_id={place_id}, player__user__username='sample')"
        ".values_list('outcome', 'reason'))))",
    )
    ranks = shell(
        site,
        "import json; from places.models import Rank; print(json.dumps(list(Rank.objects.filter("
        f"game__place_id={place_id}, player__user__username='sample')"
        ".order_by('game__no').values_list('rank', flat=True))))",
    )
    events = site.events(place_id)
    its_turns = [e for e in events if e["operation"] == "start_turn" and e["player"] == "sample"]
    outcomes = Counter(outcome for outcome, _ in turns)
    lines = output.rstrip().splitlines()
    artifact = ARTIFACTS / f"sample_bot_{machine}.txt"
    ARTIFACTS.mkdir(exist_ok=True)
    shutil.copyfile(log, ARTIFACTS / f"sample_bot_{machine}.log")  # all of it, to look into
    artifact.write_text(
        f"the founding document's sample bot, place {place_id} ({GAMES} games, pace {PACE} s, "
        f"machine {machine}, frame gap {stream.env['LEGACY_FRAME_GAP_SECONDS']} s, "
        f"{'two processes, Redis' if stream is not site else 'one process'}):\n"
        f"  turns: {len(turns)} ({dict(outcomes)}); reasons of misses: "
        f"{dict(Counter(r for o, r in turns if o == 'miss'))}; frames it could not read "
        f"(two in one read): {output.count(NOT_JSON)}\n"
        f"  ranks by game: {ranks}; rank counts: {dict(sorted(Counter(ranks).items()))}\n"
        "  its last lines:\n" + "".join(f"    {line}\n" for line in lines[-12:])
    )

    assert events[-1]["operation"] == "end_place"
    assert len(ranks) == GAMES
    assert its_turns and len(turns) == len(its_turns)  # each turn it was given, settled
    assert outcomes["timeout"] == 0, artifact.read_text()  # and answered
    assert outcomes["play"] > 0
    assert output.count("sample plays") == len(turns)  # by the sample's own thread
