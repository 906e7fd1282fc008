"""A strategy for ``python -m bots --strategy tests.e2e.slow_bot:thinker``: greedy, after
thinking a while, so that a test can act while the bot's turn is open."""

from __future__ import annotations

import time

from bots.strategies import greedy_player

THINK_SECONDS = 0.4
_greedy = greedy_player()


def thinker(view):
    time.sleep(THINK_SECONDS)
    return _greedy(view)
