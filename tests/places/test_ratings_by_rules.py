"""A rating per rule book (issue 38, item 4): a 2011 game and a UECda game move different
ratings, each book has its leaderboard (``/ratings?rules=``), a profile shows each of its
ratings, and the migration makes the books' ratings again from the games rated before."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone
from openskill.models import PlackettLuce

from places import services
from places.services import uecda
from tests.places.test_tournaments import house_entrants, run
from tests.places.test_uecda_import import fixture_bytes


@pytest.fixture
def both_books(db):
    """A rated 2011 tournament of six house bots, and a rated UECda match of 250 games."""
    names = house_entrants(6)
    t = services.create_tournament("Six", names, game_count=2, seed="books", max_running=3)
    services.start_tournament(t.id)
    run(t.id)
    imported = uecda.import_tndhms_log(fixture_bytes(), rated=True)
    return names, imported.place


def test_each_rule_book_has_its_own_leaderboard(client, both_books):
    names, place = both_books
    in_2011 = json.loads(client.get("/ratings.json").content)
    in_uecda = json.loads(client.get("/ratings.json?rules=uecda").content)
    assert in_2011["rules"] == "daihinmin-2011"
    assert json.loads(client.get("/ratings.json?rules=daihinmin-2011").content) == in_2011
    assert {r["name"] for r in in_2011["ratings"]} == set(names)
    assert all(r["games"] == 10 for r in in_2011["ratings"])  # its UECda games not counted
    uecda_names = {p.user.username for p in place.players.select_related("user")}
    assert {r["name"] for r in in_uecda["ratings"]} == uecda_names
    assert all(r["games"] == place.game_count for r in in_uecda["ratings"])
    ordinals = [r["ordinal"] for r in in_uecda["ratings"]]
    assert ordinals == sorted(ordinals, reverse=True)

    page = client.get("/ratings?rules=uecda").content.decode()
    assert all(f'data-name="{n}"' in page for n in uecda_names)
    assert not any(f'data-name="{n}"' in page for n in names)
    assert 'data-rules="uecda" class="current"' in page


def test_a_rule_book_not_known_is_refused(client, db):
    answer = client.get("/ratings.json?rules=chess")
    assert answer.status_code == 400
    assert json.loads(answer.content)["error"]["code"] == "INVALID_PARAMETER"
    assert client.get("/ratings?rules=chess").status_code == 400


def test_a_profile_shows_the_rating_of_each_book_it_played(client, both_books):
    names, place = both_books
    uecda_player = place.players.select_related("user").first().user.username
    doc = json.loads(client.get(f"/users/{uecda_player}.json").content)
    assert list(doc["ratings"]) == ["uecda"]
    assert doc["rating"] is None and doc["rating_history"] == []  # the 2011 book's
    assert len(doc["ratings"]["uecda"]["history"]) == place.game_count
    html = client.get(f"/users/{uecda_player}").content.decode()
    assert 'id="rating-uecda"' in html and 'id="rating-daihinmin-2011"' not in html
    assert '/ratings?rules=uecda"' in html


@pytest.mark.django_db(transaction=True)
def test_the_migration_rates_each_book_again_from_its_games():
    """Before it, one rating took both books' games; after, each book's are its own,
    as openskill makes them from that book's games in their order."""
    executor = MigrationExecutor(connection)
    before, after = [("places", "0013_game_analysis")], [("places", "0014_ratings_by_rules")]
    executor.migrate(before)
    apps = executor.loader.project_state(before).apps
    User = apps.get_model("auth", "User")
    Place, Player, Game = (apps.get_model("places", m) for m in ("Place", "Player", "Game"))
    Rank, Rating = apps.get_model("places", "Rank"), apps.get_model("places", "Rating")
    RatingChange = apps.get_model("places", "RatingChange")
    users = [User.objects.create(username=f"m{i}") for i in range(6)]
    now = timezone.now()
    model = PlackettLuce()
    expected: dict[tuple[str, str], list] = {}
    # games alternate between the books; player 5 plays in the 2011 book only
    for n, rules in enumerate(["daihinmin-2011", "uecda", "daihinmin-2011", "uecda", "uecda"]):
        seated = users[:5] if rules == "uecda" else users[1:6]
        place = Place.objects.create(title=f"p{n}", rules=rules, game_count=1, rated=True)
        players = [Player.objects.create(place=place, user=u, seat=i) for i, u in enumerate(seated)]
        game = Game.objects.create(place=place, no=1, status=2)
        ranks = [(n + i) % 5 + 1 for i in range(5)]
        for player, rank in zip(players, ranks, strict=True):
            Rank.objects.create(game=game, player=player, rank=rank)
        before_game = [
            [model.create_rating(expected.get((u.username, rules), [model.mu, model.sigma])[:2])]
            for u in seated
        ]
        for u, (r,) in zip(seated, model.rate(before_game, ranks=ranks), strict=True):
            games = expected.get((u.username, rules), [0, 0, 0])[2] + 1
            expected[u.username, rules] = [r.mu, r.sigma, games]
            RatingChange.objects.create(
                user=u, game=game, mu=1.0, sigma=1.0, created_at=now + timedelta(seconds=n)
            )
    for u in users:
        Rating.objects.create(user=u, mu=1.0, sigma=1.0, games=9, last_played=now)
    executor = MigrationExecutor(connection)
    executor.migrate(after)
    apps = executor.loader.project_state(after).apps
    Rating = apps.get_model("places", "Rating")
    made = {
        (r.user.username, r.rules): [r.mu, r.sigma, r.games]
        for r in Rating.objects.select_related("user")
    }
    assert made.keys() == expected.keys()
    for key, (mu, sigma, games) in expected.items():
        assert made[key] == [pytest.approx(mu), pytest.approx(sigma), games], key
    last = apps.get_model("places", "RatingChange").objects.filter(user__username="m1").last()
    assert (last.mu, last.sigma) == (pytest.approx(made["m1", "uecda"][0]),
                                     pytest.approx(made["m1", "uecda"][1]))  # fmt: skip
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
