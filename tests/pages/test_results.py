"""The results page and its CSV: ranks per game, points, totals, rank counts, charts."""

from __future__ import annotations

import csv
import io

import pytest

from places.models import Game, Rank
from places.reads import standings as reads
from tests.pages.conftest import NAMES

pytestmark = pytest.mark.django_db


def rows(response) -> list[list[str]]:
    return list(csv.reader(io.StringIO(response.content.decode("utf-8"))))


def test_the_csv_has_one_row_per_game_and_player(client, finished_place):
    response = client.get(f"/places/{finished_place.id}/results.csv")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert "attachment" in response["Content-Disposition"]
    table = rows(response)
    assert table[0] == ["game", "seat", "player", "rank", "points", "total"]
    body = table[1:]
    assert len(body) == 3 * 5
    for no, player, rank in Rank.objects.filter(game__place=finished_place).values_list(
        "game__no", "player__user__username", "rank"
    ):
        row = next(r for r in body if r[0] == str(no) and r[2] == player)
        assert row[3] == str(rank)
        assert row[4] == str(5 - rank)


def test_the_csv_totals_are_the_standings(client, finished_place):
    body = rows(client.get(f"/places/{finished_place.id}/results.csv"))[1:]
    last = {r[2]: int(r[5]) for r in body if r[0] == "3"}
    standings = {s.name: s.points for s in reads.standings(finished_place)}
    assert last == standings


def test_the_csv_of_a_running_place_has_its_finished_games_only(client, place):
    assert rows(client.get(f"/places/{place.id}/results.csv")) == [
        ["game", "seat", "player", "rank", "points", "total"]
    ]


def test_the_page_shows_standings_charts_and_every_game(client, finished_place):
    response = client.get(f"/places/{finished_place.id}/results")
    assert response.status_code == 200
    text = response.content.decode()
    assert f'href="/places/{finished_place.id}/results.csv"' in text
    # one cumulative line per player, one stacked bar per player
    assert text.count('<polyline class="series"') == 5
    assert text.count('<g class="bar"') == 5
    segments = text.count('<rect class="segment"')
    counts = [s.rank_counts for s in reads.standings(finished_place)]
    assert segments == sum(1 for c in counts for n in c if n)
    for name in NAMES:
        assert f'data-name="{name}"' in text
    assert text.count('<span class="rank-pill rank-') >= 15  # 3 games × 5 players


def test_the_standings_match_the_management_queries(client, finished_place):
    text = client.get(f"/places/{finished_place.id}/results").content.decode()
    for s in reads.standings(finished_place):
        row = text.split(f'<tr data-name="{s.name}">', 1)[1].split("</tr>", 1)[0]
        assert f"<strong>{s.points}</strong>" in row
        for n in s.rank_counts:
            assert f'<td class="num">{n}</td>' in row


def test_the_page_says_the_points_a_2011_game_gives(client, finished_place):
    text = client.get(f"/places/{finished_place.id}/results").content.decode()
    assert "with the points it gave (1st to 5th: 4, 3, 2, 1, 0)." in text
    assert "+4" in text and "+5" not in text


def test_a_running_place_shows_no_game_yet(client, place):
    text = client.get(f"/places/{place.id}/results").content.decode()
    assert "No game has finished yet." in text
    assert "<polyline" not in text


def test_an_unknown_place_is_404(client, db):
    assert client.get("/places/999999/results").status_code == 404
    assert client.get("/places/999999/results.csv").status_code == 404


def test_games_of_an_unfinished_game_are_not_counted(client, finished_place):
    # a rank row of a game still running (as happens mid-game) is not a result yet
    assert Game.objects.filter(place=finished_place, status=Game.RUNNING).count() == 0
    body = rows(client.get(f"/places/{finished_place.id}/results.csv"))[1:]
    assert {r[0] for r in body} == {"1", "2", "3"}


#: Names a spreadsheet would read as formulas (OWASP's CSV injection), and what the CSV holds.
FORMULA_NAMES = {
    "alice": ("=HYPERLINK(1)", "'=HYPERLINK(1)"),
    "bob": ("+1", "'+1"),
    "charlie": ("-2+3", "'-2+3"),
    "dave": ("@SUM(A1)", "'@SUM(A1)"),
}


def test_the_csv_neutralises_names_a_spreadsheet_would_read_as_formulas(client, finished_place):
    from django.contrib.auth import get_user_model

    from places.reads import seats

    for old, (new, _) in FORMULA_NAMES.items():
        get_user_model().objects.filter(username=old).update(username=new)
    seats.forget()
    body = rows(client.get(f"/places/{finished_place.id}/results.csv"))[1:]
    names = {r[2] for r in body}
    assert names == {written for _, written in FORMULA_NAMES.values()} | {"eve"}
    assert all(r[4].isdigit() for r in body)  # numbers are not touched


def _games_listed(text: str) -> list[int]:
    body = text.split('id="games-table"', 1)[1].split("</tbody>", 1)[0]
    return [int(cell.split("<", 1)[0].split()[0]) for cell in body.split('<td class="game">')[1:]]


def test_the_page_pages_through_every_game(client, finished_place, monkeypatch):
    """A place of more games than a page lists: every game is on a page (it showed the first
    500 of 1,000, with no paging)."""
    from places.presentation import results as tables

    monkeypatch.setattr(tables, "GAMES_A_PAGE", 2)
    url = f"/places/{finished_place.id}/results"
    first = client.get(url).content.decode()
    assert _games_listed(first) == [1, 2]
    assert 'rel="next" href="?page=2#games-table"' in first
    second = client.get(url, {"page": 2}).content.decode()
    assert _games_listed(second) == [3]
    assert 'rel="prev" href="?page=1#games-table"' in second
    # game 3's ranks, seat by seat
    row = second.split('<td class="game">3', 1)[1].split("</tr>", 1)[0]
    pills = [int(c.split("rank-pill rank-", 1)[1][0]) for c in row.split("<td>")[1:]]
    ranks = Rank.objects.filter(game__place=finished_place, game__no=3).order_by("player__seat")
    assert pills == [r.rank for r in ranks]
    # out of range: the nearest page
    assert _games_listed(client.get(url, {"page": 9}).content.decode()) == [3]
