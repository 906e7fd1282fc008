"""The replay page in a real browser against a real server (daphne, Debian's Chromium).

One place of four games is played to its end on the server's database before
the server starts (``tests.pages.eventful``: a revolution, stairs of four, a
miss, a time out); the page is then checked against the engine, position by
position. Screenshots go to artifacts/screenshots/replay-*.png.
"""

from __future__ import annotations

import json

import httpx
import pytest

from daifugo.cards import JOKER_IDS, JOKER_TOKEN, format_card, mask_of, parse_card, sorted_ids
from daifugo.deal import first_player
from daifugo.game import act, advance, new_game, time_out
from daifugo.replay import order_name
from tests.pages.browser import (
    VIEWPORT,
    require_chromium,
    server_with_a_played_place,
    shot,
    watch_errors,
)

pytestmark = pytest.mark.e2e

NAMES = ("alice", "bob", "charlie", "dave", "eve")
GAMES = 4
#: Game 2 of this seed holds a revolution whose trick ends, so the order flips.
SEED = "other"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    require_chromium()
    s = server_with_a_played_place(
        tmp_path_factory.mktemp("replay"),
        "Replayed",
        GAMES,
        SEED,
        driver="tests.pages.eventful.play_out_eventfully",
    )
    s.start()
    yield s
    s.stop()


@pytest.fixture(scope="module")
def records(server) -> dict[int, dict]:
    return {
        no: httpx.get(f"{server.url}/places/{server.place_id}/games/{no}/record.json").json()
        for no in range(1, GAMES + 1)
    }


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport=VIEWPORT)
    p = context.new_page()
    p.script_errors = watch_errors(p)
    yield p
    assert p.script_errors == []
    context.close()


def replay_url(server, game: int, hash_: str = "") -> str:
    return f"{server.url}/places/{server.place_id}/games/{game}/replay{hash_}"


def open_replay(page, url: str) -> None:
    page.goto(url)
    page.wait_for_selector("#replay[data-ready='1']")


def where(page) -> dict:
    return page.eval_on_selector("#replay", "el => ({...el.dataset})")


def at(page) -> int:
    return int(where(page)["at"])


def table(page) -> str:
    return page.get_attribute("#table-cards", "data-cards")


def hands(page) -> list[str]:
    return [row.get_attribute("data-cards") for row in page.locator("#hands .hand-row").all()]


def current_move(page) -> str:
    return page.get_attribute("#moves tr.current", "data-at")


# -- the engine's positions, to check the page's against ----------------------------------------


def ids(cards: list[str]) -> list[int]:
    """Written cards as ids: the first joker 53, a second 54 (as the page counts them)."""
    jokers = iter(JOKER_IDS)
    return [next(jokers) if c == JOKER_TOKEN else c for c in map(parse_card, cards)]


def written(mask: int) -> list[str]:
    """A mask's cards as written, weakest first."""
    return [format_card(c) for c in sorted_ids(mask)]


def engine_positions(record: dict, last_ranks: list[int] | None) -> list[dict]:
    """After each action (the deal first): every hand, the table, the order, the ranks."""
    hands = [mask_of(ids(h)) for h in record["hands"]]
    state = new_game(record["game"], hands, first_player(hands, last_ranks))

    def position(state, ranks) -> dict:
        return {
            "hands": [written(h) for h in state.hands],
            "table": written(state.table.mask) if state.table else [],
            "order": order_name(state.revolution),
            "ranks": list(ranks),
        }

    out = [position(state, state.ranks)]
    for a in record["actions"]:
        state, _ = advance(state)
        if a["verdict"] == "timeout":
            state, _, _ = time_out(state, a["seat"])
        else:
            state, _, _ = act(state, a["seat"], [parse_card(c) for c in a["cards"]])
        settled = state
        if a is record["actions"][-1]:
            state, _ = advance(state)  # the last holder's rank
        out.append(position(settled, state.ranks))
    return out


PAGE_POSITIONS = """() => window.replay.frames().map((f) => ({
    hands: f.hands.map((h) => h.map((id) => Cards.info(id).written)),
    table: f.table.map((id) => Cards.info(id).written),
    cleared: f.cleared,
    order: f.order,
    ranks: f.ranks.map((r) => r || 0),
}))"""


# -- the tests ------------------------------------------------------------------------------------


def numbers(cards: list[str]) -> set[str]:
    return {c.split("-")[1] for c in cards if c != "joker"}


