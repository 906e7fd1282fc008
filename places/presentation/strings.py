"""The words the pages' scripts show (``static/js``), in the request's language."""

from __future__ import annotations

from django.utils.translation import gettext as _

from places.presentation.cards import rank_names


def page_strings() -> dict[str, str]:
    """Words the pages' scripts show, in the request's language."""
    return {
        "ranks": rank_names(),
        "turn": _("turn"),
        "your_turn": _("Your turn"),
        "passed": _("Pass"),
        "missed": _("Miss"),
        "reset": _("RESET"),
        "eight_cut": _("8-cut"),
        "revolution": _("Revolution!"),
        "revolution_play": _("Revolution play"),
        "back_to_normal": _("Back to the normal order"),
        "normal": _("Normal"),
        "revolution_order": _("Revolution"),
        "game_of": _("Game %(no)s of %(count)s"),
        "no_game": _("No game yet"),
        "waiting": _("Waiting to start"),
        "finished": _("Finished"),
        "aborted": _("Stopped by staff"),
        "running": _("Running"),
        "game_over": _("Game %(no)s over"),
        "place_over": _("The place is over."),
        "played": _("%(name)s played %(cards)s"),
        "passes": _("%(name)s passed"),
        "misses": _("%(name)s missed"),
        "finishes": _("%(name)s finished: %(rank)s"),
        "rank_taken": _("%(name)s: %(rank)s"),
        "starts_game": _("Game %(no)s starts"),
        "empty_table": _("The table is empty"),
        "seconds": _("%(s)s s"),
        "live": _("live"),
        "ended": _("ended: nothing more to follow"),
        "connecting": _("connecting…"),
        "reconnecting": _("reconnecting…"),
        "cards": _("%(n)s cards"),
        "one_card": _("1 card"),
        "no_cards": _("no cards"),
        "play": _("Play"),
        "legal": _("legal"),
        "not_legal": _("not a legal play"),
        "select_cards": _("Select cards to play"),
        "no_legal_play": _("No card can beat the table: pass."),
        "must_lead": _("You lead: any legal play (no pass)."),
        "result_play": _("You played %(cards)s"),
        "result_pass": _("You passed"),
        "result_miss": _("Miss: %(reason)s"),
        "wait_turn": _("Waiting for %(name)s"),
        "error": _("Error: %(message)s"),
        "started": _("Started"),
        "stepped": _("Stepped"),
        "stopped": _("Stopped"),
        "stop_confirm": _("Stop this place? The game in play is dropped and the place ends."),
        "table_cleared": _("table cleared"),
        "joker": _("Joker"),
        "points": _("points"),
        "you": _("you"),
        "see_results": _("See the results"),
        "place_starts": _("The place starts"),
        "last_game": _("last game"),
        "points_short": _("%(n)s pt"),
        "bank": _("bank %(s)s s"),
    }


def replay_strings() -> dict[str, str]:
    """The live page's words and those of the replay page (``static/js/replay.js``)."""
    return {
        **page_strings(),
        "deal": _("The deal, after the exchange"),
        "at_deal": _("Deal · 0 of %(count)s"),
        "at_turn": _("Turn %(turn)s · %(at)s of %(count)s"),
        "leads": _("%(name)s leads"),
        "next": _("next: %(name)s"),
        "missed_reason": _("%(name)s missed: %(reason)s"),
        "timed_out": _("%(name)s ran out of time"),
        "timeout": _("Time out"),
        "ms": _("%(ms)s ms"),
        "every_hand": _("Every hand"),
        "seat_view": _("As %(name)s sees it"),
        "no_exchange": _("No exchange: the first game of a place has none."),
        "hidden_cards": _("%(n)s hidden cards"),
        "from_file": _("from the file %(name)s"),
        "game_in": _("%(title)s #%(place)s · Game %(no)s"),
        "no_record": _("No record to replay: %(message)s"),
        "not_a_record": _(
            "%(name)s is not a game record (format daihinmin-record, version 1): %(message)s"
        ),
        "order_differs": _(
            "The order worked out from the plays (%(mine)s) is not the record's (%(theirs)s)."
        ),
        "not_held": _(
            "The record does not add up at turn %(turn)s: %(name)s does not hold %(cards)s."
        ),
    }


def uecda_replay_strings() -> dict[str, str]:
    """The words the replay of a UECda game adds (``static/js/replay-uecda.js``)."""
    return {
        "lock": _("Locked to %(suits)s"),
        "locks": _("The lock: the same suits twice"),
        "back": _("11-back: lower beats higher this trick"),
        "backwards": _("Play goes the other way (6-reverse)"),
        "rejected": _("%(name)s submitted %(cells)s: rejected, a pass"),
        "rejected_short": _("Rejected"),
        "spade3": _("♠3 on the joker: the trick is cleared"),
        "stands_for": _("the joker as %(card)s"),
        "draw": _("20 passes in a row: the players still in drew their ranks"),
        "seat_no": _("seat %(n)s"),
        "choice": _("%(rank)s chose %(cards)s"),
        "no_exchange_uecda": _("No exchange: the first game of a rank period has none."),
        "points_per_game": _("%(n)s points"),
    }


def uecda_live_strings() -> dict[str, str]:
    """The words the live page of a UECda place adds (``static/js/live-uecda.js``)."""
    return {
        "waiting": _("No game yet: the table is drawn as soon as the match deals."),
        "last_game": _("Game %(no)s of %(count)s, as it ended (the last finished game)"),
        "live_game": _("Game %(no)s of %(count)s, live · turn %(at)s"),
        "exchanging": _("The exchange: the rich are choosing"),
    }


def analysis_strings() -> dict[str, str]:
    """The words of the replay page's analysis (``static/js/analysis.js``)."""
    return {
        "queued": _("Analysis queued…"),
        "running": _("Analysing: %(done)s of %(decisions)s decisions…"),
        "failed": _("The analysis failed: %(error)s"),
        "refused": _("Refused: %(message)s"),
        "turn": _("Turn %(turn)s: %(name)s"),
        "forced": _("One legal move: nothing to judge."),
        "miss": _("A miss or a timeout: not judged."),
        "played": _("played"),
        "best": _("best"),
        "pass": _("pass"),
        "loss": _("loss %(loss)s"),
        "none": _("Step to a turn to see its candidates."),
    }
