"""Ratings: every finished game of a rated place moves its players' ratings.

The model is openskill's Plackett–Luce (Weng and Lin's Bayesian approximation, the
TrueSkill family the bot arenas use): it takes a five-way finishing order as it is,
where Elo and Glicko would have to split a game into ten pairwise results, and it
keeps an uncertainty σ beside the skill μ, so a new bot's rating moves fast and a
settled one slowly. The leaderboard ranks by the conservative ordinal μ − 3σ.

Each rule book has its own ratings (``Rating.rules``): a 2011 game and a UECda game are
different contests. A game is rated inside the change that finishes it (``places/services/change.py``),
so a rating never counts a game that did not commit, nor one twice.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from functools import cache

from openskill.models import PlackettLuce

from places import rows
from places.models import Rating, RatingChange


@cache
def model() -> PlackettLuce:
    """The one rating model (openskill's defaults: μ 25, σ 25/3)."""
    return PlackettLuce()


def rate_game(
    game_id: int, rules: str, user_ids: Sequence[int], ranks: Sequence[int], now: datetime
) -> None:
    """Move the ratings in ``rules`` of ``user_ids`` (a game's players) by their ``ranks``
    (1 first).

    The players' rating rows are locked in user order, so two places finishing
    games with a player in common at once wait for each other and never deadlock.
    """
    m = model()
    held = _locked(rules, user_ids)
    if len(held) < len(user_ids):  # a first rated game: its rows start from the defaults
        Rating.objects.bulk_create(
            [
                Rating(user_id=u, rules=rules, mu=m.mu, sigma=m.sigma, last_played=now)
                for u in user_ids
            ],
            ignore_conflicts=True,
        )
        held = _locked(rules, user_ids)
    before = [[m.create_rating([held[u].mu, held[u].sigma])] for u in user_ids]
    after = m.rate(before, ranks=list(ranks))
    with rows.at_once():  # the next game of the same change reads them again
        for u, (rated,) in zip(user_ids, after, strict=True):
            row = held[u]
            row.mu, row.sigma = rated.mu, rated.sigma
            row.games += 1
            row.last_played = now
            rows.save(row, ["mu", "sigma", "games", "last_played"])
    rows.insert_many(
        RatingChange,
        [
            {
                "user_id": u,
                "game_id": game_id,
                "mu": held[u].mu,
                "sigma": held[u].sigma,
                "created_at": now,
            }
            for u in user_ids
        ],
    )


def _locked(rules: str, user_ids: Sequence[int]) -> dict[int, Rating]:
    """The players' rating rows in ``rules``, locked in user order, by user."""
    return {
        r.user_id: r
        for r in Rating.objects.select_for_update()
        .filter(rules=rules, user_id__in=user_ids)
        .order_by("user_id")
    }
