"""A drop-in match of a rules variant: read from a tndhms cfg with 11-back and 6-reverse
on, played by the project's clients, stored as a place of that variant whose records
replay by it; and the command's refusals of a cfg or a variant it cannot play."""

from __future__ import annotations

import asyncio
import threading

import pytest
from django.core.management import CommandError, call_command
from django.db import connections

from bots.strategies import resolve
from bots.uecda import UecdaClient
from daifugo.rules import rules_named
from daifugo.view import BOOK_UECDA
from places.models import Place
from places.presentation.replay_uecda import positions
from places.reads.records import place_records
from tests.uecda.test_match import check_stored, free_port

pytestmark = pytest.mark.django_db(transaction=True)

VARIANT = rules_named("uecda+6reverse+11back")


def test_a_match_read_from_a_cfg_with_11_back_is_played_by_its_rules(tmp_path):
    port = free_port()
    cfg = tmp_path / "tndhms.cfg"
    cfg.write_text(
        "# a bot author's tndhms.cfg\nWINDOW_TYPE\tnone\nRULE_11BACK\tyes\nRULE_6REVERS\tyes\n"
        f"RULE_SEKIGAE_NUM\t5\nGAME_NUMBER\t20\nPORT_NUMBER\t{port}\nFLAG_LOGGER\tyes\n"
    )

    def command() -> None:
        call_command("uecda_match", "--config", str(cfg), "--host", "127.0.0.1", "--seed", "cfg")
        connections.close_all()

    thread = threading.Thread(target=command)
    thread.start()
    names = ["greedy", "shedder", "random", "greedy2", "shedder2"]

    async def run_all():
        tasks = []
        for name in names:
            client = UecdaClient(
                "127.0.0.1", port, name, resolve(name.rstrip("2"), 3, BOOK_UECDA), VARIANT
            )
            tasks.append(client)
        return await asyncio.wait_for(asyncio.gather(*(retrying(c) for c in tasks)), 120)

    summaries = asyncio.run(run_all())
    thread.join(60)
    assert all(s.games == 20 for s in summaries)
    # the clients read the 11-back from [5][5]: not one of their moves was refused
    assert sum(s.rejected for s in summaries) == 0
    place = Place.objects.latest("id")
    assert (place.rules, place.variant) == ("uecda", "6reverse+11back")
    check_stored(place.id, 20)
    records = list(place_records(place.id, chunk=64))
    assert {(r["rules"], r["variant"]) for r in records} == {("uecda", "6reverse+11back")}
    shown = [p for r in records for p in positions(r)]
    assert any(p["back"] for p in shown) and any(p["backwards"] for p in shown)


async def retrying(client: UecdaClient):
    """The client, connecting once the command listens (a probe would take a seat)."""
    for _ in range(200):
        try:
            return await client.run()
        except ConnectionRefusedError:
            await asyncio.sleep(0.05)
    raise AssertionError("uecda_match never listened")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--rules", "uecda+13back"], "unknown variant token '13back'"),
        (["--rules", "daihinmin-2011"], "a drop-in plays the uecda rules or a variant"),
        (["--rules", "uecda+reseat=²"], "reseat= takes a number 0-99999"),
        (["--house", "grandmaster"], "--house: 'grandmaster': a sample strategy"),
        (["--house", "montecarlo@0"], "--house: montecarlo@0: a budget is playouts"),
        (["--rules", "uecda+reseat=" + "9" * 5000], "reseat= takes a number 0-99999"),
        (["--config", "{cfg2}"], r"tndhms2.cfg: line 1: RULE_SEKIGAE_NUM is a number"),
        (["--config", "{cfg}"], r"tndhms.cfg: line 2: RULE_11BACK is YES or NO, not 'YSE'"),
        (["--config", "{missing}"], "cannot read .*missing.cfg"),
        ([], r"give --games N \(or --config with a GAME_NUMBER\)"),
    ],
)
def test_rules_the_command_cannot_play_are_refused_before_it_listens(tmp_path, args, message):
    cfg = tmp_path / "tndhms.cfg"
    cfg.write_text("GAME_NUMBER 3\nRULE_11BACK yse\n")
    (tmp_path / "tndhms2.cfg").write_text("RULE_SEKIGAE_NUM ²\nGAME_NUMBER 3\n")
    args = [
        a.format(cfg=cfg, cfg2=tmp_path / "tndhms2.cfg", missing=tmp_path / "missing.cfg")
        for a in args
    ]
    games = [] if "--config" in args or not args else ["--games", "3"]
    with pytest.raises(CommandError, match=message):
        call_command("uecda_match", *games, *args, "--port", str(free_port()))
