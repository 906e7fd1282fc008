"""A profile split by bot version (issue 38): the label of the token each seat posted with
(``Player.version``), each version's games, points per game and 95 % interval."""

from __future__ import annotations

import math
import statistics

import pytest
from django.test import Client

from places import services
from places.models import Player, Rank
from places.reads.profiles import profile

from .drive import play_out

pytestmark = pytest.mark.django_db


def test_a_profile_stands_each_version_beside_the_others(make_place):
    played = {}
    for version, seed in (("v1", "one"), ("v2", "two"), ("", "three")):
        place = make_place(game_count=4, seed=seed)
        services.start_place(place.id)
        play_out(place.id, seed=len(played))
        Player.objects.filter(place=place, user__username="alice").update(version=version)
        played[version] = place.id
    found = profile("alice")
    assert [v.version for v in found.versions] == ["", "v1", "v2"]
    for v in found.versions:
        ranks = list(
            Rank.objects.filter(
                player__place_id=played[v.version], player__user__username="alice"
            ).values_list("rank", flat=True)
        )
        points = [5 - r for r in ranks]  # 2011: players − rank
        assert v.games == len(points) == 4
        assert v.points_per_game == round(sum(points) / 4, 4)
        half = 1.959963984540054 * statistics.stdev(points) / math.sqrt(4)
        assert v.low == pytest.approx(statistics.fmean(points) - half)
        assert v.high == pytest.approx(statistics.fmean(points) + half)
        assert sum(v.rank_counts) == 4
    doc = found.as_dict()["versions"]
    assert [d["version"] for d in doc] == ["", "v1", "v2"]
    page = Client().get("/users/alice").content.decode()
    assert 'id="version-table"' in page and 'data-version="v2"' in page
    assert 'data-version="(no token)"' in page


def test_without_a_token_there_is_no_split(make_place):
    place = make_place(game_count=2)
    services.start_place(place.id)
    play_out(place.id)
    assert profile("alice").versions == []
    assert 'id="version-table"' not in Client().get("/users/alice").content.decode()
