"""Whether the user of a practice is gone: a practice plays on only while someone practises.

Gone is either of:

- the user is inactive (``is_active`` off: staff shut the account; a user who sits in a
  place cannot be deleted, ``Player.user`` protects it, so inactive is how one goes);
- the user made no move, neither a play nor a pass nor a miss (only timeouts), in each of
  the place's last ``PRACTICE_ABSENT_GAMES`` games: no bot is there to answer.

A practice is asked after each of its games (``places/services/change.py``) and, when its
user is gone, ends there: the house plays no game for nobody.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import get_user_model

from places.models import Turn

#: What a player does: anything but a timeout.
MOVES = (Turn.Outcome.PLAY, Turn.Outcome.PASS, Turn.Outcome.MISS)


def user_gone(user_id: int, player_id: int, game_no: int) -> bool:
    """Whether the practising user (``player_id`` in the place) is gone after game ``game_no``."""
    if not get_user_model().objects.filter(pk=user_id, is_active=True).exists():
        return True
    absent = settings.PRACTICE_ABSENT_GAMES
    if absent <= 0 or game_no < absent:
        return False
    return not Turn.objects.filter(
        player_id=player_id, game__no__gt=game_no - absent, outcome__in=MOVES
    ).exists()
