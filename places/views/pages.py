"""The site's pages: home, a place's live progress and results, the card faces.

Read-only: they read through ``places.reads`` and show it through
``places.presentation``. The live page draws itself from ``state.json`` and then
the numbered WebSocket stream (``ws/places/ID/live/``); staff act through the
staff endpoints.
"""

from __future__ import annotations

import logging

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils.cache import add_never_cache_headers

from daifugo.cards import ALL_IDS
from daifugo.rules import UECDA_NAME
from places import errors
from places.models import ENDED, PLAYERS_PER_PLACE, Place
from places.presentation import cards as shown
from places.presentation import charts
from places.presentation import results as results_tables
from places.presentation.replay_uecda import positions
from places.presentation.strings import (
    page_strings,
    replay_strings,
    uecda_live_strings,
    uecda_replay_strings,
)
from places.reads import lists, standings
from places.reads.analysis import place_accuracy
from places.reads.disclosure import disclosure
from places.reads.join_codes import codes_for, connect
from places.reads.records import game_record
from places.reads.seats import seats_of
from places.reads.snapshot import snapshot
from places.sessions import is_staff
from places.views import csv_response, json_response, read_only, refusal

logger = logging.getLogger(__name__)


@read_only
def home(request: HttpRequest) -> HttpResponse:
    found = lists.home_lists({state: request.GET.get(state, "") for state in lists.STATES})
    for place_list in found.places.values():
        page = place_list.page
        if page.has_previous():
            place_list.previous_url = _with_page(request, place_list.state, page.number - 1)
        if page.has_next():
            place_list.next_url = _with_page(request, place_list.state, page.number + 1)
    return render(request, "home.html", {"title": "daihinmin", "lists": found})


def _with_page(request: HttpRequest, state: str, number: int) -> str:
    """This page's address with one list on page ``number``, the others where they are."""
    query = request.GET.copy()
    query[state] = str(number)
    return f"?{query.urlencode()}#{state}"


@read_only
def live(request: HttpRequest, place_id: str) -> HttpResponse:
    place = get_object_or_404(Place, pk=int(place_id))
    staff = is_staff(request)
    if place.rules == UECDA_NAME:
        return _live_uecda(request, place, staff)
    config = {
        "place": place.id,
        "state_url": f"/places/{place.id}/state.json",
        "ws_path": f"/ws/places/{place.id}/live/",
        "results_url": f"/places/{place.id}/results",
        "staff": staff,
        "start_url": f"/places/{place.id}/start.json" if staff else None,
        "next_url": f"/places/{place.id}/next_turn.json" if staff else None,
        "stop_url": f"/places/{place.id}/stop.json" if staff else None,
        "strings": page_strings(),
    }
    context = {
        "title": f"{place.title} · daihinmin",
        "place": place,
        "config": config,
        "staff": staff,
        "seats": range(len(seats_of(place.id))),
    }
    response = render(request, "places/live.html", context)
    add_never_cache_headers(response)
    return response


#: The live page's words of its socket, shared by the UECda live page.
SOCKET_STRINGS = ("live", "ended", "connecting", "reconnecting")


def _live_uecda(request: HttpRequest, place: Place, staff: bool) -> HttpResponse:
    """A UECda place's live page: its table from the live frames (``static/js/live-uecda.js``),
    and until one comes its last game this reader may read, as it ended."""
    doc = snapshot(place.id)
    last = disclosure(place, staff=staff).public
    record = game_record(place.id, last, staff=staff) if last else None
    config = {
        "place": place.id,
        "game_count": place.game_count,
        "over": place.state in ENDED,  # nothing more to follow: no socket
        "ws_path": f"/ws/places/{place.id}/live/",
        "names": [seat["name"] for seat in doc["seats"]],
        "points": [seat["points"] for seat in doc["seats"]],
        "colours": [shown.seat_colour(s) for s in range(PLAYERS_PER_PLACE)],
        "record": record,
        "position": positions(record)[-1] if record is not None else None,
        "strings": {
            **replay_strings(),
            **uecda_replay_strings(),
            **uecda_live_strings(),
            **{k: v for k, v in page_strings().items() if k in SOCKET_STRINGS},
        },
    }
    codes = codes_for(place.id, request.user) if place.state == Place.State.WAITING else []
    context = {
        "title": f"{place.title} · daihinmin",
        "place": place,
        "config": config,
        # a waiting place: the reader's own seat's join code (staff: every seat's)
        "join_codes": [
            (seat, name, connect(code, request.get_host(), rules=place.rules_label))
            for seat, name, code in codes
        ],
    }
    response = render(request, "places/live_uecda.html", context)
    add_never_cache_headers(response)
    return response


@read_only
def state(request: HttpRequest, place_id: str) -> HttpResponse:
    """``/places/ID/state.json``: the snapshot the live page starts from (no hands unless staff)."""
    doc = snapshot(int(place_id), staff=is_staff(request))
    if doc is None:
        response = refusal(errors.Refused(errors.NOT_FOUND, f"no place {place_id}"))
    else:
        for seat in doc["seats"]:
            seat["colour"] = shown.seat_colour(seat["seat"])
        response = json_response(doc)
    add_never_cache_headers(response)  # it changes every turn; staff's copy holds hands
    return response


@read_only
def results(request: HttpRequest, place_id: str) -> HttpResponse:
    place = get_object_or_404(Place, pk=int(place_id))
    res = standings.results(place)
    rows, page = results_tables.game_rows(res, request.GET.get("page"))
    analysed, accuracy = place_accuracy(place, staff=is_staff(request))
    context = {
        "title": f"{place.title} · results · daihinmin",
        "place": place,
        "games_played": len(res.games),
        "players": results_tables.players(res),
        "standings": results_tables.standings(res),
        "totals": res.points,
        # what a game's ranks give under the place's rules (2011: 4 … 0; UECda: 5 … 1)
        "points_given": ", ".join(
            str(place.game_rules.points_for(rank, PLAYERS_PER_PLACE))
            for rank in range(1, PLAYERS_PER_PLACE + 1)
        ),
        "rows": rows,
        "page": page,
        "points_chart": charts.points_chart(res),
        "ranks_chart": charts.ranks_chart(res),
        "rank_legend": shown.rank_legend(),
        "rank_names": shown.rank_names(),
        "staff": is_staff(request),
        # games 1 … this have records the reader may replay (a held-back deal is not linked)
        "replayable": disclosure(place, staff=is_staff(request)).public,
        # each player's accuracy over the games analysed (docs/analysis.md)
        "analysed": analysed,
        "accuracy": accuracy,
    }
    return render(request, "places/results.html", context)


@read_only
def results_csv(request: HttpRequest, place_id: str) -> HttpResponse:
    place = get_object_or_404(Place, pk=int(place_id))
    return csv_response(
        f"place-{place.id}-results.csv", results_tables.csv_rows(standings.results(place))
    )


@read_only
def cards(request: HttpRequest) -> HttpResponse:
    """Every card face and the back, as the pages draw them."""
    faces = [shown.face(c) for c in ALL_IDS]
    return render(request, "places/cards.html", {"title": "Cards · daihinmin", "faces": faces})
