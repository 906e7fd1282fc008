"""The results page's tables and its CSV: each game's ranks and points, running totals."""

from __future__ import annotations

from collections.abc import Iterator

from places.engine.rules import rules_named
from places.presentation.cards import seat_colour
from places.reads.standings import Results

#: The results page lists at most this many games in its table (the CSV has them all).
GAMES_SHOWN = 500


def _cells(res: Results) -> Iterator[tuple[int, list[tuple[int | None, int, int]]]]:
    """Per game: its number and, per seat, (rank, points, running total)."""
    n = len(res.seats)
    points_of = rules_named(res.place.rules).points_for
    running = [0] * n
    for no, ranks in res.games:
        cells = []
        for s, r in enumerate(ranks):
            pts = points_of(r, n) if r else 0
            running[s] += pts
            cells.append((r, pts, running[s]))
        yield no, cells


def players(res: Results) -> list[dict]:
    """The table's columns: each seat's name and colour."""
    return [{"name": s.name, "colour": seat_colour(s.no)} for s in res.seats]


def standings(res: Results) -> list[dict]:
    """The standings table: best first, with each player's colour."""
    return [
        {
            "position": s.position,
            "name": s.name,
            "points": s.points,
            "counts": s.rank_counts,
            "average": s.average_rank,
            "colour": seat_colour(s.seat),
        }
        for s in res.standings
    ]


def game_rows(res: Results) -> list[dict]:
    """The first ``GAMES_SHOWN`` games: each seat's rank, points and running total."""
    out = []
    for no, cells in _cells(res):
        if len(out) == GAMES_SHOWN:
            break
        out.append({"no": no, "cells": [{"rank": r, "points": p, "total": t} for r, p, t in cells]})
    return out


def csv_rows(res: Results) -> list[list[object]]:
    """One row per game and player: game, seat, player, rank, points, cumulative points."""
    rows: list[list[object]] = [["game", "seat", "player", "rank", "points", "total"]]
    for no, cells in _cells(res):
        for seat, (r, pts, total) in zip(res.seats, cells, strict=True):
            rows.append([no, seat.no + 1, seat.name, r if r else "", pts, total])
    return rows
