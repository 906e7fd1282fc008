"""Tournament secrecy (docs/records.md, "Who sees what, and when"): nothing public tells a
card of a hand still being played but its holder's own.

A round robin and a duplicate tournament with seeds are played in-process (house bots
and one entrant played by the test); at every game of every place the entrant plays,
an attacker reads everything public, as anyone and as that entrant, and tries to
name the cards of the other seats: by replaying the deal from every published seed
(and from the seeds they suggest) with the engine's deal function, and by looking for
its own hand among published records and the plays of the event logs.
"""

from __future__ import annotations

import csv
import hashlib
import hmac
import io
import json
import random
import re
from collections import Counter
from dataclasses import dataclass, field

import pytest
from asgiref.sync import async_to_sync
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client

from daifugo.cards import format_card, sorted_ids
from daifugo.deal import game_rng
from daifugo.place import make_deal
from daifugo.replay import Replayed, replay_records
from places import dealer, errors, services
from places.models import Hand, Place, Tournament
from places.reads.records import place_records
from places.services.tournaments import table_seed

from .drive import choose, engine_state
from .test_tournaments import house_entrants

pytestmark = pytest.mark.django_db

ATTACKER, PASSWORD = "mallory", "mallory-secret"
#: The tournament's seed: not one the attacker guesses (a guessed one: see
#: ``test_a_guessed_tournament_seed_tells_no_table_seed``).
SEED = "4f1c-final"
GAMES = 2
#: The development key is public: an attacker tries it too.
DEV_KEY = "django-insecure-daihinmin-development-key-do-not-use-in-production"

Hand_ = tuple[str, ...]  # a hand as sorted card strings (both jokers are "joker")


def written(ids) -> Hand_:
    return tuple(sorted(format_card(c) for c in ids))


def card_ids(doc_cards: list[dict]) -> Hand_:
    """Cards as the documents and events write them (``{"card": {"id": …}}``)."""
    return written(c["card"]["id"] for c in doc_cards)


@dataclass
class Knowledge:
    """What the attacker has read; seeds and records are kept (they are never taken back)."""

    seeds: set[str] = field(default_factory=set)
    deals: dict[tuple[int, int], list[Hand_]] = field(default_factory=dict)  # (place, game)
    #: (place, game number) → player → cards played, from the event logs read this time
    plays: dict[tuple[int, int], dict[str, Counter]] = field(default_factory=dict)
    #: place → player → cards held now, had the staff's ``players_card.json`` answered
    cards: dict[int, dict[str, Hand_]] = field(default_factory=dict)
    held_back: int = 0  # answers that said HELD_BACK
    read: int = 0  # answers read