def is_revolution(action: dict) -> bool:
    """A group of four or more played (rules.md §8)."""
    cards = action["cards"]
    return action["verdict"] == "play" and len(cards) >= 4 and len(numbers(cards)) <= 1


def test_the_place_s_records_hold_what_a_replay_must_show(records):
    plays = [a for r in records.values() for a in r["actions"] if a["verdict"] == "play"]
    assert any(is_revolution(a) for a in plays)
    assert any(len(a["cards"]) >= 4 and len(numbers(a["cards"])) > 1 for a in plays)  # stairs
    assert records[2]["order"] == "Revolution"
    verdicts = {a["verdict"] for r in records.values() for a in r["actions"]}
    assert verdicts == {"play", "pass", "miss", "timeout"}


def test_every_position_of_every_game_is_the_engine_s(page, server, records):
    last_ranks = None
    for no, record in records.items():
        open_replay(page, replay_url(server, no))
        shown = page.evaluate(PAGE_POSITIONS)
        expected = engine_positions(record, last_ranks)
        assert len(shown) == len(expected) == len(record["actions"]) + 1
        for k, (mine, engine) in enumerate(zip(shown, expected, strict=True)):
            assert mine["hands"] == engine["hands"], (no, k)
            assert mine["order"] == engine["order"], (no, k)
            assert mine["ranks"] == engine["ranks"], (no, k)
            if mine["cleared"]:
                assert engine["table"] == [], (no, k)  # the trick ended: the engine cleared it
            else:
                assert mine["table"] == engine["table"], (no, k)
        assert where(page)["order"] == "Normal"  # the deal
        page.keyboard.press("End")
        assert where(page)["order"] == record["order"]
        assert page.locator("#replay-error").is_hidden()
        last_ranks = record["ranks"]


def test_buttons_keys_the_slider_and_the_move_list_step_and_come_back(page, server, records):
    record = records[2]
    open_replay(page, replay_url(server, 2))
    start_hands, first = hands(page), record["actions"][0]
    assert at(page) == 0 and current_move(page) == "0"
    assert page.locator("#table-cards svg.card").count() == 0
    assert page.locator("#btn-back").is_disabled()
    shot(page, "replay-deal")

    page.click("#btn-forward")
    assert at(page) == 1 and current_move(page) == "1"
    assert table(page).split(" ") == written(mask_of(ids(first["cards"])))
    after = hands(page)
    assert len(after[first["seat"]].split(" ")) == len(start_hands[first["seat"]].split(" ")) - len(
        first["cards"]
    )
    assert [h for s, h in enumerate(after) if s != first["seat"]] == [
        h for s, h in enumerate(start_hands) if s != first["seat"]
    ]
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert at(page) == 3 and current_move(page) == "3"
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    page.click("#btn-back")
    assert at(page) == 0 and hands(page) == start_hands and table(page) == ""

    page.keyboard.press("End")
    count = len(record["actions"])
    assert at(page) == count and page.locator("#btn-forward").is_disabled()
    ranks = [int(s.get_attribute("data-rank")) for s in page.locator("#seats .seat").all()]
    assert ranks == record["ranks"]
    shot(page, "replay-end")
    page.keyboard.press("Home")
    assert at(page) == 0 and hands(page) == start_hands

    page.locator("#slider").fill("6")
    assert at(page) == 6
    page.click("#moves tr[data-at='4'] td.who")
    assert at(page) == 4 and current_move(page) == "4"
    page.click("#btn-last")
    assert at(page) == count
    page.click("#btn-first")
    assert at(page) == 0


def test_a_turn_in_the_url_opens_there_and_the_url_follows_the_position(page, server, records):
    record = records[2]
    actions = record["actions"]
    revolution = next(i for i, a in enumerate(actions) if is_revolution(a))
    assert not actions[revolution]["reset"]
    # the position after the turn that ends the revolution's trick: the order has flipped
    flip = next(i + 1 for i, a in enumerate(actions) if i > revolution and a["reset"])
    turn = record["actions"][flip - 1]["turn"]
    open_replay(page, replay_url(server, 2, f"#turn={turn}"))
    assert at(page) == flip and where(page)["turn"] == str(turn)
    assert where(page)["order"] == "Revolution"
    assert "revolution" in page.get_attribute("#felt", "class")
    assert page.inner_text("#order") == "Revolution"
    shot(page, "replay-revolution")

    page.keyboard.press("ArrowLeft")
    assert page.url.endswith(f"#turn={record['actions'][flip - 2]['turn']}")
    assert where(page)["order"] == "Normal"  # the trick of the revolution is still being played
    assert page.inner_text("#trick-info").startswith("Revolution play")
    page.reload()
    page.wait_for_selector("#replay[data-ready='1']")
    assert at(page) == flip - 1

    page.evaluate("location.hash = '#turn=0'")  # a link followed on the page itself
    page.wait_for_function("() => document.getElementById('replay').dataset.at === '0'")


