"""Tournaments and ratings, read-only: ``/tournaments/``, ``/tournaments/ID/`` with its
JSON and CSV, the leaderboard ``/ratings`` and ``/ratings.json``.

Staff make and start tournaments from the admin or the shell
(``create_tournament``, ``start_tournament``); these pages only read. A ``uecda``
tournament's page shows its reader their own entrant join code (staff: every entrant's)
until it is over; a page that shows one is never cached.
"""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import render
from django.utils.cache import add_never_cache_headers

from daifugo.rules import DAIHINMIN_2011_NAME
from places import errors
from places.models import RULES_CHOICES, Tournament
from places.presentation import charts
from places.reads import ratings
from places.reads import tournaments as reads
from places.reads.games import rules_parameter
from places.reads.join_codes import connect, tournament_codes_for
from places.views import csv_response, json_response, read_only, refusal

#: The standings CSV's header (one row an entrant, best first).
CSV_HEADER = [
    "position",
    "name",
    "games",
    "points",
    "points_per_game",
    "interval_low",
    "interval_high",
    "average_rank",
    "rank_1",
    "rank_2",
    "rank_3",
    "rank_4",
    "rank_5",
]


def _found(tournament_id: str) -> reads.TournamentView:
    found = reads.tournament(int(tournament_id))
    if found is None:
        raise Http404(f"no tournament {tournament_id}")
    return found


@read_only
def tournament_list(request: HttpRequest) -> HttpResponse:
    page = reads.tournaments(request.GET.get("page"))
    context = {"title": "Tournaments · daihinmin", "page": page, "tournaments": page.object_list}
    return render(request, "places/tournaments.html", context)


@read_only
def tournament_page(request: HttpRequest, tournament_id: str) -> HttpResponse:
    view = _found(tournament_id)
    over = view.state == Tournament.State.FINISHED
    codes = [] if over else tournament_codes_for(view.id, request.user)
    context = {
        "title": f"{view.title} · daihinmin",
        "t": view,
        "chart": charts.interval_chart(view.standings, view.rules),
        # a uecda tournament not over: the reader's own entrant code (staff: every one's)
        "entrant_codes": [
            (no, name, connect(code, request.get_host(), tables=True)) for no, name, code in codes
        ],
    }
    response = render(request, "places/tournament.html", context)
    if codes:
        add_never_cache_headers(response)  # a secret of this reader's on it
    return response


@read_only
def tournament_json(request: HttpRequest, tournament_id: str) -> HttpResponse:
    found = reads.tournament(int(tournament_id))
    if found is None:
        return refusal(errors.Refused(errors.NOT_FOUND, f"no tournament {tournament_id}"))
    return json_response(found.as_dict())


@read_only
def standings_csv(request: HttpRequest, tournament_id: str) -> HttpResponse:
    view = _found(tournament_id)
    rows: list[list[object]] = [CSV_HEADER]
    for position, s in enumerate(view.standings, 1):
        d = s.as_dict()
        rows.append(
            [position, s.name, s.games, s.points, d["points_per_game"], *d["interval"]]
            + [d["average_rank"], *s.rank_counts]
        )
    return csv_response(f"tournament-{view.id}-standings.csv", rows)


def _rules_asked(request: HttpRequest) -> str:
    """The rule book a leaderboard is asked for (``?rules=``): the 2011 one unless said."""
    return rules_parameter(request.GET.get("rules") or DAIHINMIN_2011_NAME)


@read_only
def leaderboard(request: HttpRequest) -> HttpResponse:
    try:
        rules = _rules_asked(request)
    except errors.Refused as refused:
        return HttpResponseBadRequest(refused.message)
    return render(
        request,
        "places/ratings.html",
        {
            "title": "Ratings · daihinmin",
            "rows": ratings.leaderboard(rules),
            "rules": rules,
            "books": RULES_CHOICES,
        },
    )


@read_only
def ratings_json(request: HttpRequest) -> HttpResponse:
    try:
        rules = _rules_asked(request)
    except errors.Refused as refused:
        return refusal(refused)
    return json_response(
        {"ratings": [r.as_dict() for r in ratings.leaderboard(rules)], "rules": rules}
    )