class Attacker:
    """An entrant, and anyone else: reads every public route, JSON, XML, CSV and pages."""

    def __init__(self, tournament_id: int, title: str, names: list[str]):
        self.tournament_id = tournament_id
        self.title = title
        self.names = names
        self.anyone = Client()
        self.entrant = Client()
        self.known = Knowledge()
        self.logged_in: int | None = None

    def _get(self, client: Client, path: str) -> str:
        response = client.get(path)
        self.known.read += 1
        if response.streaming:  # records.jsonl: read to its end as a client would
            text = async_to_sync(drained)(response).decode()
        else:
            text = response.content.decode()
        if response.status_code == 403 and errors.HELD_BACK in text:
            self.known.held_back += 1
        assert response.status_code in (200, 401, 403, 404), (path, response.status_code)
        self._seeds(text)
        return text if response.status_code == 200 else ""

    def _seeds(self, text: str) -> None:
        """Every seed written anywhere: JSON ``"seed":"…"``, XML ``<seed>…</seed>``."""
        self.known.seeds |= set(re.findall(r'"seed"\s*:\s*"([^"]+)"', text))
        self.known.seeds |= set(re.findall(r"<seed>([^<]+)</seed>", text))

    def _record(self, record: dict) -> None:
        self.known.deals[(record["place"]["id"], record["game"])] = [
            tuple(sorted(hand)) for hand in record["dealt"]
        ]

    def _events(self, place_id: int, text: str) -> None:
        game_no = 0
        for event in json.loads(text)["events"]:
            if event["operation"] == "start_game":
                game_no = event["game"]["no"]
            elif event["operation"] == "end_turn" and event["turn_cards"]:
                seen = self.known.plays.setdefault((place_id, game_no), {})
                seen.setdefault(event["player"], Counter()).update(card_ids(event["turn_cards"]))

    def crawl(self) -> None:
        """Read every public route of the site that concerns the tournament, as anyone."""
        self.known.plays = {}
        t = self.tournament_id
        for path in ("/", "/tournaments/", f"/tournaments/{t}/", "/ratings", "/ratings.json"):
            self._get(self.anyone, path)
        doc = json.loads(self._get(self.anyone, f"/tournaments/{t}.json"))
        list(csv.reader(io.StringIO(self._get(self.anyone, f"/tournaments/{t}/standings.csv"))))
        for name in self.names:
            self._get(self.anyone, f"/users/{name}")
            self._get(self.anyone, f"/users/{name}.json")
        for table in doc["tables"]:
            p = table["place"]
            for page in ("", "state.json", "results", "results.csv"):
                self._get(self.anyone, f"/places/{p}/{page}")
            if events := self._get(self.anyone, f"/places/{p}/events.json"):
                self._events(p, events)
            for line in self._get(self.anyone, f"/places/{p}/records.jsonl").splitlines():
                self._record(json.loads(line))
            for no in range(1, GAMES + 1):
                self._get(self.anyone, f"/places/{p}/games/{no}/replay")
                if record := self._get(self.anyone, f"/places/{p}/games/{no}/record.json"):
                    self._record(json.loads(record))
            for client in (self.anyone, self.entrant):  # staff's: refused, else used
                self._get(client, f"/places/{p}/info.json")
                self._get(client, f"/places/{p}/graph.json")
                if cards := self._get(client, f"/places/{p}/players_card.json"):
                    self.known.cards[p] = {
                        seat["name"]: card_ids(seat["cards"]) for seat in json.loads(cards)
                    }
            exported = io.StringIO()
            call_command("export_records", str(p), stdout=exported)
            self._seeds(exported.getvalue())
            for line in exported.getvalue().splitlines():
                self._record(json.loads(line))

    def own_hand(self, place_id: int) -> tuple[Hand_, set[str]]:
        """As the entrant playing ``place_id``: the documents in JSON and XML, the page.

        Returns the hand dealt in the game being played and every card it has held in it.
        """
        if self.logged_in != place_id:
            response = self.entrant.post(
                "/login.json", {"name": ATTACKER, "password": PASSWORD, "place_id": place_id}
            )
            assert response.status_code == 200, response.content
            self.logged_in = place_id
        for document in ("get_hand", "get_initial_hand", "get_place_info", "get_rank"):
            self._get(self.entrant, f"/{document}.xml")
            self._get(self.entrant, f"/operations/{document}.json")
        self._get(self.entrant, "/operations")
        dealt = card_ids(json.loads(self._get(self.entrant, "/get_initial_hand.json")))
        now = card_ids(json.loads(self._get(self.entrant, "/get_hand.json")))
        return dealt, set(dealt) | set(now)

    def candidate_seeds(self, tables: int) -> set[str]:
        """The published seeds, and what they suggest: ``base:k`` for every table k of a
        seed ``base:j``, the title and the seeds themselves as a tournament's seed (with
        ``:k``, and keyed with the public development key)."""
        bases = {self.title, *self.known.seeds}
        bases |= {s.rsplit(":", 1)[0] for s in self.known.seeds if ":" in s}
        found = set(bases)
        for base in bases:
            for k in range(tables):
                found.add(f"{base}:{k}")
                found.add(_keyed(DEV_KEY, base, k))
        return found

    def name_cards(self, place_id: int, game_no: int, tables: int) -> dict[str, Hand_]:
        """The hands of other seats the attacker can name for game ``game_no`` of the
        place it plays: a deal is taken as found when it holds the attacker's own hand."""
        self.crawl()
        dealt, held = self.own_hand(place_id)
        named: dict[str, Hand_] = {}
        for seed in self.candidate_seeds(tables):
            hands = [
                written(sorted_ids(h)) for h in make_deal(game_rng(seed, game_no), 5, None).dealt
            ]
            if dealt in hands:
                named |= {f"seed {seed!r}, seat {s}": h for s, h in enumerate(hands) if h != dealt}
        for where, hands in self.known.deals.items():
            if where[1] == game_no and dealt in hands:
                named |= {f"record {where}, seat {s}": h for s, h in enumerate(hands) if h != dealt}
        for name, hand in self.known.cards.get(place_id, {}).items():
            if name != ATTACKER:
                named[f"players_card.json, {name}"] = hand
        for where, by_player in self.known.plays.items():
            if where == (place_id, game_no):
                continue  # the plays of the game being played: public, and not a deal
            mine = [
                p
                for p, cards in by_player.items()
                if sum(cards.values()) >= 5 and set(cards) <= held
            ]
            if mine:
                named |= {
                    f"log {where}, {p}": tuple(sorted(cards.elements()))
                    for p, cards in by_player.items()
                    if p not in mine
                }
        return named


async def drained(response) -> bytes:
    """A streamed answer's body (``records.jsonl`` streams from an asynchronous iterator)."""
    return b"".join([chunk async for chunk in response.streaming_content])


def _keyed(key: str, seed: str, deals: int) -> str:
    """:func:`table_seed` under another key."""
    message = f"daihinmin-table:{seed}:{deals}".encode()
    return hmac.new(key.encode(), message, hashlib.sha256).hexdigest()[:32]


def _entrants() -> list[str]:
    get_user_model().objects.create_user(ATTACKER, password=PASSWORD)
    return [ATTACKER, *house_entrants(4)]