def test_one_seat_s_view_shows_its_hand_and_only_the_backs_of_the_others(page, server, records):
    record = records[2]
    open_replay(page, replay_url(server, 2, "#turn=5"))
    assert page.locator("#hands svg.card:not(.card-back)").count() == sum(
        int(r.get_attribute("data-count")) for r in page.locator("#hands .hand-row").all()
    )
    page.select_option("#view", "1")
    assert page.url.endswith("#turn=5&seat=1")
    rows = page.locator("#hands .hand-row").all()
    for seat, row in enumerate(rows):
        count = int(row.get_attribute("data-count"))
        faces = row.locator("svg.card:not(.card-back)").count()
        backs = row.locator("svg.card-back").count()
        if seat == 1:
            assert (faces, backs) == (count, 0) and row.get_attribute("data-cards")
        else:
            assert (faces, backs) == (0, count) and row.get_attribute("data-cards") == ""
    hidden = ["hidden cards" in move.inner_text() for move in page.locator("#exchange li").all()]
    assert hidden == [1 not in (m["from"], m["to"]) for m in record["exchange"]]
    assert True in hidden and False in hidden  # the view hides what seat 1 did not see
    shot(page, "replay-seat-view")

    page.keyboard.press("ArrowRight")  # the view stays as the position moves
    assert page.url.endswith("#turn=6&seat=1") and where(page)["seat"] == "1"
    page.reload()
    page.wait_for_selector("#replay[data-ready='1']")
    assert where(page)["seat"] == "1" and page.input_value("#view") == "1"
    page.select_option("#view", "")
    assert page.locator("#hands svg.card-back").count() == 0


DROP = """([name, text]) => {
    const data = new DataTransfer();
    data.items.add(new File([text], name, { type: "application/json" }));
    for (const type of ["dragenter", "dragover", "drop"]) {
        document.body.dispatchEvent(new DragEvent(type, { dataTransfer: data, bubbles: true, cancelable: true }));
    }
}"""


def test_a_record_file_dropped_on_the_page_replays_without_the_server(page, server, records):
    open_replay(page, replay_url(server, 1))
    asked = []
    page.on("request", lambda r: asked.append(r.url))
    record = records[3]
    page.evaluate(DROP, ["game-3.json", json.dumps(record)])
    page.wait_for_selector("#replay[data-source='game-3.json']")
    assert where(page)["game"] == "3" and where(page)["at"] == "0"
    assert int(where(page)["count"]) == len(record["actions"])
    assert "game-3.json" in page.inner_text("#source")
    assert asked == []  # read in the page: no request
    page.keyboard.press("End")
    assert where(page)["order"] == record["order"]
    assert [int(s.get_attribute("data-rank")) for s in page.locator("#seats .seat").all()] == (
        record["ranks"]
    )
    shot(page, "replay-dropped-file")

    # what is not a record is refused, and the game shown stays
    page.evaluate(DROP, ["notes.json", json.dumps({"format": "something else"})])
    page.wait_for_selector("#replay-error:not([hidden])")
    assert "notes.json is not a game record" in page.inner_text("#replay-error")
    assert where(page)["source"] == "game-3.json" and where(page)["game"] == "3"


def test_a_place_s_records_chosen_with_the_file_input_replay_game_by_game(
    page, server, records, tmp_path
):
    lines = httpx.get(f"{server.url}/places/{server.place_id}/records.jsonl").text
    path = tmp_path / "place.jsonl"
    path.write_text(lines)
    open_replay(page, replay_url(server, 1))
    page.set_input_files("#record-file", str(path))
    page.wait_for_selector("#replay[data-source='place.jsonl']")
    assert page.locator("#game-choice").is_visible()
    assert page.locator("#game-choice option").count() == GAMES
    page.select_option("#game-choice", "3")  # the fourth record
    page.wait_for_selector("#replay[data-game='4']")
    assert int(where(page)["count"]) == len(records[4]["actions"])
    page.keyboard.press("ArrowRight")
    assert at(page) == 1
    shot(page, "replay-file-input")


