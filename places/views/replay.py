"""The replay page, ``/places/ID/games/N/replay``: one finished game, step by step.

Read-only, and drawn in the browser from the game's record alone
(``static/js/replay.js`` reads ``record.json``, or a record file the person
opens), so that any record, from this server or not, replays the same way.
A game of a ``uecda`` place is drawn by ``static/js/replay-uecda.js`` from its
record and the positions the engine works out of it (``places.presentation.replay_uecda``).
"""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse

from daifugo.record_schema import schema
from daifugo.rules import UECDA_NAME
from places.models import PLAYERS_PER_PLACE, GameAnalysis, Place
from places.presentation.cards import seat_colour
from places.presentation.charts import expected_points_chart
from places.presentation.replay_uecda import positions
from places.presentation.strings import analysis_strings, replay_strings, uecda_replay_strings
from places.reads.analysis import status_of
from places.reads.disclosure import disclosure
from places.reads.records import game_record
from places.sessions import is_staff
from places.views import read_only


@read_only
def replay(request: HttpRequest, place_id: str, game_no: str) -> HttpResponse:
    place = get_object_or_404(Place, pk=int(place_id))
    game = int(game_no)
    if not 1 <= game <= place.game_count:
        raise Http404(f"place {place.id} plays no game {game}")
    # the games whose records this reader may read (a held-back game is not linked)
    finished = disclosure(place, staff=is_staff(request)).public
    config = {
        "place": place.id,
        "game": game,
        "record_url": reverse("game-record", args=[place.id, game]),
        "colours": [seat_colour(s) for s in range(PLAYERS_PER_PLACE)],
        "strings": replay_strings(),
        # a record file is checked against the format's schema before it is drawn
        "schema": schema(),
    }
    uecda = place.rules == UECDA_NAME
    if uecda and game <= finished:
        # the UECda game is drawn as the engine plays it (static/js/replay-uecda.js)
        record = game_record(place.id, game, staff=is_staff(request))
        if record is not None:
            config.update(
                record=record,
                positions=positions(record),
                strings={**config["strings"], **uecda_replay_strings()},
            )
    analysis = None
    if game <= finished:
        analysis = GameAnalysis.objects.filter(game__place=place, game__no=game).first()
        config.update(
            # read, and asked for with a POST (api/views.py, AnalysisView)
            analysis_url=reverse("api:game_analysis", args=[place.id, game]),
            analysis_strings=analysis_strings(),
        )
    done = analysis is not None and analysis.state == GameAnalysis.State.DONE
    if done:
        config["analysis"] = analysis.result
    context = {
        "title": f"{place.title} · game {game} · daihinmin",
        "analysis": analysis.result if done else None,
        "analysis_status": None if analysis is None or done else status_of(analysis),
        "analysis_chart": expected_points_chart(analysis.result) if done else None,
        "analysis_players": [
            {**p, "marks": " / ".join(str(p["marks"][m]) for m in ("?!", "?", "??"))}
            for p in (analysis.result["players"] if done else [])
        ],
        "place": place,
        "game": game,
        "finished": game <= finished,
        "previous": game - 1 if game > 1 else None,
        "next": game + 1 if game < finished else None,
        "config": config,
        "uecda": uecda,
    }
    return render(request, "places/replay.html", context)