@dataclass(frozen=True)
class Attack:
    """One attack: on which game, what the attacker named, the truth, the seeds it knew."""

    place: int
    game: int
    named: dict[str, Hand_]
    dealt: list[Hand_]
    seeds_known: frozenset[str]


def play_attacked(t: Tournament, names: list[str]) -> tuple[Attacker, list[Attack]]:
    """Play the tournament to its end, the test playing the attacker's seat; at the
    first turn of each of its games, attack."""
    attacker = Attacker(t.id, t.title, names)
    me = get_user_model().objects.get(username=ATTACKER)
    tables = Place.objects.filter(tournament=t).count()
    attacks: list[Attack] = []
    rng = random.Random(0)
    for _ in range(20_000):
        t.refresh_from_db()
        if t.state == Tournament.State.FINISHED:
            return attacker, attacks
        for place in Place.objects.filter(tournament=t, state=Place.State.RUNNING):
            state = engine_state(place.id)
            seat = place.players.get(user=me).seat
            if not (state.needs_action and state.game.turn == seat):
                continue
            if not any(a.place == place.id and a.game == state.game_no for a in attacks):
                named = attacker.name_cards(place.id, state.game_no, tables)
                dealt = Hand.objects.filter(game__place=place, game__no=state.game_no)
                attacks.append(
                    Attack(
                        place.id,
                        state.game_no,
                        named,
                        [written(h.dealt) for h in dealt],
                        frozenset(attacker.known.seeds),
                    )
                )
            services.post_cards(place.id, me.pk, choose(state, rng))
        dealer.tick("secrecy-test")
    raise AssertionError("the tournament did not finish")


def assert_nothing_named(attacks: list[Attack], places: int) -> None:
    assert len(attacks) == places * GAMES  # every game of every place was attacked
    for a in attacks:
        right = {where: h for where, h in a.named.items() if h in a.dealt}
        assert not a.named, f"place {a.place} game {a.game}: named {len(right)} true hands: {right}"


@pytest.fixture(autouse=True)
def _downloads_unlimited(settings):
    """The attacker reads records.jsonl as often as it likes: what it reads is at stake
    here, not how many at once (tests/places/test_record_downloads.py), and an earlier test
    of this worker may have left downloads counted that it never read to their end."""
    settings.RECORDS_DOWNLOADS_PER_ADDRESS = 0


@pytest.fixture
def secret_key(settings):
    """A server whose key is secret, as in production (DEBUG off needs SECRET_KEY)."""
    settings.SEED_KEY = "a-production-secret-nobody-outside-knows"


def test_a_round_robin_tells_nobody_a_hand_being_played(secret_key, tmp_path):
    names = _entrants()
    t = services.create_tournament(
        "cup", names, game_count=GAMES, time_limit=600, seed=SEED, max_running=2
    )
    services.start_tournament(t.id)
    attacker, attacks = play_attacked(t, names)
    assert_nothing_named(attacks, places=5)
    # while the last table played, the attacker had read the four others' seeds (and
    # records): they were no key to it
    seeds = {p.seed for p in Place.objects.filter(tournament=t)}
    assert len(seeds) == 5 and len(seeds & attacks[-1].seeds_known) == 4
    _everything_public_and_verified(t, attacker, tmp_path)


def test_a_duplicate_tournament_tells_nobody_a_hand_being_played(secret_key, tmp_path):
    names = _entrants()
    t = services.create_tournament(
        "cup",
        names,
        format="duplicate",
        game_count=GAMES,
        time_limit=600,
        seed=SEED,
        max_running=5,
    )
    services.start_tournament(t.id)
    attacker, attacks = play_attacked(t, names)
    assert_nothing_named(attacks, places=5)
    assert attacker.known.held_back  # it asked for the rotations played, and was refused
    _everything_public_and_verified(t, attacker, tmp_path)


def _everything_public_and_verified(t: Tournament, attacker: Attacker, tmp_path) -> None:
    """Once the tournament is over, every record is public, with the seed that dealt it,
    and every one verifies: its deals are its seed's, its games the engine's."""
    attacker.crawl()
    places = list(Place.objects.filter(tournament=t))
    for place in places:
        records = list(place_records(place.id))
        assert [r["game"] for r in records] == list(range(1, GAMES + 1))
        assert all(r["seed"] == place.seed for r in records)
        assert all(isinstance(r, Replayed) for r in replay_records(records))
        exported = tmp_path / f"place-{place.id}.jsonl"
        call_command("export_records", str(place.id), "--out", str(exported), stdout=io.StringIO())
        out = io.StringIO()
        call_command("verify_record", str(exported), stdout=out)
        assert out.getvalue().count("ok: game") == GAMES
        for r in records:
            assert attacker.known.deals[(place.id, r["game"])] == [
                tuple(sorted(h)) for h in r["dealt"]
            ]
    assert table_seed(SEED, 0) in {p.seed for p in places}
    assert SEED in attacker.known.seeds  # the tournament's seed, once it is over
