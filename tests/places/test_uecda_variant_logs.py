"""Logs tndhms wrote with its optional rules on, its default rules off, and several at once,
with stock clients and with a client of ours making random submissions
(``tests/daifugo/data/variants/README.md`` says how each was made): each imports with no
disagreement, as a place of the variant its header names, whose records replay by it."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from daifugo.uecda_record import replay_records
from places.models import Game, Place
from places.reads.records import place_records
from places.services import uecda

pytestmark = pytest.mark.django_db

DATA = Path(__file__).resolve().parents[1] / "daifugo" / "data" / "variants"

#: Each fixture log: its games and the variant its header names.
LOGS = {
    "tndhms-11back-200": (200, "11back"),
    "tndhms-6revers-200": (200, "6reverse"),
    "tndhms-5tobi-200": (200, "5skip"),
    "tndhms-kinsoku-50": (50, "kinsoku"),
    "tndhms-no-kakumei-50": (50, "no-revolution"),
    "tndhms-no-shibari-50": (50, "no-lock"),
    "tndhms-no-kaidan-50": (50, "no-stairs"),
    "tndhms-no-change-50": (50, "no-exchange"),
    "tndhms-no-8giri-50": (50, "no-8cut"),
    "tndhms-no-sekigae-50": (50, "reseat=0"),
    "tndhms-flash1-sekigaenum1-30": (30, "reseat=0+ranks=1"),
    "tndhms-mix-random1-150": (150, "no-lock+5skip+6reverse+11back+reseat=3+ranks=10"),
    "tndhms-optional-random2-100": (100, "5skip+6reverse+11back"),
    "tndhms-random5-optional-100": (100, "5skip+6reverse+11back"),
    "tndhms-random5-default-100": (100, ""),
}


def log_bytes(name: str) -> bytes:
    return gzip.decompress((DATA / f"{name}.log.gz").read_bytes())


def test_every_fixture_log_is_listed():
    assert sorted(p.name.removesuffix(".log.gz") for p in DATA.glob("*.log.gz")) == sorted(LOGS)


@pytest.mark.parametrize("name", sorted(LOGS))
def test_a_log_of_a_variant_imports_with_no_disagreement_and_replays(name):
    games, variant = LOGS[name]
    imported = uecda.import_tndhms_log(log_bytes(name))
    assert imported.left_out == []
    assert imported.games == games
    place = Place.objects.get(pk=imported.place.pk)
    assert (place.rules, place.variant, place.state) == ("uecda", variant, Place.State.FINISHED)
    assert Game.objects.filter(place=place, status=Game.FINISHED).count() == games
    records = list(place_records(place.id, chunk=100))
    replayed = list(replay_records(records))
    assert [type(r).__name__ for r in replayed] == ["Replayed"] * games
