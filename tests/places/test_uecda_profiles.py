"""A UECda player's profile counts its turns as a 2011 player's does (issue 38, item 5):
plays, passes, misses, timeouts, revolutions and 8-cuts, read from each game's version 2
record by the engine; the import's counting and a recount (the migration's) agree."""

from __future__ import annotations

import json

import pytest

from daifugo.facts import EIGHT_CUT, REVOLUTION
from places.models import Game, GameFact, Player, ProfileTotals
from places.services import profiles, uecda
from tests.places.test_uecda_import import fixture_bytes

pytestmark = pytest.mark.django_db

COUNTED = ("turns", "plays", "cards_played", "passes", "pass_chances", "timeouts", "misses",
           "revolutions", "eight_cuts", "games", "points", "rank_counts")  # fmt: skip


@pytest.fixture
def imported():
    return uecda.import_tndhms_log(fixture_bytes()).place


def totals_of(users) -> dict[int, dict]:
    return {
        t["user_id"]: {k: t[k] for k in COUNTED}
        for t in ProfileTotals.objects.filter(user_id__in=users).values("user_id", *COUNTED)
    }


def test_each_players_turns_are_counted_from_the_records(client, imported):
    records = list(Game.objects.filter(place=imported).values_list("record", flat=True))
    for player in Player.objects.filter(place=imported).select_related("user"):
        doc = json.loads(client.get(f"/users/{player.user.username}.json").content)
        mine = [a for r in records for a in r["actions"] if a["player"] == player.seat]
        assert doc["turns"] == len(mine) > 0
        assert doc["plays"] == sum(a["verdict"] == "play" for a in mine)
        assert doc["passes"] == sum(a["verdict"] == "pass" for a in mine)
        assert sum(doc["misses"].values()) == sum(a["verdict"] == "rejected" for a in mine)
        assert doc["cards_per_play"] and doc["pass_rate"] is not None
        assert doc["think_ms"] == {"mean": None, "p99": None}  # a record keeps no think time
        for kind, counted in ((REVOLUTION, "revolutions"), (EIGHT_CUT, "eight_cuts")):
            games_with = GameFact.objects.filter(user=player.user, kind=kind).count()
            assert doc[counted] >= games_with  # at least one in each game with one
            assert (doc[counted] > 0) == (games_with > 0)
    assert (
        sum(t["eight_cuts"] for t in totals_of(imported.players.values("user_id")).values()) > 0
    )  # 250 games: some 8-cuts at least


def test_a_recount_finds_what_the_import_counted(imported):
    users = list(Player.objects.filter(place=imported).values_list("user_id", flat=True))
    counted = totals_of(users)
    ProfileTotals.objects.filter(user_id__in=users).update(turns=0, plays=0, revolutions=0)
    profiles.recount(users)
    assert totals_of(users) == counted
