"""Tournaments through the services and the dealer: schedule, duplicate deals, standings,
ratings; run in-process with house bots at pace 0 (no server, no socket)."""

from __future__ import annotations

import math

import pytest
from openskill.models import PlackettLuce

from bots.stats import bootstrap_interval
from daifugo.place import points_for
from daifugo.replay import Replayed, replay_records
from daifugo.schedule import duplicate, round_robin
from places import dealer, errors, services
from places.models import (
    EntrantCode,
    Game,
    Hand,
    Place,
    Rank,
    Rating,
    RatingChange,
    Tournament,
)
from places.reads import records
from places.reads.tournaments import tournament as read_tournament
from places.services import house
from places.services.tournaments import table_seed

pytestmark = pytest.mark.django_db

STRATEGIES = ("greedy", "shedder", "random")


def house_entrants(n: int) -> list[str]:
    names = [f"t{i}-{STRATEGIES[i % len(STRATEGIES)]}" for i in range(n)]
    for name, i in zip(names, range(n), strict=True):
        house.make_house_user(name, STRATEGIES[i % len(STRATEGIES)])
    return names


def run(tournament_id: int, driver: str = "test-driver", rounds: int = 500) -> list[set]:
    """Dealer rounds until the tournament is over; returns, per round, the running places'
    entrants (to check that no two running places share one)."""
    seen = []
    for _ in range(rounds):
        running = Place.objects.filter(tournament_id=tournament_id, state=Place.State.RUNNING)
        seen.append([set(p.players.values_list("user_id", flat=True)) for p in running])
        if Tournament.objects.get(pk=tournament_id).state == Tournament.State.FINISHED:
            return seen
        dealer.tick(driver)
    raise AssertionError("the tournament did not finish")


def test_a_tournament_is_made_with_every_place_of_its_schedule():
    names = house_entrants(7)
    t = services.create_tournament("Seven", names, game_count=2, seed="s", max_running=2)
    places = list(Place.objects.filter(tournament=t).order_by("table_no"))
    tables = round_robin(7)
    assert len(places) == len(tables)
    for place, table in zip(places, tables, strict=True):
        seated = list(place.players.order_by("seat").values_list("user__username", flat=True))
        assert seated == [names[e] for e in table.seats]
        assert place.state == Place.State.WAITING and not place.duplicate_deals
        assert place.seed == table_seed("s", table.no) and place.game_count == 2
    assert t.state == Tournament.State.WAITING


def test_a_seed_holding_nul_is_refused_as_such_not_as_too_long():
    with pytest.raises(errors.Refused) as refused:
        services.create_tournament("T", house_entrants(5), seed="a\x00b")
    assert refused.value.code == errors.INVALID_TOURNAMENT
    assert refused.value.message == "the seed has no NUL character (\\x00)"
    assert not Tournament.objects.exists()


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"usernames": ["a", "b", "c", "d"]}, "5 to 100 entrants"),
        ({"format": "swiss"}, "the format is one of"),
        ({"game_count": 0}, "a table plays 1 to"),
        ({"max_running": 0}, "1 to 100 places run at once"),
        ({"pace": -1.0}, "the pace is manual or 0 to"),
        ({"pace": None}, "not manual"),
        ({"time_bank": math.inf}, "the time bank is"),
        ({"title": ""}, "the title must have"),
        ({"seed": "s" * 33}, "the seed has at most 32 characters"),
    ],
)
def test_bad_settings_are_refused_and_make_nothing(change, expected):
    names = house_entrants(5)
    kwargs = {"title": "T", "usernames": names} | change
    with pytest.raises(errors.Refused) as refused:
        services.create_tournament(kwargs.pop("title"), kwargs.pop("usernames"), **kwargs)
    assert refused.value.code == errors.INVALID_TOURNAMENT
    assert expected in refused.value.message
    assert not Tournament.objects.exists() and not Place.objects.exists()


def test_unknown_and_repeated_entrants_are_refused():
    names = house_entrants(5)
    with pytest.raises(errors.Refused, match="unknown user: nobody"):
        services.create_tournament("T", [*names[:4], "nobody"])
    with pytest.raises(errors.Refused, match="only once"):
        services.create_tournament("T", [*names, names[0]])


