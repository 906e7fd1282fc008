"""End to end: POST /practice.json with a name and password makes a place of that user and
four house bots; one ``python -m bots`` process plays it over the wire to the end, while
the server plays the house seats itself."""

from __future__ import annotations

import json

import httpx
import pytest

from daifugo.replay import Replayed, replay_records
from tests.e2e.event_replay import check_stream

pytestmark = pytest.mark.e2e

GAMES = 2
SEED = "practice-e2e"
BOTS = "greedy,shedder,random,greedy"


def test_one_wire_bot_plays_a_practice_place_to_the_end_against_four_house_bots(server):
    server.manage("create_user", "pia", "--password", "pia-pw")
    answer = httpx.post(
        f"{server.url}/practice.json",
        data={
            "name": "pia",
            "password": "pia-pw",
            "bots": BOTS,
            "games": str(GAMES),
            "pace": "0",
            "time_limit": "30",  # a bot process starting on a busy machine
            "seed": SEED,
        },
        timeout=30,
    )
    assert answer.status_code == 200, answer.text
    doc = answer.json()
    place_id, players = doc["place"], doc["players"]
    assert doc["player"] == "pia" and players[doc["seat"]] == "pia"
    assert doc["state"] == "running"
    # the session of the answer is pia's, in the new place
    info = httpx.get(
        f"{server.url}{doc['urls']['play']}/get_place_info.json", cookies=answer.cookies
    ).json()
    assert info["turn_player"] == "pia"  # at pace 0 the house played up to her turn

    bot = server.bot(place_id, "pia", "pia-pw", "greedy", "ws")
    out, _ = bot.communicate(timeout=120)
    assert bot.returncode == 0, out
    assert "miss 0" in out and "Traceback" not in out, out

    events = server.events(place_id)
    assert events[-1]["operation"] == "end_place"
    summary = check_stream(events, players, game_count=GAMES, seed=SEED)
    assert sum(summary.points) == GAMES * 10
    house = [n for n in players if n != "pia"]
    house_moves = [e for e in events if e["operation"] == "end_turn" and e["player"] in house]
    assert house_moves and any(e["turn_cards"] for e in house_moves)
    # every turn the house took was settled by the server, and written down like a post
    code = (
        "import json; from places.models import Turn; "
        f"print(json.dumps([[t.player.user.username, t.outcome, t.submitted, t.cards] "
        f"for t in Turn.objects.filter(game__place_id={place_id}).select_related('player__user')]))"
    )
    turns = json.loads(server.manage("shell", "--no-imports", "-c", code).stdout)
    for name, outcome, submitted, cards in turns:
        if name in house:
            assert outcome != "timeout"  # never left open: the server answered at once
            # a miss too is the engine's judgement of what the strategy wrote
            assert len(submitted) == len(cards) or (outcome == "miss" and submitted)
    assert sum(1 for name, *_ in turns if name == "pia") == int(out.split(" turns")[0].split()[-1])
    # the place's records (the answer's URL) replay through the engine to their ranks
    lines = httpx.get(f"{server.url}{doc['urls']['records']}", timeout=30).text.splitlines()
    replayed = list(replay_records(json.loads(line) for line in lines))
    assert len(replayed) == GAMES
    assert all(isinstance(r, Replayed) for r in replayed), [str(r) for r in replayed]
