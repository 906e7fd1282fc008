"""The management commands of PROTOCOL.md §6, and place_status."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from places import errors, services
from places.models import HouseBot, Place, Turn
from tests.conftest import PLAYS_WHOLE_PLACES

from .conftest import NAMES
from .drive import play_out

ROOT = Path(__file__).resolve().parents[2]
PLAYERS = [arg for name in NAMES for arg in ("--player", name)]


def run(*args: str) -> str:
    out = StringIO()
    call_command(*args, stdout=out, stderr=StringIO())
    return out.getvalue()


def refusal(*args: str) -> str:
    with pytest.raises(CommandError) as e:
        run(*args)
    message = str(e.value)
    assert "\n" not in message
    return message


# -- create_user ---------------------------------------------------------------------


@pytest.mark.django_db
def test_create_user_creates_a_player_who_can_log_in():
    assert run("create_user", "frank", "--password", "frank-pw").strip() == "created user frank"
    frank = get_user_model().objects.get(username="frank")
    assert frank.check_password("frank-pw")
    assert not frank.is_staff


@pytest.mark.django_db
def test_create_user_makes_staff_when_asked():
    run("create_user", "root", "--password", "pw", "--staff")
    assert get_user_model().objects.get(username="root").is_staff


def test_create_user_updates_the_password_and_keeps_the_staff_flag(users):
    alice = users[0]
    alice.is_staff = True
    alice.save()
    assert (
        run("create_user", "alice", "--password", "new-pw").strip() == "updated user alice (staff)"
    )
    alice.refresh_from_db()
    assert alice.check_password("new-pw")
    assert alice.is_staff
    assert get_user_model().objects.filter(username="alice").count() == 1


def test_create_user_sets_and_clears_the_staff_flag_of_an_existing_user(users):
    run("create_user", "bob", "--password", "pw", "--staff")
    assert get_user_model().objects.get(username="bob").is_staff
    run("create_user", "bob", "--password", "pw", "--no-staff")
    assert not get_user_model().objects.get(username="bob").is_staff


@pytest.mark.django_db
def test_create_user_refuses_a_name_with_spaces():
    assert "bad user name 'a b'" in refusal("create_user", "a b", "--password", "pw")
    assert not get_user_model().objects.exists()


@pytest.mark.django_db
def test_create_user_refuses_an_empty_password():
    assert refusal("create_user", "frank", "--password", "") == "the password must not be empty"


@pytest.mark.django_db
def test_create_user_needs_a_password():
    assert "--password" in refusal("create_user", "frank")


@pytest.mark.django_db
def test_create_user_house_makes_a_house_bot_nobody_logs_in_as():
    assert (
        run("create_user", "hal", "--house", "shedder").strip() == "created house bot hal (shedder)"
    )
    hal = get_user_model().objects.get(username="hal")
    assert not hal.has_usable_password()
    assert HouseBot.objects.get(user=hal).strategy == "shedder"


@PLAYS_WHOLE_PLACES
def test_a_house_bot_made_by_create_user_may_be_seated_like_any_player(users):
    run("create_user", "hal", "--house", "greedy")
    out = run(
        "create_place", "With Hal", *PLAYERS[:8], "--player", "hal", "--pace", "0", "--games", "2"
    )
    place = Place.objects.get(pk=int(out))
    services.start_place(place.id)
    play_out(place.id, seed=1)  # the four players post; the server plays hal
    place.refresh_from_db()
    assert place.state == Place.State.FINISHED
    hal_turns = Turn.objects.filter(player__user__username="hal")
    assert hal_turns.exists() and not hal_turns.filter(outcome__in=["", "timeout"]).exists()


def test_create_user_house_turns_an_existing_player_into_a_house_bot_and_back(users):
    assert run("create_user", "alice", "--house", "random").strip() == (
        "updated house bot alice (random)"
    )
    assert not get_user_model().objects.get(username="alice").has_usable_password()
    run("create_user", "alice", "--password", "again")
    assert get_user_model().objects.get(username="alice").check_password("again")
    assert not HouseBot.objects.exists()


@pytest.mark.django_db
def test_create_user_refuses_an_unknown_house_strategy():
    message = refusal("create_user", "hal", "--house", "grandmaster")
    assert "grandmaster" in message and "greedy" in message
    assert not get_user_model().objects.exists()


@pytest.mark.django_db
def test_create_user_takes_a_password_or_a_house_strategy_not_both():
    assert "not allowed with" in refusal(
        "create_user", "hal", "--house", "greedy", "--password", "x"
    )
    assert "staff" in refusal("create_user", "hal", "--house", "greedy", "--staff")
    assert not get_user_model().objects.exists()


# -- create_place ----------------------------------------------------------------------


def test_create_place_prints_the_id_alone_and_seats_the_players_in_order(users):
    out = run(
        "create_place",
        "Friday",
        *PLAYERS,
        "--games",
        "7",
        "--pace",
        "manual",
        "--timeout",
        "2.5",
        "--seed",
        "abc",
    )
    place = Place.objects.get()
    assert out == f"{place.id}\n"
    assert (place.title, place.game_count, place.pace, place.time_limit, place.seed) == (
        "Friday",
        7,
        None,
        2.5,
        "abc",
    )
    assert place.state == Place.State.WAITING
    assert [p.name for p in place.players.order_by("seat")] == list(NAMES)


def test_create_place_defaults_to_50_games_at_half_a_second_with_10_seconds_to_act(users):
    run("create_place", "Defaults", *PLAYERS)
    place = Place.objects.get()
    assert (place.game_count, place.pace, place.time_limit, place.seed) == (50, 0.5, 10.0, "")


def test_create_place_takes_a_pace_of_zero(users):
    run("create_place", "Fast", *PLAYERS, "--pace", "0")
    assert Place.objects.get().pace == 0


@pytest.mark.parametrize(
    ("args", "why"),
    [
        (["--player", "alice", "--player", "bob"], "a place needs 5 players, not 2"),
        ([*PLAYERS[:8], "--player", "zed"], "unknown user: zed"),
        ([*PLAYERS[:8], "--player", "alice"], "a user can sit only once in a place"),
        ([*PLAYERS, "--games", "0"], "a place plays at least one game"),
        ([*PLAYERS, "--games", "many"], "--games must be a whole number, not 'many'"),
        ([*PLAYERS, "--games", "100001"], "a place plays at least one game and at most 100000"),
        ([*PLAYERS, "--pace", "-1"], "the pace is manual or 0 to 86400 seconds"),
        ([*PLAYERS, "--pace", "fast"], '--pace must be "manual" or a number of seconds >= 0'),
        ([*PLAYERS, "--pace", "nan"], '--pace must be "manual" or a number of seconds >= 0'),
        (
            [*PLAYERS, "--timeout", "0"],
            "the time limit must be more than 0 and at most 86400 seconds",
        ),
        (
            [*PLAYERS, "--timeout", "-3"],
            "the time limit must be more than 0 and at most 86400 seconds",
        ),
        ([*PLAYERS, "--timeout", "soon"], "--timeout must be a number of seconds, not 'soon'"),
        ([*PLAYERS, "--seed", "x" * 65], "the seed has at most 64 characters"),
        ([*PLAYERS, "--timeout", "1e308"], "the time limit must be more than 0 and at most 86400"),
        ([*PLAYERS, "--pace", "86401"], "the pace is manual or 0 to 86400 seconds"),
    ],
)
def test_create_place_refuses_bad_input_with_one_line(users, args, why):
    assert why in refusal("create_place", "Bad", *args)
    assert not Place.objects.exists()


def test_create_place_refuses_a_title_over_20_characters(users):
    assert "the title must have 1 to 20 characters" in refusal("create_place", "x" * 21, *PLAYERS)
    assert not Place.objects.exists()


def test_create_place_lists_every_problem_on_its_one_line(users):
    why = refusal("create_place", "x" * 21, "--player", "zed", "--games", "0")
    assert "title" in why and "5 players" in why and "unknown user: zed" in why
    assert "one game" in why


@pytest.mark.parametrize(
    "kwargs",
    [{"pace": float("nan")}, {"pace": float("inf")}, {"game_count": 100_001}, {"seed": "x" * 65}],
    ids=["nan-pace", "infinite-pace", "too-many-games", "long-seed"],
)
def test_the_service_refuses_what_the_command_refuses(users, kwargs):
    with pytest.raises(errors.Refused):
        services.create_place("Bad", NAMES, **kwargs)


# -- start_place -----------------------------------------------------------------------------


def test_start_place_starts_a_waiting_place(make_place):
    place = make_place(pace=None)
    assert run("start_place", str(place.id)).strip() == f"place {place.id} running"
    place.refresh_from_db()
    assert place.state == Place.State.RUNNING
    # the server's dealer sends start_place: this process's events would reach no socket
    assert not place.events.exists() and place.next_step_at is not None
    assert services.run_due(place.id)
    assert place.events.first().operation == "start_place"


def test_start_place_refuses_a_place_already_started(make_place):
    place = make_place()
    services.start_place(place.id)
    seq = Place.objects.get(pk=place.id).event_seq
    assert refusal("start_place", str(place.id)) == "the place has already been started"
    assert Place.objects.get(pk=place.id).event_seq == seq


@pytest.mark.django_db
def test_start_place_refuses_an_unknown_place():
    assert refusal("start_place", "999") == "no place 999"


@pytest.mark.django_db
def test_start_place_refuses_an_id_beyond_the_databases_integers():
    assert refusal("start_place", str(2**64)) == f"no place {2**64}"


@pytest.mark.django_db
def test_start_place_refuses_an_id_that_is_no_number():
    assert refusal("start_place", "first") == "a place id is a whole number, not 'first'"


# -- place_status ---------------------------------------------------------------------------


def test_place_status_of_a_waiting_place(make_place):
    place = make_place(game_count=3)
    out = run("place_status", str(place.id))
    lines = out.splitlines()
    assert lines[0] == f"place {place.id} 'Test place': waiting"
    assert lines[1].startswith("game 0 of 3 (0 finished")
    assert lines[3].split() == ["#", "player", "points", "1st", "2nd", "3rd", "4th", "5th"]
    assert [line.split()[1] for line in lines[4:]] == list(NAMES)


def test_place_status_ranks_the_players_by_points_after_a_whole_place(make_place):
    place = make_place(game_count=3)
    services.start_place(place.id)
    play_out(place.id)
    data = json.loads(run("place_status", str(place.id), "--json"))
    assert (data["state"], data["game_no"], data["game_count"], data["games_played"]) == (
        "finished",
        3,
        3,
        3,
    )
    standings = data["standings"]
    points = [s["points"] for s in standings]
    assert points == sorted(points, reverse=True)
    assert sum(points) == 30
    for s in standings:
        assert sum(s["rank_counts"]) == 3
        assert s["points"] == sum((5 - r) * n for r, n in enumerate(s["rank_counts"], 1))
    assert standings[0]["position"] == 1

    text = run("place_status", str(place.id)).splitlines()
    assert text[0].endswith(": finished")
    assert text[1].startswith("game 3 of 3 (3 finished")
    rows = [line.split() for line in text[4:]]
    assert [(r[1], int(r[2])) for r in rows] == [(s["name"], s["points"]) for s in standings]


def test_place_status_gives_tied_players_one_position(make_place):
    place = make_place()
    positions = [
        s["position"] for s in json.loads(run("place_status", str(place.id), "--json"))["standings"]
    ]
    assert positions == [1, 1, 1, 1, 1]


@pytest.mark.django_db
def test_place_status_refuses_an_unknown_place():
    assert refusal("place_status", "42") == "no place 42"


# -- from a shell ------------------------------------------------------------------------------


def manage(*args: str, db: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{db}", "DEBUG": "1"}
    return subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def shell_db(tmp_path):
    """A database file of its own: the commands run in other processes."""
    db = tmp_path / "shell.sqlite3"
    assert manage("migrate", "--noinput", "-v", "0", db=db).returncode == 0
    # One process and no password hashing: create_user is tested in-process.
    seat = "from django.contrib.auth.models import User; " + "; ".join(
        f"User.objects.create(username={name!r})" for name in NAMES
    )
    assert manage("shell", "-c", seat, db=db).returncode == 0
    return db


def test_from_a_shell_create_place_prints_only_the_id_and_bad_input_is_one_line(shell_db):
    done = manage("create_place", "Shell", *PLAYERS, "--games", "2", db=shell_db)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().isdigit()
    assert done.stdout == done.stdout.strip() + "\n"

    for args in (
        ["create_place", "Shell", *PLAYERS[:8], "--player", "zed"],  # refused by the command
        ["create_place", "Shell", *PLAYERS, "--bogus"],  # refused by argparse
    ):
        refused = manage(*args, db=shell_db)
        assert refused.returncode != 0
        assert refused.stdout == ""
        assert len(refused.stderr.strip().splitlines()) == 1, refused.stderr
        assert "Traceback" not in refused.stderr


def test_from_a_shell_a_number_that_is_no_ascii_number_is_one_line_not_a_traceback(
    shell_db, tmp_path
):
    """``²`` passes ``str.isdigit`` but not ``int``, ``٣`` is 3 to ``int``, and 5,000 nines
    pass Python's digit limit: each is the command's one-line error, nothing stored."""
    fixture = ROOT / "tests" / "daifugo" / "data" / "tndhms-250.log"
    log = tmp_path / "superscript.log"
    text = fixture.read_text(encoding="ascii")
    assert "%RULE_SEKIGAE_NUM% 5\n" in text
    log.write_text(text.replace("%RULE_SEKIGAE_NUM% 5\n", "%RULE_SEKIGAE_NUM% ²\n"), "utf-8")
    for args, message in (
        (["uecda_match", "--games", "3", "--rules", "uecda+reseat=²"], "reseat= takes"),
        (["uecda_match", "--games", "3", "--rules", "uecda+reseat=" + "9" * 5000], "reseat="),
        (["uecda_match", "--games", "٣", "--rules", "uecda"], "a whole number"),
        (["import_tndhms_log", str(log)], "line 17: RULE_SEKIGAE_NUM is a number of at most"),
        (["start_place", "٣"], "a place id is a whole number, not '٣'"),
        (["create_place", "Shell", *PLAYERS, "--games", "9" * 5000], "--games must be a whole"),
    ):
        refused = manage(*args, db=shell_db)
        assert refused.returncode != 0 and refused.stdout == ""
        assert len(refused.stderr.strip().splitlines()) == 1, refused.stderr
        assert message in refused.stderr and "Traceback" not in refused.stderr
    assert manage("place_status", "1", db=shell_db).stdout == ""  # no place was made