def test_a_seed_another_tournament_has_is_refused_and_makes_nothing():
    """The same seed makes the same tables' seeds: the first tournament's published
    records would deal the second's games."""
    names = house_entrants(5)
    first = services.create_tournament("First", names, game_count=1, seed="again")
    with pytest.raises(errors.Refused) as refused:
        services.create_tournament("Second", names, format="duplicate", seed="again")
    assert refused.value.code == errors.INVALID_TOURNAMENT
    assert f"the seed is tournament {first.id}'s" in refused.value.message
    assert Tournament.objects.count() == 1 and Place.objects.count() == 5


def test_a_seven_entrant_round_robin_runs_to_its_end_with_standings_and_ratings():
    names = house_entrants(7)
    t = services.create_tournament("Seven", names, game_count=2, seed="rr", max_running=2)
    started = services.start_tournament(t.id)
    assert started == 1  # 7 entrants: two tables of five always share someone
    for running in run(t.id):
        assert len(running) <= 2
        for a, b in zip(running, running[1:], strict=False):
            assert not a & b  # no entrant in two running places at once
    view = read_tournament(t.id)
    assert view.state == "finished" and view.finished_at is not None
    assert view.games_finished == view.games_total == 7 * 2
    assert {s.name for s in view.standings} == set(names)
    for s in view.standings:
        assert s.games == 5 * 2  # each entrant sits at five tables
        assert s.low <= s.points_per_game <= s.high
    ppg = [s.points_per_game for s in view.standings]
    assert ppg == sorted(ppg, reverse=True)
    assert Rank.objects.filter(game__place__tournament=t).count() == 7 * 2 * 5
    assert Rating.objects.filter(user__username__in=names, games=10).count() == 7
    assert RatingChange.objects.filter(game__place__tournament=t).count() == 70
    with pytest.raises(errors.Refused):
        services.start_tournament(t.id)


def test_standings_count_points_and_intervals_from_the_ranks():
    names = house_entrants(5)
    t = services.create_tournament("Five", names, game_count=3, seed="st", max_running=5)
    services.start_tournament(t.id)
    run(t.id)
    view = read_tournament(t.id)
    for s in view.standings:
        ranks = list(
            Rank.objects.filter(game__place__tournament=t, player__user__username=s.name)
            .order_by("game_id")
            .values_list("rank", flat=True)
        )
        points = [points_for(r, 5) for r in ranks]
        assert s.games == len(ranks) == 15
        assert s.points == sum(points)
        assert s.points_per_game == pytest.approx(sum(points) / 15)
        assert s.average_rank == pytest.approx(sum(ranks) / 15)
        assert list(s.rank_counts) == [ranks.count(r) for r in range(1, 6)]
        interval = bootstrap_interval(points, seed=f"{t.id}:{s.name}")
        assert (s.low, s.high) == (interval.low, interval.high)


def test_the_bootstrap_interval_of_a_known_example():
    """Ten games of 0 points and ten of 4: the resampled mean is 4·X/20 with X ~ Bin(20, ½),
    whose 2.5 % and 97.5 % quantiles are 6 and 14: the interval is 1.2 … 2.8."""
    interval = bootstrap_interval([0] * 10 + [4] * 10, resamples=10_000, seed="known")
    assert interval.mean == 2.0
    assert (interval.low, interval.high) == (pytest.approx(1.2), pytest.approx(2.8))
    same = bootstrap_interval([3] * 12)
    assert (same.low, same.mean, same.high) == (3, 3, 3)
    assert bootstrap_interval([1, 2, 3], seed=1) == bootstrap_interval([1, 2, 3], seed=1)


