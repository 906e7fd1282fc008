"""Tournament pages, JSON, CSV, the leaderboard, profiles' ratings, and the commands."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from places import services
from places.models import Place, Tournament
from places.reads.join_codes import tournament_codes
from places.services import house
from places.views.tournaments import CSV_HEADER

from .test_tournaments import house_entrants, run

pytestmark = pytest.mark.django_db


@pytest.fixture
def finished(db):
    names = house_entrants(6)
    t = services.create_tournament("Six", names, game_count=2, seed="pg", max_running=3)
    services.start_tournament(t.id)
    run(t.id)
    return t, names


def test_the_tournament_page_shows_standings_tables_and_chart(client, finished):
    t, names = finished
    html = client.get(f"/tournaments/{t.id}/").content.decode()
    assert "Six" in html and 'id="tournament-standings"' in html
    assert all(f'data-name="{n}"' in html for n in names)
    assert html.count('class="series"') == len(names)  # one dot per entrant on the chart
    assert 'id="tournament-tables"' in html and html.count("data-place=") == 6
    assert "tournament.js" not in html  # a finished tournament is not polled
    listing = client.get("/tournaments/").content.decode()
    assert f'href="/tournaments/{t.id}/"' in listing


def test_the_list_shows_state_winner_dates_and_games(client, finished):
    t, _names = finished
    t.refresh_from_db()
    winner = json.loads(client.get(f"/tournaments/{t.id}.json").content)["standings"][0]["name"]
    waiting = services.create_tournament("Later", house_entrants(5), game_count=1)
    listing = client.get("/tournaments/").content.decode()
    row = listing.split(f'data-tournament="{t.id}"', 1)[1].split("</tr>", 1)[0]
    assert "badge-finished" in row and 'data-games="12/12"' in row
    assert f'href="/users/{winner}"' in row and "(leading)" not in row
    assert f'datetime="{t.started_at.isoformat()}"' in row
    assert f'datetime="{t.finished_at.isoformat()}"' in row
    later = listing.split(f'data-tournament="{waiting.id}"', 1)[1].split("</tr>", 1)[0]
    tables = Place.objects.filter(tournament=waiting).count()
    assert "badge-waiting" in later and f'data-games="0/{tables}"' in later
    assert 'class="winner"></td>' in later  # nobody leads before a game ends


def test_the_list_is_paged(client):
    from places.reads.tournaments import TOURNAMENTS_PAGE_SIZE

    names = house_entrants(5)
    made = [
        services.create_tournament(f"T{i}", names, game_count=1)
        for i in range(TOURNAMENTS_PAGE_SIZE + 2)
    ]
    first = client.get("/tournaments/").content.decode()
    assert first.count("data-tournament=") == TOURNAMENTS_PAGE_SIZE
    assert f'data-tournament="{made[-1].id}"' in first and 'href="?page=2"' in first
    second = client.get("/tournaments/?page=2").content.decode()
    assert second.count("data-tournament=") == 2
    assert f'data-tournament="{made[0].id}"' in second
    assert client.get("/tournaments/?page=zz").status_code == 200


def test_the_json_and_csv_agree(client, finished):
    t, names = finished
    doc = json.loads(client.get(f"/tournaments/{t.id}.json").content)
    assert doc["state"] == "finished" and doc["seed"] == "pg"
    assert doc["games_finished"] == doc["games_total"] == 12
    assert [s["name"] for s in doc["standings"]][:1] and len(doc["standings"]) == 6
    for s in doc["standings"]:
        low, high = s["interval"]
        assert low <= s["points_per_game"] <= high and s["games"] == 10
    response = client.get(f"/tournaments/{t.id}/standings.csv")
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows[0] == CSV_HEADER
    assert [r[1] for r in rows[1:]] == [s["name"] for s in doc["standings"]]
    assert [float(r[4]) for r in rows[1:]] == [s["points_per_game"] for s in doc["standings"]]


def test_the_standings_csv_neutralises_names_read_as_formulas(client):
    names = [*house_entrants(3), "+1+1", "@cmd"]
    for name in names[3:]:
        house.make_house_user(name, "random")
    t = services.create_tournament("Formulas", names, game_count=1, seed="f", max_running=5)
    services.start_tournament(t.id)
    run(t.id)
    rows = list(
        csv.reader(io.StringIO(client.get(f"/tournaments/{t.id}/standings.csv").content.decode()))
    )
    shown = {r[1] for r in rows[1:]}
    assert "'+1+1" in shown and "'@cmd" in shown and not shown & {"+1+1", "@cmd"}
    assert all(float(r[5]) <= float(r[4]) for r in rows[1:])  # numbers as numbers, signs kept


def test_a_running_tournament_hides_its_seed_and_polls(client):
    names = house_entrants(5)
    t = services.create_tournament("Wait", names, seed="secret")
    assert json.loads(client.get(f"/tournaments/{t.id}.json").content)["seed"] is None
    assert "tournament.js" in client.get(f"/tournaments/{t.id}/").content.decode()


def test_unknown_tournaments_are_404(client):
    assert client.get("/tournaments/999/").status_code == 404
    response = client.get("/tournaments/999.json")
    assert response.status_code == 404
    assert json.loads(response.content)["error"]["code"] == "NOT_FOUND"
    assert client.get("/tournaments/999/standings.csv").status_code == 404


def test_the_leaderboard_ranks_by_the_ordinal(client, finished):
    _, names = finished
    doc = json.loads(client.get("/ratings.json").content)
    rows = doc["ratings"]
    assert {r["name"] for r in rows} == set(names)
    ordinals = [r["ordinal"] for r in rows]
    assert ordinals == sorted(ordinals, reverse=True)
    assert [r["rank"] for r in rows] == list(range(1, 7))
    for r in rows:
        assert r["ordinal"] == pytest.approx(r["mu"] - 3 * r["sigma"], abs=1e-3)
        assert r["games"] == 10
    html = client.get("/ratings").content.decode()
    assert html.index(rows[0]["name"]) < html.index(rows[-1]["name"])


def test_a_profile_charts_its_rating(client, finished):
    _, names = finished
    doc = json.loads(client.get(f"/users/{names[0]}.json").content)
    assert doc["rating"]["games"] == 10 and len(doc["rating_history"]) == 10
    html = client.get(f"/users/{names[0]}").content.decode()
    assert 'id="rating-chart-daihinmin-2011"' in html and html.count('class="series"') == 2
    assert doc["ratings"]["daihinmin-2011"]["history"] == doc["rating_history"]
    assert list(doc["ratings"]) == ["daihinmin-2011"]  # no UECda game: no UECda rating


def test_the_commands_create_start_and_report(capsys):
    names = house_entrants(5)
    args = ["T cmd", *(f"--entrant={n}" for n in names), "--games=2", "--seed=c"]
    call_command("create_tournament", *args, "--format=duplicate", "--max-running=5")
    tid = int(capsys.readouterr().out.strip())
    assert Tournament.objects.get(pk=tid).format == "duplicate"
    call_command("tournament_status", str(tid))
    assert "waiting" in capsys.readouterr().out
    call_command("start_tournament", str(tid))
    assert "started: 1 of its places starting now" in capsys.readouterr().out  # all share
    run(tid)
    call_command("tournament_status", str(tid), "--json")
    doc = json.loads(capsys.readouterr().out)
    assert doc["state"] == "finished" and len(doc["standings"]) == 5
    call_command("tournament_status", str(tid))
    text = capsys.readouterr().out
    assert "finished" in text and all(n in text for n in names)
    with pytest.raises(CommandError, match="no tournament 9999"):
        call_command("tournament_status", "9999")
    with pytest.raises(CommandError, match="5 to 100 entrants"):
        call_command("create_tournament", "x", "--entrant=a")


def admin_form(names, **extra) -> dict:
    return {
        "title": "Admin cup",
        "rules": "daihinmin-2011",
        "format": "round-robin",
        "game_count": 2,
        "pace": 0,
        "time_limit": 10,
        "time_bank": 0,
        "seed": "adm",
        "max_running": 2,
        "rated": "on",
        "entrant_names": "\n".join(names),
        **extra,
    }


def test_the_admin_makes_and_starts_a_tournament(admin_client):
    names = house_entrants(6)
    response = admin_client.post("/admin/places/tournament/add/", admin_form(names))
    assert response.status_code == 302
    t = Tournament.objects.get()
    assert t.places.count() == 6 and t.entrants.count() == 6 and t.rated
    page = admin_client.get(f"/admin/places/tournament/{t.id}/change/").content.decode()
    assert f'href="/tournaments/{t.id}/"' in page and ", ".join(names) in page
    admin_client.post("/admin/places/tournament/", {"action": "start", "_selected_action": [t.id]})
    t.refresh_from_db()
    assert t.state == Tournament.State.RUNNING
    assert t.places.filter(state="running").count() == 1  # six entrants: tables all overlap


def test_the_admin_refuses_a_bad_tournament_and_makes_nothing(admin_client):
    names = house_entrants(4)
    response = admin_client.post("/admin/places/tournament/add/", admin_form(names))
    assert response.status_code == 200
    assert "5 to 100 entrants" in response.content.decode()
    response = admin_client.post(
        "/admin/places/tournament/add/", admin_form(house_entrants(5), game_count="many")
    )
    assert response.status_code == 200 and "Enter a whole number" in response.content.decode()
    assert not Tournament.objects.exists()


def test_the_admin_makes_a_uecda_duplicate_tournament_and_shows_its_codes(admin_client):
    """The admin form calls ``create_tournament`` as the shell command does: a uecda
    duplicate with one join code an entrant, which the change page shows staff."""
    names = [house.make_wire_user(f"w{i}", "pw")[0].username for i in range(5)]
    response = admin_client.post(
        "/admin/places/tournament/add/",
        admin_form(names, rules="uecda", format="duplicate", seed="", max_running=1),
    )
    assert response.status_code == 302
    t = Tournament.objects.get()
    assert (t.rules, t.format) == ("uecda", "duplicate") and t.seed  # drawn: rotations deal alike
    places = list(t.places.order_by("table_no"))
    assert len(places) == 5 and all(p.rules == "uecda" and p.duplicate_deals for p in places)
    codes = tournament_codes(t.id)
    assert [name for _, name, _ in codes] == names
    page = admin_client.get(f"/admin/places/tournament/{t.id}/change/").content.decode()
    assert all(f"{name} <code>{code}</code>" in page for _, name, code in codes)


@pytest.mark.parametrize(
    ("house_bots", "change", "message"),
    [
        (False, {"pace": "-1"}, "the pace is manual or 0 to"),
        (False, {"time_limit": "0"}, "the time limit must be more than 0"),
        (True, {}, "five house bots would never start it"),
        (False, {"rules": "nosuch"}, "Select a valid choice"),
    ],
)
def test_the_admin_shows_the_services_refusal_of_a_uecda_tournament(
    admin_client, house_bots, change, message
):
    if house_bots:  # a uecda table of house bots alone would wait for ever
        names = house_entrants(5)
    else:
        names = [house.make_wire_user(f"v{i}", "pw")[0].username for i in range(5)]
    form = admin_form(names, **{"rules": "uecda", **change})
    response = admin_client.post("/admin/places/tournament/add/", form)
    assert response.status_code == 200
    assert message in response.content.decode()
    assert not Tournament.objects.exists() and not Place.objects.exists()


def test_the_tournament_page_shows_an_entrant_its_own_code_and_staff_every_code(
    client, admin_client
):
    names = [house.make_wire_user(f"c{i}", "pw")[0].username for i in range(5)]
    t = services.create_tournament("Codes", names, game_count=1, rules="uecda")
    codes = {name: code for _, name, code in tournament_codes(t.id)}
    url = f"/tournaments/{t.id}/"
    anyone = client.get(url)
    assert not any(code in anyone.content.decode() for code in codes.values())
    assert 'id="entrant-codes"' not in anyone.content.decode()
    client.login(username="c1", password="pw")
    mine = client.get(url)
    html = mine.content.decode()
    assert codes["c1"] in html and "--rejoin" in html and "while ./client" in html
    assert not any(codes[n] in html for n in names if n != "c1")
    assert "no-cache" in mine["Cache-Control"]
    staff = admin_client.get(url).content.decode()
    assert all(code in staff for code in codes.values())
    public = json.dumps(client.get(f"/tournaments/{t.id}.json").json())
    assert not any(code in public for code in codes.values())
    table = t.places.order_by("table_no").first()
    live = client.get(f"/places/{table.id}/").content.decode()
    assert 'id="tournament-table"' in live and codes["c1"] not in live


def test_the_admin_makes_a_uecda_tournament_of_a_variant(admin_client):
    names = [house.make_wire_user(f"w{i}", "pw")[0].username for i in range(5)]
    form = admin_form(names, rules="uecda", variant="no-lock+11back")
    response = admin_client.post("/admin/places/tournament/add/", form)
    assert response.status_code == 302, response.content.decode()[-2000:]
    t = Tournament.objects.get()
    assert (t.rules, t.variant) == ("uecda", "no-lock+11back")
    assert {p.variant for p in Place.objects.filter(tournament=t)} == {"no-lock+11back"}
    bad = admin_form(names, rules="uecda", variant="13back", title="Other cup", seed="o")
    response = admin_client.post("/admin/places/tournament/add/", bad)
    assert "unknown variant token &#x27;13back&#x27;" in response.content.decode()
    assert Tournament.objects.count() == 1
