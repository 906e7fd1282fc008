"""The 2011 way: a bot that drives the pages like the founding document's Mechanize sample.

``PlayerAccsesor`` GETs /login, fills and submits its first form, reads
``/operations/get_hand.json``, and plays by GETting /operations and
submitting the page's first form with ``card_0`` … set. Five such bots play a
whole place here with Django's test client; each chooses a legal play from the
hand it read over HTTP and the table the event stream announced.
"""

from __future__ import annotations

import json
import random

import pytest
from django.test import Client

from daifugo.cards import mask_of, sorted_ids
from daifugo.legal import legal_plays
from daifugo.plays import read_play
from places.models import Game, Place, PlaceEvent, Rank, Turn
from tests.api.conftest import NAMES
from tests.api.helpers import body, forms, submit

pytestmark = pytest.mark.django_db


class PlayerAccsesor:  # sic, the sample's name
    LOGIN_URL = "/login"
    GET_HAND_URL = "/operations/get_hand.json"
    OPERATION_URL = "/operations"

    def __init__(self, user_name: str, password: str, place_id: int):
        self.agent = Client()
        page = self.agent.get(self.LOGIN_URL)
        form = forms(body(page))[0]
        done = submit(
            self.agent, form, {"name": user_name, "password": password, "place_id": str(place_id)}
        )
        assert done.status_code == 302, body(done)
        assert self.agent.get(done["Location"]).status_code == 200  # Mechanize follows it
        self.outcomes: list[str] = []

    def get_hand(self) -> list[dict]:
        return json.loads(self.agent.get(self.GET_HAND_URL).content)

    def place_info(self) -> dict:
        return json.loads(self.agent.get("/operations/get_place_info.json").content)

    def post_cards(self, cards: list[dict]) -> None:
        page = self.agent.get(self.OPERATION_URL)
        form = forms(body(page))[0]
        values = {f"card_{i}": self.card_to_string(card) for i, card in enumerate(cards)}
        done = submit(self.agent, form, values)
        assert done.status_code == 302, body(done)
        after = body(self.agent.get(done["Location"]))
        self.outcomes.append(next(w for w in ("played", "passed", "missed") if w in after))

    @staticmethod
    def card_to_string(card: dict) -> str:
        return "joker" if card["joker"] else f"{card['mark']}-{card['number']}"


def announced_table(place_id: int) -> tuple[list[int], bool]:
    """The table of the open turn, as its ``start_turn`` event told every bot."""
    event = PlaceEvent.objects.filter(place_id=place_id, operation="start_turn").last()
    message = json.loads(event.message)
    return [c["card"]["id"] for c in message["place_cards"]], message["place_info"] == "Revolution"


def choose(hand: list[dict], table_ids: list[int], revolution: bool, rng) -> list[dict]:
    """A random legal play, or a pass when following (never a miss)."""
    mask = mask_of(c["card"]["id"] for c in hand)
    readings = read_play(mask_of(table_ids), revolution) if table_ids else (None,)
    if len(readings) > 1:  # one card and two jokers: a group or a stair; passing is safe
        return []
    options = legal_plays(mask, readings[0], revolution)
    if table_ids:
        options = [*options, None]
    pick = rng.choice(options)
    if pick is None:
        return []
    by_id = {c["card"]["id"]: c["card"] for c in hand}
    return [by_id[cid] for cid in sorted_ids(pick.mask)]


def test_five_mechanize_style_bots_play_a_whole_place(make_place):
    place = make_place(game_count=2)
    bots = {name: PlayerAccsesor(name, f"{name}-pw", place.id) for name in NAMES}
    rng = random.Random(2011)
    for _ in range(2000):
        info = bots["alice"].place_info()
        if info["turn_player"] is None:
            break
        bot = bots[info["turn_player"]]
        table, revolution = announced_table(place.id)
        bot.post_cards(choose(bot.get_hand(), table, revolution, rng))
    place = Place.objects.get(pk=place.id)
    assert place.state == Place.State.FINISHED
    assert Game.objects.filter(place=place, status=Game.FINISHED).count() == 2
    assert Rank.objects.filter(game__place=place).count() == 10
    outcomes = [o for bot in bots.values() for o in bot.outcomes]
    assert "missed" not in outcomes
    assert outcomes.count("played") > 10
    assert Turn.objects.filter(game__place=place).count() == len(outcomes)
    assert not Turn.objects.filter(game__place=place, outcome=Turn.Outcome.MISS).exists()
