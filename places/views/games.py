"""The game search: ``/games.json`` and its page ``/games`` (``places/reads/games.py``).

Read-only and public; a game still held back is found by staff only.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import render

from daifugo import facts
from daifugo.rules import PROFILES
from places import errors
from places.reads import games
from places.sessions import is_staff
from places.views import json_response, read_only, refusal


def _next_url(path: str, q: games.GameQuery, page: games.GamesPage) -> str | None:
    if page.next_before is None:
        return None
    query = QueryDict(mutable=True)
    query.update(q.params(before=page.next_before))
    return f"{path}?{query.urlencode()}"


@read_only
def games_json(request: HttpRequest) -> HttpResponse:
    """``/games.json``: a page of the games found, newest first, and the next page's URL."""
    try:
        q = games.parse_query(request.GET.dict())
    except errors.Refused as refused:
        return refusal(refused)
    page = games.search(q, staff=is_staff(request))
    return json_response(
        {
            "games": [g.as_dict() for g in page.games],
            "next": _next_url(request.path, q, page),
        }
    )


@read_only
def games_page(request: HttpRequest) -> HttpResponse:
    """``/games``: the search's form and a page of what it finds."""
    given = request.GET.dict()
    problem = None
    try:
        q = games.parse_query(given)
        page = games.search(q, staff=is_staff(request))
    except errors.Refused as refused:
        problem = refused.message
        q, page = games.GameQuery(), games.GamesPage([], None)
    context = {
        "title": "Games · daihinmin",
        "given": given,
        "problem": problem,
        "games": page.games,
        "next_url": _next_url(request.path, q, page),
        "first_url": request.path + "?" + _without_cursor(request.GET) if q.before else None,
        "kinds": facts.KINDS,
        "miss_codes": games.MISS_CODES,
        "rules_names": list(PROFILES),
        "version_max_length": games.VERSION_MAX_LENGTH,
        "asked_fact": q.has,
    }
    return render(request, "places/games.html", context, status=400 if problem else 200)


def _without_cursor(query: QueryDict) -> str:
    kept = query.copy()
    kept.pop("before", None)
    return kept.urlencode()