def test_a_game_without_a_record_says_so_and_a_file_still_replays(page, server, records):
    waiting = server.manage(
        "create_place", "Not yet", *[a for n in NAMES for a in ("--player", n)], "--games", "2"
    )
    place_id = int(waiting.stdout.strip())
    page.goto(f"{server.url}/places/{place_id}/games/1/replay")
    page.wait_for_selector("#replay-error:not([hidden])")
    assert "No record to replay: no finished game 1" in page.inner_text("#replay-error")
    assert page.locator("#btn-forward").is_disabled() and page.locator("#slider").is_disabled()
    assert page.locator("#hands .hand-row").count() == 0
    shot(page, "replay-no-record")

    page.evaluate(DROP, ["game-1.json", json.dumps(records[1])])
    page.wait_for_selector("#replay[data-source='game-1.json'][data-ready='1']")
    assert page.locator("#replay-error").is_hidden()
    assert page.locator("#hands .hand-row").count() == len(NAMES)
    page.click("#btn-forward")
    assert at(page) == 1


def test_the_results_page_links_each_game_to_its_replay(page, server):
    page.goto(f"{server.url}/places/{server.place_id}/results")
    links = page.locator("#games-table a.replay-link")
    assert links.count() == GAMES
    links.nth(2).click()
    page.wait_for_url(replay_url(server, 3))
    page.wait_for_selector("#replay[data-ready='1']")
    assert where(page)["game"] == "3" and where(page)["source"] == "server"
    page.click("#previous-game")
    page.wait_for_selector("#replay[data-game='2'][data-ready='1']")


def test_the_replay_page_speaks_japanese(browser, server):
    context = browser.new_context(viewport=VIEWPORT, locale="ja-JP")
    page = context.new_page()
    errors = watch_errors(page)
    open_replay(page, replay_url(server, 2, "#turn=4"))
    assert "手札" in page.inner_text(".live-centre h2")
    assert page.inner_text("#position").startswith("第4手 · 4 / ")
    assert page.inner_text("#replay-title").endswith("第2ゲーム")
    shot(page, "replay-ja")
    assert errors == []
    context.close()


# -- crafted record files: checked against the schema, never read as markup ----------------------

#: Markup that would run or leave a trace if the page ever parsed a record's text as HTML.
PAYLOAD = '<img id="pwn" src="x" onerror="window.pwned=1"><i id="pwn-i">'
SHORT_PAYLOAD = '<i id="pwn-s">'  # fits the place's title (at most 20 characters)


def paths(doc, at=()):
    """Every path into ``doc`` (objects' keys, arrays' indices), containers and leaves."""
    yield at
    if isinstance(doc, dict):
        for key, value in doc.items():
            yield from paths(value, (*at, key))
    elif isinstance(doc, list):
        for i, value in enumerate(doc):
            yield from paths(value, (*at, i))


def changed(doc, path, value=None, drop: bool = False):
    """A deep copy of ``doc`` with the item at ``path`` set to ``value`` (or removed)."""
    copy = json.loads(json.dumps(doc))
    if not path:
        return value
    holder = copy
    for key in path[:-1]:
        holder = holder[key]
    if drop:
        del holder[path[-1]]
    else:
        holder[path[-1]] = value
    return copy


def crafted(record: dict) -> list[tuple[str, object]]:
    """Records with one field replaced by markup (short markup too), a wrong type, null, a
    list of markup, or removed; and objects with a key too many. Each kind of field once:
    only the first item of a list is changed."""
    out = []
    for path in paths(record):
        if any(isinstance(k, int) and k > 0 for k in path):
            continue
        where = "/".join(map(str, path)) or "(root)"
        for label, value in (
            ("markup", PAYLOAD),
            ("short markup", SHORT_PAYLOAD),
            ("markup list", [PAYLOAD] * 5),
            ("number", 7),
            ("null", None),
            ("object", {"<b>": PAYLOAD}),
        ):
            out.append((f"{where} as {label}", changed(record, path, value)))
        if path and isinstance(path[-1], str):
            out.append((f"{where} removed", changed(record, path, drop=True)))
        holder = record
        for key in path:
            holder = holder[key]
        if isinstance(holder, dict):
            out.append(
                (
                    f"{'/'.join(map(str, path))} with a key too many",
                    changed(record, (*path, PAYLOAD), 1),
                )
            )
    return out


