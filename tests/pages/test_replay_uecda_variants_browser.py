"""A replay of a game of a rules variant in a real browser (daphne, Debian's Chromium):
a tndhms log with 11-back and 6-reverse on, imported, opened at a turn where a jack has
reversed strength and a 6 the order of play. Screenshot: replay-uecda-11back.png."""

from __future__ import annotations

import gzip

import pytest

from daifugo.uecda_log import parse_log, referee
from daifugo.uecda_record import record_of_logged
from places.presentation.replay_uecda import positions
from tests.pages.browser import VIEWPORT, require_chromium, shot, watch_errors
from tests.places.test_uecda_variant_logs import DATA

pytestmark = pytest.mark.e2e

LOG = "tndhms-optional-random2-100"


def first_back_and_backwards(text: str) -> tuple[int, int]:
    """The first (game, turn) of the log where both an 11-back and a 6-reverse hold."""
    log = parse_log(text.splitlines(keepends=True))
    for done in referee(log):
        record = record_of_logged(log, done, {"id": None, "title": "t", "games": 1})
        for turn, p in enumerate(positions(record)):
            if p["back"] and p["backwards"] and p["table"]:
                return record["game"], turn
    raise AssertionError("no such turn in the log")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    from harness.server import Server

    require_chromium()
    where = tmp_path_factory.mktemp("uecda-variant")
    log = where / f"{LOG}.log"
    log.write_bytes(gzip.decompress((DATA / f"{LOG}.log.gz").read_bytes()))
    s = Server(where)
    s.place_id = int(s.manage("import_tndhms_log", str(log)).stdout.split()[1])
    s.at = first_back_and_backwards(log.read_text(encoding="ascii"))
    s.start()
    yield s
    s.stop()


def test_an_11_back_and_a_6_reverse_are_drawn_on_the_table(browser, server):
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    errors = watch_errors(page)
    game, turn = server.at
    page.goto(f"{server.url}/places/{server.place_id}/games/{game}/replay#turn={turn}")
    page.wait_for_selector("#replay[data-ready='1']")
    assert page.eval_on_selector("#replay", "el => el.dataset.turn") == str(turn)
    back, backwards = page.locator("#back"), page.locator("#backwards")
    assert back.is_visible() and "11-back" in back.text_content()
    assert backwards.is_visible() and "6-reverse" in backwards.text_content()
    assert shot(page, "replay-uecda-11back").exists()
    page.keyboard.press("Home")  # the deal: neither holds yet
    assert not page.locator("#back").is_visible()
    assert not page.locator("#backwards").is_visible()
    assert errors == []
    context.close()
