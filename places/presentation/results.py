"""The results page's tables and its CSV: each game's ranks and points, running totals."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import islice

from django.core.paginator import Page, Paginator

from daifugo.rules import rules_named
from places.presentation.cards import seat_colour
from places.reads.standings import Results

#: The results page lists this many games a page (``?page=N``; the CSV has them all).
GAMES_A_PAGE = 500


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


def game_rows(res: Results, page: str | int | None = None) -> tuple[list[dict], Page]:
    """Page ``page`` of the games (``GAMES_A_PAGE`` a page; a number out of range or not a
    number gives the nearest page): each seat's rank, points and running total, the totals
    counted from game 1."""
    shown = Paginator(res.games, GAMES_A_PAGE).get_page(page)
    first = shown.start_index() - 1 if res.games else 0
    rows = [
        {"no": no, "cells": [{"rank": r, "points": p, "total": t} for r, p, t in cells]}
        for no, cells in islice(_cells(res), first, first + len(shown.object_list))
    ]
    return rows, shown


def csv_rows(res: Results) -> list[list[object]]:
    """One row per game and player: game, seat, player, rank, points, cumulative points."""
    rows: list[list[object]] = [["game", "seat", "player", "rank", "points", "total"]]
    for no, cells in _cells(res):
        for seat, (r, pts, total) in zip(res.seats, cells, strict=True):
            rows.append([no, seat.no + 1, seat.name, r if r else "", pts, total])
    return rows
