"""The replay of an imported UECda game in a real browser (daphne, Debian's Chromium).

The committed tndhms log is imported into the server's database before it starts;
the page is opened at a turn where a lock holds the table (game 6, turn 7: ♠J and
the joker as ♣J on ♠ ♣, locked to ♠♣), at the end of a 20-pass draw (game 18), and at
a late move: game 3's first pass marked late in its record as ``uecda_match`` marks a
move past the time limit (tests/uecda/test_time_limit.py plays one).
Screenshots go to artifacts/screenshots/replay-uecda-*.png.
"""

from __future__ import annotations

import pytest

from tests.pages.browser import VIEWPORT, require_chromium, shot, watch_errors
from tests.places.test_uecda_import import FIXTURE

pytestmark = pytest.mark.e2e


#: Game 3's first pass made late, as a match past its time limit records it; prints its turn.
LATE_PASS = """
from places.models import Game
game = Game.objects.get(place_id={place}, no=3)
action = next(a for a in game.record["actions"] if a["verdict"] == "pass")
action["late"] = True
game.save(update_fields=["record"])
print(action["turn"])
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    from harness.server import Server

    require_chromium()
    s = Server(tmp_path_factory.mktemp("uecda-replay"))
    out = s.manage("import_tndhms_log", str(FIXTURE)).stdout
    s.place_id = int(out.split()[1])
    s.manage("shell", "-c", LATE_PASS.format(place=s.place_id))
    s.start()
    yield s
    s.stop()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport=VIEWPORT)
    p = context.new_page()
    p.script_errors = watch_errors(p)
    yield p
    assert p.script_errors == []
    context.close()


def open_replay(page, server, game: int, hash_: str = "") -> dict:
    page.goto(f"{server.url}/places/{server.place_id}/games/{game}/replay{hash_}")
    page.wait_for_selector("#replay[data-ready='1']")
    return page.eval_on_selector("#replay", "el => ({...el.dataset})")


def test_a_lock_is_drawn_with_its_marks(page, server):
    where = open_replay(page, server, 6, "#turn=7")
    assert (where["turn"], where["lock"], where["order"]) == ("7", "SC", "Normal")
    lock = page.locator("#lock")
    assert lock.is_visible() and "♠♣" in lock.text_content()
    assert page.get_attribute("#table-cards", "data-cards") == "1-11 joker"
    assert "♣J" in page.locator("#table-cards .stands-for").text_content()
    # the exchange: the two tributes, then the rich's chosen cards
    items = page.locator("#exchange li")
    assert items.count() == 4
    assert "chose" in items.nth(2).text_content()
    path = shot(page, "replay-uecda-lock")
    assert path.exists()
    # a turn on, the trick goes on or ends: the page follows the engine's positions
    page.keyboard.press("ArrowRight")
    assert page.eval_on_selector("#replay", "el => el.dataset.turn") == "8"
    assert page.get_attribute("#moves tr.current", "data-at") == "8"  # the list follows
    page.keyboard.press("Home")
    assert page.eval_on_selector("#replay", "el => el.dataset.lock") == ""
    assert page.locator("#lock").is_hidden()


def test_a_20_pass_draw_ends_the_game_with_drawn_ranks(page, server):
    open_replay(page, server, 18)
    page.keyboard.press("End")
    where = page.eval_on_selector("#replay", "el => ({...el.dataset})")
    assert where["end"] == "draw"
    assert "20 passes" in page.locator("#notice").text_content()
    ranks = sorted(
        int(r) for r in page.locator("#seats .seat").evaluate_all("s => s.map(e => e.dataset.rank)")
    )
    assert ranks == [1, 2, 3, 4, 5]
    shot(page, "replay-uecda-draw")


def test_a_late_move_is_shown_as_out_of_time(page, server):
    open_replay(page, server, 3)
    late = page.locator("#moves tr.late")
    assert late.count() == 1
    turn = late.get_attribute("data-turn")
    assert "Time out" in late.text_content()
    assert page.locator("#moves tr.verdict-pass:not(.late) .pill-pass").count() > 0
    late.locator(".move-go").click()
    assert page.eval_on_selector("#replay", "el => el.dataset.turn") == turn
    assert "ran out of time" in page.locator("#turn-line").text_content()
    shot(page, "replay-uecda-late")
