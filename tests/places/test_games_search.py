"""The game search (``/games.json``, ``/games``; places/reads/games.py): every answer is the
one the records give, worked out here from the records themselves (not from the index),
for 2011 places (played, with a miss and a timeout made by hand) and a UECda place
imported from a log (revolutions, locks, 8-cuts, ♠3 returns, draws, rejected tables).
"""

from __future__ import annotations

import random
from datetime import timedelta
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from daifugo import facts
from places import services
from places.models import Game, GameEntry, GameFact, Place, Player
from places.presentation.replay_uecda import positions
from places.reads import games
from places.reads.records import place_records
from places.services import uecda

from .drive import choose, engine_state, play_out
from .test_uecda_import import fixture_bytes

pytestmark = pytest.mark.django_db


def _by_hand(place_id: int) -> None:
    """Game 1's first turn a miss (a card nobody holds twice: one not in the hand), its
    second a timeout; then legal play to the end."""
    state = engine_state(place_id)
    user_ids = {s.seat: s.user_id for s in Place.objects.get(pk=place_id).players.all()}
    hand = state.game.hands[state.game.turn]
    held = _written(hand)
    not_held = next(
        f"{m}-{n}" for m in (1, 2, 3, 4) for n in range(1, 14) if f"{m}-{n}" not in held
    )
    services.post_cards(place_id, user_ids[state.game.turn], [not_held])
    services.run_due(place_id, now=timezone.now() + timedelta(days=1))
    play_out(place_id, seed=5)


def _written(hand: int) -> set[str]:
    from daifugo.cards import format_card, sorted_ids

    return {format_card(c) for c in sorted_ids(hand)}


@pytest.fixture
def seeded(make_place):
    """Two 2011 places played out (one with a miss and a timeout), and an imported UECda log."""
    first = make_place(game_count=4, seed="search-1")
    services.start_place(first.id)
    play_out(first.id, seed=1)
    second = make_place(game_count=3, seed="search-2", time_limit=5.0)
    services.start_place(second.id)
    _by_hand(second.id)
    imported = uecda.import_tndhms_log(fixture_bytes()).place
    return [first, second, imported]


# -- what the records say, worked out without the index ------------------------------------


def _facts_2011(record: dict) -> list[tuple[int, str, str, int]]:
    out = []
    for a in record["actions"]:
        if a["verdict"] == "timeout":
            out.append((a["seat"], facts.TIMEOUT, "", a["turn"]))
        elif a["verdict"] == "miss":
            out += [
                (a["seat"], facts.MISS, a["reason"], a["turn"]),
                (a["seat"], facts.MISS, "", a["turn"]),
            ]
        elif a["verdict"] == "play":
            numbers = [c.split("-")[1] for c in a["cards"] if c != "joker"]
            if len(a["cards"]) >= 4 and len(set(numbers)) <= 1:
                out.append((a["seat"], facts.REVOLUTION, "", a["turn"]))
            if "8" in numbers:
                out.append((a["seat"], facts.EIGHT_CUT, "", a["turn"]))
    return out


def _facts_v2(record: dict) -> list[tuple[int, str, str, int]]:
    """From the replay page's positions (``places.presentation.replay_uecda``)."""
    out = []
    shown = positions(record)
    for action, was, pos in zip(record["actions"], shown[:-1], shown[1:], strict=True):
        p, turn, event = action["player"], action["turn"], pos["event"]
        if event["verdict"] == "rejected":
            out += [(p, facts.MISS, facts.REJECTED, turn), (p, facts.MISS, "", turn)]
        for flag, kind in (("revolution", facts.REVOLUTION), ("eight_cut", facts.EIGHT_CUT),
                           ("spade3", facts.SPADE3_RETURN), ("locks", facts.LOCK)):  # fmt: skip
            if event[flag] and (flag != "locks" or event["verdict"] == "play"):
                out.append((p, kind, "", turn))
        if event["draw"]:
            # the players still in when it began (a pass goes nobody out)
            out += [(q, facts.DRAW, "", turn) for q, r in enumerate(was["ranks"]) if not r]
    return out