def test_the_page_s_schema_check_agrees_with_the_server_s_on_crafted_records(page, server, records):
    from daifugo.record_schema import validator

    open_replay(page, replay_url(server, 1))
    cases = crafted(records[2]) + [("a valid record", records[n]) for n in records]
    found = page.evaluate(
        "docs => docs.map((d) => window.replay.problems(d))", [d for _, d in cases]
    )
    disagree = [
        (name, problems)
        for (name, doc), problems in zip(cases, found, strict=True)
        if (problems == []) != validator().is_valid(doc)
    ]
    assert disagree == []
    assert len(cases) > 250 and 0 < sum(1 for p in found if p == []) < 30  # most are refused


#: Drops each ``[file, text]`` on the page and waits for its verdict (drawn, or refused
#: naming the file); then steps to the deal and to the end with every rank, counting the
#: traces markup would leave. In the page, one call for many files: a round trip a step
#: cost 45 s over the 230 files.
DROP_EACH = (
    """async (files) => {
    const drop = """
    + DROP
    + """;
    const replay = document.getElementById("replay");
    const error = document.getElementById("replay-error");
    const settled = () => new Promise((done) => setTimeout(done, 0));
    const shown = (el) => {
        const box = el.getBoundingClientRect();
        return box.width > 0 && box.height > 0 && getComputedStyle(el).visibility !== "hidden";
    };
    const out = [];
    for (const [file, text] of files) {
        drop([file, text]);
        const deadline = performance.now() + 30000;
        while (replay.dataset.source !== file && !error.textContent.includes(file)) {
            if (performance.now() > deadline) throw new Error(`no verdict on ${file}`);
            await new Promise((done) => setTimeout(done, 5));
        }
        const traces = [];
        for (const position of [0, Number(replay.dataset.count)]) {
            window.replay.go(position);
            await settled();
            traces.push(document.querySelectorAll("[id^=pwn]").length, window.pwned || 0);
        }
        out.push({
            drawn: replay.dataset.source === file,
            traces,
            error_shown: shown(error),
            error: error.innerText,
        });
    }
    return out;
}"""
)


def test_crafted_record_files_at_every_field_are_refused_or_drawn_as_text(page, server, records):
    """A file whose any field holds markup is refused by the schema (a name shows as text)."""
    open_replay(page, replay_url(server, 1))
    cases = crafted(records[2])
    files = [[f"crafted-{n}.json", json.dumps(doc)] for n, (_, doc) in enumerate(cases)]
    verdicts = [
        v for at in range(0, len(files), 40) for v in page.evaluate(DROP_EACH, files[at : at + 40])
    ]
    refused = drawn = 0
    for (name, _), verdict in zip(cases, verdicts, strict=True):
        assert verdict["traces"] == [0, 0, 0, 0], name
        if verdict["drawn"]:
            drawn += 1
            assert not verdict["error_shown"], name
        else:
            refused += 1
            assert "is not a game record" in verdict["error"], name
    assert refused > 200 and drawn >= 2  # the names and the title take text


def test_a_record_with_markup_in_names_and_title_draws_it_as_text(page, server, records):
    doc = json.loads(json.dumps(records[2]))
    doc["players"][1]["name"] = PAYLOAD
    doc["place"]["title"] = SHORT_PAYLOAD
    open_replay(page, replay_url(server, 1))
    page.evaluate(DROP, ["names.json", json.dumps(doc)])
    page.wait_for_selector("#replay[data-source='names.json']")
    page.keyboard.press("End")
    assert PAYLOAD in page.inner_text("#seats") and PAYLOAD in page.inner_text("#hands")
    assert PAYLOAD in page.inner_text("#moves") and SHORT_PAYLOAD in page.inner_text(
        "#replay-title"
    )
    assert page.locator("[id^=pwn]").count() == 0 and page.evaluate("window.pwned") is None
    shot(page, "replay-crafted-names")


def test_the_issue_s_record_of_markup_ranks_is_refused(page, server, records):
    """Issue 28 item 6: ``ranks`` was only checked to be a list, and written into the page."""
    doc = json.loads(json.dumps(records[2]))
    doc["ranks"] = [PAYLOAD, 2, 3, 4, 5]
    doc["exchange"] = [{"from": "length", "to": 0, "cards": ["1-3"]}]
    open_replay(page, replay_url(server, 1))
    page.evaluate(DROP, ["ranks.json", json.dumps(doc)])
    page.wait_for_selector("#replay-error:not([hidden])")
    error = page.inner_text("#replay-error")
    assert "ranks.json is not a game record" in error and "$.ranks[0]" in error
    assert page.locator("[id^=pwn]").count() == 0 and page.evaluate("window.pwned") is None
    assert where(page)["source"] == "server"
    shot(page, "replay-crafted-ranks")
