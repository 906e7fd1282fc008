"""A finished game's analysis over HTTP (``docs/analysis.md``).

``GET /places/ID/games/N/analysis.json``: the analysis (200), how far its job is
(202), or a refusal as ``record.json`` gives one (a game in play or held back is
never analysed for anyone but staff). ``POST /places/ID/games/N/analyse`` (a logged-in
user, the replay page's button): queue it.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_POST

from places import errors
from places.models import GameAnalysis
from places.reads.analysis import game_analysis, status_of
from places.services.analysis import request_analysis
from places.views import is_staff, json_response, read_only, refusal


@read_only
def analysis(request: HttpRequest, place_id: str, game_no: str) -> HttpResponse:
    try:
        found = game_analysis(int(place_id), int(game_no), staff=is_staff(request))
    except errors.Refused as refused:
        return refusal(refused)
    if found.state == GameAnalysis.State.DONE:
        return json_response(found.result)
    return json_response(status_of(found), status=202)


@require_POST
def analyse(request: HttpRequest, place_id: str, game_no: str) -> HttpResponse:
    user = request.user
    if not (user.is_authenticated and user.is_active):
        return refusal(errors.Refused(errors.NOT_LOGGED_IN, "log in to ask for an analysis"))
    try:
        found = request_analysis(user.pk, int(place_id), int(game_no), staff=is_staff(request))
    except errors.Refused as refused:
        return refusal(refused)
    if found.state == GameAnalysis.State.DONE:
        return json_response(status_of(found))
    return json_response(status_of(found), status=202)
