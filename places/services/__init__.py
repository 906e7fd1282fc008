"""The one place where places change (writes; the reads are ``places.reads``).

Every change is one transaction that locks the place's row
(``places/services/change.py``); events go out only after commit, in order.
Views, consumers, the admin and the commands call these functions and render
what they return, or the ``places.errors.Refused`` they raise.
"""

from places.services.change import Stale, playing
from places.services.lifecycle import (
    next_turn,
    resume,
    run_due,
    schedule_start,
    schedule_stop,
    start_place,
    stop_place,
)
from places.services.moves import IDEMPOTENCY_KEY, MAX_CARDS, PostResult, post_cards, read_key
from places.services.practice import Practice, check_practice, start_practice
from places.services.setup import (
    EDITABLE_WHEN_STARTED,
    FIXED_WHEN_STARTED,
    create_place,
    edit_place,
    reseat_place,
)
from places.services.tournaments import (
    advance_running,
    create_tournament,
    start_tournament,
)

__all__ = [
    "EDITABLE_WHEN_STARTED",
    "FIXED_WHEN_STARTED",
    "IDEMPOTENCY_KEY",
    "MAX_CARDS",
    "PostResult",
    "Stale",
    "advance_running",
    "Practice",
    "check_practice",
    "create_place",
    "create_tournament",
    "edit_place",
    "next_turn",
    "playing",
    "post_cards",
    "read_key",
    "reseat_place",
    "resume",
    "run_due",
    "schedule_start",
    "schedule_stop",
    "start_place",
    "stop_place",
    "start_practice",
    "start_tournament",
]