def _games(places: list[Place]) -> list[dict]:
    """Every game of the places as the records give it, newest first."""
    ids = dict(((g.place_id, g.no), g.id) for g in Game.objects.filter(place__in=places))
    out = []
    for place in places:
        for r in place_records(place.id, staff=True):
            v2 = r["version"] == 2
            names = {(p["player"] if v2 else p["seat"]): p["name"] for p in r["players"]}
            out.append(
                {
                    "id": ids[place.id, r["game"]],
                    "place": place.id,
                    "game": r["game"],
                    "rules": place.rules,
                    "tournament": place.tournament_id,
                    "ranks": {names[s]: rank for s, rank in enumerate(r["ranks"])},
                    "facts": [(names[s], k, c, t) for s, k, c, t in (_facts_v2(r) if v2 else _facts_2011(r))],
                }
            )  # fmt: skip
    return sorted(out, key=lambda g: -g["id"])


def expected(games: list[dict], **q) -> list[tuple[int, int, int | None]]:
    """(place, game, turn) of each game the search should find, newest first."""
    found = []
    for g in games:
        player, opponent = q.get("player"), q.get("opponent")
        if player and player not in g["ranks"] or opponent and opponent not in g["ranks"]:
            continue
        if "rank" in q and g["ranks"][player] != q["rank"]:
            continue
        if "rules" in q and g["rules"] != q["rules"] or "place" in q and g["place"] != q["place"]:
            continue
        turn = None
        if "has" in q:
            turns = [t for who, k, c, t in g["facts"]
                     if k == q["has"] and c == q.get("miss", "") and who == (player or who)]  # fmt: skip
            if not turns:
                continue
            turn = min(turns)
        found.append((g["place"], g["game"], turn))
    return found


def answered(client: Client, **q) -> list[tuple[int, int, int | None]]:
    """Every page of the search, followed by its ``next``."""
    out, url, params = [], "/games.json", {k: str(v) for k, v in q.items()}
    while url:
        response = client.get(url, params)
        assert response.status_code == 200, response.content
        doc = response.json()
        out += [(g["place"]["id"], g["game"], g["turn"]) for g in doc["games"]]
        url, params = doc["next"], None
    return out


QUERIES = [
    {},
    {"player": "alice"},
    {"player": "alice", "rank": 1},
    {"player": "bob", "opponent": "charlie"},
    {"opponent": "stock0"},
    {"rules": "uecda", "has": "revolution"},
    {"player": "stock1", "has": "revolution"},
    {"has": "eight_cut"},
    {"player": "alice", "has": "eight_cut"},
    {"has": "lock"},
    {"player": "stock2", "has": "lock", "opponent": "stock0"},
    {"has": "spade3_return"},
    {"has": "draw"},
    {"has": "timeout"},
    {"has": "miss"},
    {"has": "miss", "miss": "CARD_NOT_HELD"},
    {"has": "miss", "miss": "REJECTED"},
    {"player": "stock3", "has": "miss", "miss": "REJECTED"},
    {"place": 0, "has": "revolution"},
]


def test_every_search_finds_what_the_records_say(client, seeded):
    games = _games(seeded)
    kinds_seen = {k for g in games for _, k, _, _ in g["facts"]}
    # the seeded games hold every kind of fact but the ♠3 return (the log has none:
    # test_a_spade_3_return_is_a_fact), and games without each (of a player)
    assert kinds_seen == set(facts.KINDS) - {facts.SPADE3_RETURN}
    names = {name for g in games for name in g["ranks"]}
    for kind in kinds_seen:  # a player with games where it happens and games where not
        assert any(
            0 < len(expected(games, player=n, has=kind)) < len(expected(games, player=n))
            for n in names
        ), kind
    for q in QUERIES:
        if q.get("place") == 0:
            q = {**q, "place": seeded[2].id}
        want = expected(games, **q)
        assert answered(client, **q, limit=7) == want, q
    assert len(answered(client)) == len(games) == 4 + 3 + 250


