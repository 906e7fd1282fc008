"""Ratings: every finished game of a rated place moves its players' ratings.

The model is openskill's Plackett–Luce (Weng and Lin's Bayesian approximation, the
TrueSkill family the bot arenas use): it takes a five-way finishing order as it is,
where Elo and Glicko would have to split a game into ten pairwise results, and it
keeps an uncertainty σ beside the skill μ, so a new bot's rating moves fast and a
settled one slowly. The leaderboard ranks by the conservative ordinal μ − 3σ.

A game is rated inside the change that finishes it (``places/services/change.py``),
so a rating never counts a game that did not commit, nor one twice.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from functools import cache

from openskill.models import PlackettLuce

from places.models import Rating, RatingChange


@cache
def model() -> PlackettLuce:
    """The one rating model (openskill's defaults: μ 25, σ 25/3)."""
    return PlackettLuce()


def rate_game(game_id: int, user_ids: Sequence[int], ranks: Sequence[int], now: datetime) -> None:
    """Move the ratings of ``user_ids`` (a game's players) by their ``ranks`` (1 first).

    The players' rating rows are locked in user order, so two places finishing
    games with a player in common at once wait for each other and never deadlock.
    """
    m = model()
    Rating.objects.bulk_create(
        [Rating(user_id=u, mu=m.mu, sigma=m.sigma, last_played=now) for u in user_ids],
        ignore_conflicts=True,
    )
    rows = {
        r.user_id: r
        for r in Rating.objects.select_for_update().filter(user_id__in=user_ids).order_by("user_id")
    }
    before = [[m.create_rating([rows[u].mu, rows[u].sigma])] for u in user_ids]
    after = m.rate(before, ranks=list(ranks))
    for u, (rated,) in zip(user_ids, after, strict=True):
        row = rows[u]
        row.mu, row.sigma = rated.mu, rated.sigma
        row.games += 1
        row.last_played = now
    Rating.objects.bulk_update(rows.values(), ["mu", "sigma", "games", "last_played"])
    RatingChange.objects.bulk_create(
        RatingChange(user_id=u, game_id=game_id, mu=rows[u].mu, sigma=rows[u].sigma, created_at=now)
        for u in user_ids
    )
