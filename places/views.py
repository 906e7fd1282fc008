"""The site's pages: home, a place's live progress and results, the card faces.

Read-only: they read through ``places.pages`` and change nothing. The live
page draws itself from ``state.json`` and then the numbered WebSocket stream
(``ws/places/ID/live/``); staff act through the staff endpoints.
"""

from __future__ import annotations

import csv
import json
import logging

from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, render
from django.utils.cache import add_never_cache_headers
from django.views.decorators.http import require_safe

from places import pages
from places.engine.cards import ALL_IDS
from places.models import Place

logger = logging.getLogger(__name__)


def _is_staff(request: HttpRequest) -> bool:
    user = request.user
    return bool(user.is_authenticated and user.is_active and user.is_staff)


@require_safe
def home(request: HttpRequest) -> HttpResponse:
    lists = pages.home_lists()
    return render(request, "home.html", {"title": "daihinmin", "lists": lists})


@require_safe
def live(request: HttpRequest, place_id: str) -> HttpResponse:
    place = get_object_or_404(Place, pk=int(place_id))
    staff = _is_staff(request)
    config = {
        "place": place.id,
        "state_url": f"/places/{place.id}/state.json",
        "ws_path": f"/ws/places/{place.id}/live/",
        "results_url": f"/places/{place.id}/results",
        "staff": staff,
        "start_url": f"/places/{place.id}/start.json" if staff else None,
        "next_url": f"/places/{place.id}/next_turn.json" if staff else None,
        "strings": pages.page_strings(),
    }
    context = {
        "title": f"{place.title} · daihinmin",
        "place": place,
        "config": config,
        "staff": staff,
        "seats": range(len(place.players.all())),
    }
    response = render(request, "places/live.html", context)
    add_never_cache_headers(response)
    return response


@require_safe
def state(request: HttpRequest, place_id: str) -> HttpResponse:
    """``/places/ID/state.json``: the snapshot the live page starts from (no hands unless staff)."""
    doc = pages.snapshot(int(place_id), staff=_is_staff(request))
    if doc is None:
        response = JsonResponse(
            {"error": {"code": "NOT_FOUND", "message": f"no place {place_id}"}}, status=404
        )
    else:
        response = HttpResponse(
            json.dumps(doc, separators=(",", ":"), ensure_ascii=False),
            content_type="application/json",
        )
    add_never_cache_headers(response)  # it changes every turn; staff's copy holds hands
    return response


@require_safe
def results(request: HttpRequest, place_id: str) -> HttpResponse:
    place = get_object_or_404(Place, pk=int(place_id))
    res = pages.results(place)
    context = {
        "title": f"{place.title} · results · daihinmin",
        "place": place,
        "res": res,
        "rows": pages.game_rows(res),
        "games_shown": pages.GAMES_SHOWN,
        "points_chart": pages.points_chart(res),
        "ranks_chart": pages.ranks_chart(res),
        "rank_legend": pages.rank_legend(),
        "rank_names": pages.rank_names(),
        "staff": _is_staff(request),
    }
    return render(request, "places/results.html", context)


@require_safe
def results_csv(request: HttpRequest, place_id: str) -> HttpResponse:
    place = get_object_or_404(Place, pk=int(place_id))
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="place-{place.id}-results.csv"'
    writer = csv.writer(response, lineterminator="\n")
    writer.writerows(pages.csv_rows(pages.results(place)))
    return response


@require_safe
def cards(request: HttpRequest) -> HttpResponse:
    """Every card face and the back, as the pages draw them."""
    faces = [pages.card(c) for c in ALL_IDS]
    return render(request, "places/cards.html", {"title": "Cards · daihinmin", "faces": faces})


@require_safe
def healthz(request: HttpRequest) -> JsonResponse:
    """Liveness and database check: 200 when ``SELECT 1`` works, else 503."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception:
        logger.exception("health check: database unreachable")
        return JsonResponse({"status": "error", "database": "error"}, status=503)
    return JsonResponse({"status": "ok", "database": "ok"})
