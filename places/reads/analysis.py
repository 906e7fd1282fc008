"""A game's analysis as a reader may read it (``docs/analysis.md``): only a finished game
whose record the reader may read (``places.reads.disclosure``), so never a game in play
nor a deal held back; the document itself, or how far its job is."""

from __future__ import annotations

from places import errors
from places.models import GameAnalysis
from places.services.analysis import finished_game


def status_of(analysis: GameAnalysis) -> dict:
    """A job's state as the page follows it: ``state``, ``done`` of ``decisions``."""
    status = {
        "state": analysis.state,
        "done": analysis.done_decisions,
        "decisions": analysis.decisions,
        "playouts": analysis.playouts,
    }
    if analysis.state == GameAnalysis.State.FAILED:
        status["error"] = analysis.error
    return status


def game_analysis(place_id: int, game_no: int, *, staff: bool = False) -> GameAnalysis:
    """The analysis of a game this reader may read, or a refusal: ``NOT_FOUND`` (no such
    finished game), ``HELD_BACK``, ``NOT_ANALYSED``."""
    game = finished_game(place_id, game_no, staff=staff)
    found = GameAnalysis.objects.filter(game=game).first()
    if found is None:
        raise errors.Refused(
            errors.NOT_ANALYSED, f"game {game_no} of place {place_id} has not been analysed"
        )
    return found