def test_a_duplicate_tournament_deals_each_hand_to_each_entrant_once():
    names = house_entrants(5)
    t = services.create_tournament(
        "Dup", names, format="duplicate", game_count=3, seed="dd", max_running=5
    )
    assert len(duplicate(5)) == 5
    places = list(Place.objects.filter(tournament=t).order_by("table_no"))
    assert all(p.duplicate_deals and p.seed == table_seed("dd", 0) for p in places)
    services.start_tournament(t.id)
    run(t.id)
    for no in (1, 2, 3):
        holders: dict[tuple, set[str]] = {}
        for place in places:
            for hand in Hand.objects.filter(game__place=place, game__no=no).select_related(
                "player__user"
            ):
                key = (hand.player.seat, tuple(hand.after_exchange))
                holders.setdefault(key, set()).add(hand.player.user.username)
        # the same five hands, seat by seat, after the exchange, in every rotation
        assert len(holders) == 5
        assert all(held == set(names) for held in holders.values())
    # and each place's records verify with the engine (exchanges by the drawn ranks)
    for place in places:
        replayed = list(replay_records(records.place_records(place.id)))
        assert all(isinstance(r, Replayed) for r in replayed), replayed
        assert len(replayed) == 3


def test_a_finished_game_moves_ratings_as_the_library_says():
    names = house_entrants(5)
    place = services.create_place("Rated", names, game_count=1, pace=0, seed="r1")
    services.start_place(place.id)
    ranks = dict(
        Rank.objects.filter(game__place=place).values_list("player__user__username", "rank")
    )
    model = PlackettLuce()
    expected = model.rate([[model.rating()] for _ in names], ranks=[ranks[n] for n in names])
    for name, (rated,) in zip(names, expected, strict=True):
        row = Rating.objects.get(user__username=name)
        assert (row.mu, row.sigma, row.games) == (
            pytest.approx(rated.mu),
            pytest.approx(rated.sigma),
            1,
        )
        assert row.ordinal == pytest.approx(rated.ordinal())


def test_games_finished_in_one_change_are_rated_one_after_the_other():
    """House bots at pace 0 play the whole place in the change that starts it: each game's
    rating starts from the last one's, which that change wrote and not yet committed."""
    names = house_entrants(5)
    place = services.create_place("Rated", names, game_count=3, pace=0, seed="r3")
    services.start_place(place.id)
    model = PlackettLuce()
    expected = {n: model.rating() for n in names}
    for game in Game.objects.filter(place=place).order_by("no"):
        ranks = dict(Rank.objects.filter(game=game).values_list("player__user__username", "rank"))
        after = model.rate([[expected[n]] for n in names], ranks=[ranks[n] for n in names])
        expected = {n: rated for n, (rated,) in zip(names, after, strict=True)}
    for name in names:
        row = Rating.objects.get(user__username=name)
        assert (row.mu, row.sigma, row.games) == (
            pytest.approx(expected[name].mu),
            pytest.approx(expected[name].sigma),
            3,
        )
    assert RatingChange.objects.filter(game__place=place).count() == 15


def test_an_unrated_place_moves_no_rating():
    names = house_entrants(5)
    place = services.create_place("Unrated", names, game_count=2, pace=0, rated=False)
    services.start_place(place.id)
    assert Place.objects.get(pk=place.id).state == Place.State.FINISHED
    assert not Rating.objects.exists() and not RatingChange.objects.exists()


def test_a_uecda_tournament_of_a_variant_makes_every_table_of_it():
    from django.contrib.auth import get_user_model

    names = [f"u{i}" for i in range(5)]
    for name in names:
        get_user_model().objects.create_user(name, password=name)
    t = services.create_tournament("Back", names, rules="uecda+6reverse+11back", game_count=3)
    assert (t.rules, t.variant, t.rules_label) == (
        "uecda",
        "6reverse+11back",
        "uecda+6reverse+11back",
    )
    places = Place.objects.filter(tournament=t)
    assert places.exists()
    assert {(p.rules, p.variant) for p in places} == {("uecda", "6reverse+11back")}
    assert all(p.game_rules.eleven_back and p.game_rules.six_reverse for p in places)
    # its entrants' clients are seated by their codes, as in a tournament of the profile
    assert EntrantCode.objects.filter(entrant__tournament=t).count() == 5
    with pytest.raises(errors.Refused) as refused:
        services.create_tournament("Bad", names, rules="uecda+13back")
    assert refused.value.code == errors.INVALID_TOURNAMENT
    assert "unknown variant token '13back'" in refused.value.message
    assert Tournament.objects.count() == 1