def test_each_result_links_the_replay_at_its_turn(client, seeded):
    doc = client.get("/games.json", {"player": "alice", "has": "eight_cut", "limit": 1}).json()
    (g,) = doc["games"]
    seat = next(p["seat"] for p in g["players"] if p["name"] == "alice")
    place, no, turn = g["place"]["id"], g["game"], g["turn"]
    assert g["replay"] == f"/places/{place}/games/{no}/replay#turn={turn}&seat={seat}"
    assert g["record"] == f"/places/{place}/games/{no}/record.json"
    assert doc["next"].startswith("/games.json?") and "before=" in doc["next"]
    doc = client.get("/games.json", {"has": "lock", "limit": 1}).json()
    (g,) = doc["games"]
    assert g["replay"].endswith(f"/games/{g['game']}/replay#turn={g['turn']}")
    assert g["rules"] == "uecda" and len(g["players"]) == 5


def test_paging_lists_each_game_once(client, seeded):
    every = answered(client, limit=200)
    paged = answered(client, limit=13)
    assert paged == every and len(set(every)) == len(every)


@pytest.mark.parametrize(
    "query, parameter",
    [
        ({"has": "luck"}, "has"),
        ({"rules": "chess"}, "rules"),
        ({"miss": "NOPE"}, "miss"),
        ({"has": "lock", "miss": "REJECTED"}, "miss"),
        ({"rank": "1"}, "rank"),
        ({"player": "alice", "rank": "6"}, "rank"),
        ({"limit": "0"}, "limit"),
        ({"limit": "201"}, "limit"),
        ({"limit": "²"}, "limit"),  # isdigit, but no int
        ({"limit": "٣"}, "limit"),  # 3 to int
        ({"limit": "9" * 5000}, "limit"),  # beyond int's digits
        ({"place": "x"}, "place"),
        ({"since": "yesterday"}, "since"),
        ({"version": "v2"}, "version"),
        ({"before": "-1"}, "before"),
    ],
)
def test_a_bad_parameter_is_refused_by_name(client, query, parameter):
    response = client.get("/games.json", query)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "INVALID_PARAMETER" and error["message"].startswith(f"{parameter}:")
    page = client.get("/games", query)
    assert page.status_code == 400 and 'id="games-problem"' in page.content.decode()


def test_a_version_finds_the_games_of_the_player_s_seats_that_played_it(client, seeded):
    """v1 in the first place, v2 in the second (the label of the token each seat posted
    with): each version finds its place's games, a version never played finds none."""
    first, second, _ = seeded
    alice = Player.objects.filter(place=first, user__username="alice")
    alice.update(version="v1")
    Player.objects.filter(place=second, user__username="alice").update(version="v2")

    def places_of(**query) -> set[int]:
        found = client.get("/games.json", {"player": "alice", "limit": "200", **query}).json()
        assert found["next"] is None
        return {g["place"]["id"] for g in found["games"]}

    assert places_of(version="v1") == {first.id}
    assert places_of(version="v2") == {second.id}
    assert places_of(version="v3") == set()
    assert places_of() == {first.id, second.id}
    games_v2 = client.get("/games.json", {"player": "alice", "version": "v2"}).json()["games"]
    assert len(games_v2) == 3  # every game of the second place
    assert places_of(version="v1", has="miss") <= {first.id}
    page = client.get("/games", {"player": "alice", "version": "v2"}).content.decode()
    assert 'name="version" value="v2"' in page


def test_an_unknown_player_finds_nothing(client, seeded):
    assert client.get("/games.json", {"player": "nobody"}).json() == {"games": [], "next": None}


def test_since_and_until_bound_the_games_ended(client, seeded):
    now = timezone.now()
    GameEntry.objects.filter(place_id=seeded[0].id).update(ended_at=now - timedelta(days=10))
    old = answered(client, until=(now - timedelta(days=5)).date().isoformat())
    assert {p for p, _, _ in old} == {seeded[0].id} and len(old) == 4
    recent = answered(client, since=(now - timedelta(days=5)).isoformat())
    assert seeded[0].id not in {p for p, _, _ in recent} and len(recent) == 253


