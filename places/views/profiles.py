"""Profiles, ``/users/NAME`` and ``/users/NAME.json``: how a player has played.

Read-only; the figures come from ``places.reads.profiles`` (finished games only).
"""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse, HttpResponsePermanentRedirect
from django.shortcuts import render
from django.urls import reverse

from places import errors
from places.models import RULES_CHOICES
from places.presentation.charts import rating_chart
from places.presentation.profiles import profile_rows
from places.reads.analysis import user_accuracy
from places.reads.profiles import profile
from places.views import json_response, read_only, refusal


@read_only
def profile_page(request: HttpRequest, name: str) -> HttpResponse:
    found = profile(name)
    if found is None:
        raise Http404(f"no player {name}")
    context = {
        "title": f"{found.name} · daihinmin",
        "profile": found,
        "ratings": [
            (book, dict(RULES_CHOICES)[book.rules], rating_chart(book.history))
            for book in found.ratings
        ],
        **profile_rows(found),
        # accuracy by rule book over the player's analysed games (docs/analysis.md)
        "accuracy": [(dict(RULES_CHOICES)[rules], a) for rules, a in user_accuracy(found.name)],
    }
    return render(request, "places/profile.html", context)


@read_only
def profile_slash(request: HttpRequest, name: str) -> HttpResponse:
    """``/users/NAME/``: moved for good to ``/users/NAME`` (with its query string)."""
    query = request.META.get("QUERY_STRING", "")
    return HttpResponsePermanentRedirect(
        reverse("profile", kwargs={"name": name}) + (f"?{query}" if query else "")
    )


@read_only
def profile_json(request: HttpRequest, name: str) -> HttpResponse:
    found = profile(name)
    if found is None:
        return refusal(errors.Refused(errors.NOT_FOUND, f"no player {name[:150]}"))
    return json_response(found.as_dict())
