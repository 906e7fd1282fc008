"""Clients making random submissions (``random_submitter.py``, the client that made the
random fixture logs tndhms wrote) play a drop-in match of a variant beside the project's:
the match ends, nothing is lost, and every record replays, its rejections included."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest
from asgiref.sync import sync_to_async

from bots.strategies import resolve
from bots.uecda import UecdaClient
from daifugo.rules import rules_named
from daifugo.view import BOOK_UECDA
from places.reads.records import place_records
from tests.uecda.test_match import check_stored, serve

pytestmark = pytest.mark.django_db(transaction=True)

SUBMITTER = Path(__file__).with_name("random_submitter.py")


async def test_random_submitters_play_a_variant_to_the_end(close_thread_connections):
    rules = rules_named("uecda+6reverse+11back+ranks=1")
    task, port = await serve(20, seed="random", rules=rules)
    submitters = [
        await asyncio.create_subprocess_exec(
            sys.executable,
            str(SUBMITTER),
            "-h",
            "127.0.0.1",
            "-p",
            str(port),
            "-n",
            f"random{i}",
            "--seed",
            str(i),
            "--pass-share",
            "0.05",
            "--single-share",
            "0.8",
        )  # fmt: skip
        for i in range(3)
    ]
    clients = [
        UecdaClient("127.0.0.1", port, name, resolve(name, 1, BOOK_UECDA), rules)
        for name in ("greedy", "shedder")
    ]
    summaries = await asyncio.wait_for(asyncio.gather(*(c.run() for c in clients)), 120)
    codes = await asyncio.wait_for(asyncio.gather(*(s.wait() for s in submitters)), 30)
    place_id, _ = await asyncio.wait_for(task, 60)
    assert codes == [0, 0, 0] and all(s.games == 20 for s in summaries)
    place = await sync_to_async(check_stored)(place_id, 20)
    assert place.variant == "6reverse+11back+ranks=1"
    records = await sync_to_async(lambda: list(place_records(place_id, chunk=64)))()
    verdicts = {a["verdict"] for r in records for a in r["actions"]}
    assert verdicts == {"play", "pass", "rejected"}
    assert all(r["choices"] is not None for r in records)  # ranks=1: every game exchanges