def test_the_migration_fills_the_index_as_the_games_ending_now_do(seeded):
    """Migration 0009's filling, run again on the games written since: the same rows."""
    import importlib

    from django.apps import apps

    def rows():
        return (
            sorted(GameEntry.objects.values_list("game_id", "user_id", "place_id", "rules", "no", "seat", "rank")),
            sorted(GameFact.objects.values_list("game_id", "user_id", "kind", "code", "turn")),
        )  # fmt: skip

    written = rows()
    assert written[0] and written[1]
    GameEntry.objects.all().delete()
    GameFact.objects.all().delete()
    importlib.import_module("places.migrations.0010_game_index").fill_index(apps, None)
    assert rows() == written


@pytest.fixture
def twins(make_place) -> tuple[Place, Place]:
    """Two places dealt by one seed: the first played out, the second not started."""
    first = make_place(game_count=2, seed="twin")
    second = make_place(game_count=2, seed="twin", pace=None)
    services.start_place(first.id)
    play_out(first.id)
    return first, second


def test_a_game_held_back_is_found_by_staff_only(client, twins):
    first, second = twins
    staff = Client()
    staff.force_login(get_user_model().objects.create_superuser("boss", password="boss-pw"))
    assert answered(client, place=first.id) == []
    assert answered(staff, place=first.id) == [(first.id, 2, None), (first.id, 1, None)]
    assert "/games/1/replay" not in client.get("/games", {"place": first.id}).content.decode()
    services.start_place(second.id)
    rng = random.Random(0)
    users = {s.seat: s.user_id for s in second.players.all()}
    while Game.objects.filter(place=second, status=Game.FINISHED).count() < 1:
        state = engine_state(second.id)
        if not state.needs_action:
            services.next_turn(second.id)
        else:
            services.post_cards(second.id, users[state.game.turn], choose(state, rng))
    assert answered(client, place=first.id) == [(first.id, 1, None)]
    play_out(second.id)
    assert answered(client, place=first.id) == [(first.id, 2, None), (first.id, 1, None)]


def test_a_spade_3_return_is_a_fact():
    """A hand-made UECda game: ♦3 led, the joker alone on it, the ♠3 on the joker."""
    record = {
        "rules": "uecda",
        "hands": [["3-3", "1-5"], ["joker", "1-9"], ["1-3", "2-6"], ["1-7", "2-7"], ["1-8", "2-8"]],
        "seats": [0, 1, 2, 3, 4],
        "actions": [
            {"turn": 1, "player": 0, "table": "D3", "verdict": "play", "reset": False},
            {"turn": 2, "player": 1, "table": "Kx", "verdict": "play", "reset": False},
            {"turn": 3, "player": 2, "table": "S3", "verdict": "play", "reset": True},
        ],
    }
    assert facts.facts_uecda(record) == [facts.Fact(2, facts.SPADE3_RETURN, "", 3)]
    record["actions"] = record["actions"][:2]
    assert facts.facts_uecda(record) == []


def test_the_page_says_that_with_a_player_has_finds_what_the_player_did(client, db):
    """``player=X&has=revolution`` is X's revolutions, which one reads as X's games with
    a revolution: the page says which it is, in both languages."""
    text = client.get("/games", {"player": "stock0", "has": "revolution"}).content.decode()
    assert (
        'id="games-by-player">Games where stock0 did it: revolution by stock0, not every game '
        "of stock0's where anyone did.</p>" in text
    )
    assert (
        'id="games-by-player"' not in client.get("/games", {"has": "revolution"}).content.decode()
    )
    ja = client.get(
        "/games", {"player": "stock0", "has": "revolution"}, HTTP_ACCEPT_LANGUAGE="ja"
    ).content.decode()
    assert "stock0 による revolution です" in ja


def test_the_protocol_doc_lists_every_parameter_the_search_reads():
    """docs/protocol.md's table of /games.json is the search's own list (``version``
    was once said to be unrecorded, long after games recorded it)."""
    doc = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text()
    table = doc.split("### Finding games")[1].split("```json")[0]
    for name in games.PARAMETERS:
        assert f"| `{name}`" in table or f", `{name}`" in table, name
    assert "version yet" not in doc
