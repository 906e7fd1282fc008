"""How a profile is shown: its figures as labelled rows, rank names with counts."""

from __future__ import annotations

from django.utils.translation import gettext as _

from places.presentation.cards import rank_names
from places.reads.profiles import Profile


def _number(value: float | None, digits: int = 2) -> str:
    return "–" if value is None else f"{value:,.{digits}f}"


def _percent(value: float | None) -> str:
    return "–" if value is None else f"{value * 100:.1f} %"


def profile_rows(p: Profile) -> dict:
    """The page's tables: figures as ``(label, value)`` rows, ranks with their names."""
    figures = [
        (_("Places played"), f"{len(p.places)}"),
        (_("Games"), f"{p.games}"),
        (_("Points per game"), _number(p.points_per_game)),
        (_("Turns"), f"{p.turns}"),
        (_("Think time, average"), f"{_number(p.think_ms_mean, 1)} ms"),
        (_("Think time, 99th percentile"), f"{_number(p.think_ms_p99, 1)} ms"),
        (_("Timeouts"), f"{p.timeouts}"),
        (_("Pass rate (of turns with cards on the table)"), _percent(p.pass_rate)),
        (_("Cards per play"), _number(p.cards_per_play)),
        (_("Revolutions"), f"{p.revolutions}"),
        (_("8-cuts"), f"{p.eight_cuts}"),
    ]
    names = rank_names()
    ranks = [(r, names[r], n) for r, n in enumerate(p.rank_counts, 1)]
    versions = [
        {
            "version": v.version or _("(no token)"),
            "games": v.games,
            "points_per_game": _number(v.points_per_game),
            "interval": "–" if v.low is None else f"{v.low:.2f} – {v.high:.2f}",
            "ranks": v.rank_counts,
        }
        for v in p.versions
    ]
    return {
        "figures": figures,
        "ranks": ranks,
        "misses": sorted(p.misses.items()),
        "versions": versions,
    }
