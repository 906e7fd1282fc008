"""End to end: a person signs up over HTTP, their bot practises over the wire, and
``manage.py stop_place`` (another process) stops the place mid-game: the server's dealer
aborts it, the bot hears ``end_place`` and exits instead of waiting (issue 27)."""

from __future__ import annotations

import time

import httpx
import pytest

from tests.timing import guard

#: Without Redis the stop reaches the server through the database alone: the embedded default's own.
pytestmark = [pytest.mark.e2e, pytest.mark.embedded_default]

PASSWORD = "correct-horse-9"


def test_a_signed_up_bot_practises_and_stops_when_the_place_is_stopped(server):
    made = httpx.post(
        f"{server.url}/signup.json", data={"name": "pia", "password": PASSWORD}, timeout=30
    )
    assert made.status_code == 201 and made.json() == {"player": "pia"}
    answer = httpx.post(
        f"{server.url}/practice.json",
        data={
            "name": "pia",
            "password": PASSWORD,
            "games": "100",
            "pace": "0.05",
            "time_limit": "30",
        },
        timeout=30,
    )
    assert answer.status_code == 200, answer.text
    place_id = answer.json()["place"]
    bot = server.bot(place_id, "pia", PASSWORD, "greedy", "ws")
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:  # a game over, the next one under way
            if any(e["operation"] == "end_game" for e in server.events(place_id)):
                break
            time.sleep(0.5)
        stopped = server.manage("stop_place", str(place_id))
        assert stopped.stdout.strip() in (f"place {place_id} stopping", f"place {place_id} aborted")
        out, _ = bot.communicate(timeout=guard(60))  # it must not hang
    finally:
        if bot.poll() is None:
            bot.kill()
            bot.wait()
    assert bot.returncode == 0, out
    assert "Traceback" not in out, out
    events = server.events(place_id)
    assert events[-1]["operation"] == "end_place"
    finished = sum(e["operation"] == "end_game" for e in events)
    started = sum(e["operation"] == "start_game" for e in events)
    assert 1 <= finished < 100 and started in (finished, finished + 1)
    info = httpx.get(f"{server.url}/places/{place_id}/state.json", timeout=10).json()
    assert info["place"]["state"] == "aborted" and info["games_finished"] == finished
    records = httpx.get(f"{server.url}/places/{place_id}/records.jsonl", timeout=30).text
    assert len(records.splitlines()) == finished  # the game dropped has no record
    assert httpx.get(f"{server.url}/users/pia.json", timeout=10).json()["games"] == finished
