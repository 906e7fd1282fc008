"""The pages' charts (results, tournament, rating history), drawn in SVG by the templates
from this geometry (no chart library)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from daifugo.rules import rules_named
from places.models import PLAYERS_PER_PLACE
from places.presentation.cards import RANK_COLOURS, seat_colour
from places.reads.ratings import RatingPoint
from places.reads.standings import Results
from places.reads.tournaments import Standing

#: The rating chart's lines: μ, then the ordinal.
RATING_COLOURS = ("#2563eb", "#16a34a")


@dataclass
class Chart:
    width: int
    height: int
    left: int
    right: int
    top: int
    bottom: int
    x_ticks: list[dict]
    y_ticks: list[dict]
    series: list[dict]

    @property
    def plot_right(self) -> int:
        return self.width - self.right

    @property
    def plot_bottom(self) -> int:
        return self.height - self.bottom


def _nice_step(span: float, target: int) -> int:
    """A round step (1, 2, 5 × 10ⁿ) giving about ``target`` ticks over ``span``."""
    raw = max(span / max(target, 1), 1)
    magnitude = 10 ** (len(str(int(raw))) - 1)
    for m in (1, 2, 5, 10):
        if m * magnitude >= raw:
            return m * magnitude
    return 10 * magnitude


#: A line chart keeps at most this many points per line (every k-th game beyond it).
MAX_LINE_POINTS = 400


def points_chart(res: Results, width: int = 720, height: int = 320) -> Chart:
    """Cumulative points per player over the games: one polyline per seat."""
    games = len(res.games)
    n = len(res.seats)
    points_of = rules_named(res.place.rules).points_for
    cumulative = [[0] for _ in range(n)]
    for _no, ranks in res.games:
        for s, r in enumerate(ranks):
            cumulative[s].append(cumulative[s][-1] + (points_of(r, n) if r else 0))
    top_value = max([max(c) for c in cumulative] + [1])
    y_step = _nice_step(top_value, 5)
    y_max = -(-top_value // y_step) * y_step
    x_max = max(games, 1)
    every = max(1, -(-games // MAX_LINE_POINTS))
    idx = list(range(0, games + 1, every))
    if idx[-1] != games:
        idx.append(games)
    lines = [
        (res.seats[s].name, seat_colour(s), [(i, values[i]) for i in idx], values[-1])
        for s, values in enumerate(cumulative)
    ]
    return _line_chart(lines, x_max, _nice_step(x_max, 10), y_max, y_step, width, height, 48)


def _line_chart(
    lines: list[tuple[str, str, list[tuple[float, float]], object]],
    x_max: int,
    x_step: int,
    y_max: int,
    y_step: int,
    width: int,
    height: int,
    bottom: int,
) -> Chart:
    """Polylines from 0 up on both axes: each line's name, colour, points ``(x, y)`` and
    the total shown at its end (the results' points, the analysis's expected points)."""
    left, right, top = 48, 16, 16
    plot_w = width - left - right
    plot_h = height - top - bottom

    def x(v: float) -> float:
        return round(left + plot_w * v / x_max, 1)

    def y(v: float) -> float:
        return round(top + plot_h * (1 - v / y_max), 1)

    series = [
        {
            "name": name,
            "colour": colour,
            "points": " ".join(f"{x(a)},{y(b)}" for a, b in points),
            "end_x": x(points[-1][0]),
            "end_y": y(points[-1][1]),
            "total": total,
        }
        for name, colour, points, total in lines
    ]
    return Chart(
        width,
        height,
        left,
        right,
        top,
        bottom,
        x_ticks=[{"value": v, "x": x(v)} for v in range(0, x_max + 1, x_step)],
        y_ticks=[{"value": v, "y": y(v)} for v in range(0, y_max + 1, y_step)],
        series=series,
    )


def ranks_chart(res: Results, width: int = 720, height: int = 300) -> Chart:
    """The distribution of ranks per player: one stacked bar per seat, rank 1 at the bottom."""
    left, right, top, bottom = 48, 16, 16, 40
    n = len(res.seats)
    games = max(len(res.games), 1)
    plot_w = width - left - right
    plot_h = height - top - bottom
    slot = plot_w / max(n, 1)
    bar_w = min(72, slot * 0.6)
    y_step = _nice_step(games, 5)

    def y(v: float) -> float:
        return round(top + plot_h * (1 - v / games), 1)

    series = []
    for s in range(n):
        cx = left + slot * (s + 0.5)
        segments = []
        below = 0
        for r, c in enumerate(res.counts[s]):
            if c:
                segments.append(
                    {
                        "rank": r + 1,
                        "count": c,
                        "x": round(cx - bar_w / 2, 1),
                        "y": y(below + c),
                        "width": round(bar_w, 1),
                        "height": round(y(below) - y(below + c), 1),
                        "colour": RANK_COLOURS[r],
                        "label_y": round((y(below) + y(below + c)) / 2 + 4, 1),
                    }
                )
            below += c
        series.append(
            {"name": res.seats[s].name, "x": round(cx, 1), "segments": segments, "seat": s}
        )
    ticks = list(range(0, games + 1, y_step))
    if ticks[-1] != games:
        ticks.append(games)
    return Chart(
        width,
        height,
        left,
        right,
        top,
        bottom,
        x_ticks=[],
        y_ticks=[{"value": v, "y": y(v)} for v in ticks],
        series=series,
    )


def interval_chart(
    rows: list[Standing], rules: str, width: int = 720, row_height: int = 28
) -> Chart:
    """Points per game of each entrant with its 95 % interval: a dot on a whisker per row,
    on the axis of ``rules``' points (2011: 0 … 4; uecda: 1 … 5)."""
    left, right, top, bottom = 160, 24, 12, 36
    height = top + bottom + row_height * max(len(rows), 1)
    book = rules_named(rules)
    x_min, x_max = (
        book.points_for(PLAYERS_PER_PLACE, PLAYERS_PER_PLACE),
        book.points_for(1, PLAYERS_PER_PLACE),
    )
    plot_w = width - left - right

    def x(v: float) -> float:
        v = min(max(v, x_min), x_max)  # an interval past the points a game can give: cut
        return round(left + plot_w * (v - x_min) / (x_max - x_min), 1)

    series = []
    for i, s in enumerate(rows):
        if s.points_per_game is None:
            continue
        series.append(
            {
                "name": s.name,
                "y": top + row_height * i + row_height // 2,
                "x": x(s.points_per_game),
                "low": x(s.low),
                "high": x(s.high),
                "value": s.points_per_game,
            }
        )
    return Chart(
        width,
        height,
        left,
        right,
        top,
        bottom,
        x_ticks=[{"value": v, "x": x(v)} for v in range(x_min, x_max + 1)],
        y_ticks=[],
        series=series,
    )


def rating_chart(points: list[RatingPoint], width: int = 720, height: int = 260) -> Chart:
    """A user's μ and ordinal μ − 3σ after each rated game: two polylines."""
    left, right, top, bottom = 48, 16, 16, 40
    games = len(points)
    every = max(1, -(-games // MAX_LINE_POINTS))
    idx = list(range(0, games, every))
    if idx and idx[-1] != games - 1:
        idx.append(games - 1)
    values = [p.mu for p in points] + [p.ordinal for p in points]
    low = math.floor(min(values + [0]) / 5) * 5
    high = math.ceil(max(values + [30]) / 5) * 5
    plot_w = width - left - right
    plot_h = height - top - bottom
    x_max = max(games, 1)

    def x(i: int) -> float:
        return round(left + plot_w * (i + 1) / x_max, 1)

    def y(v: float) -> float:
        return round(top + plot_h * (high - v) / (high - low), 1)

    series = (
        [
            {
                "name": name,
                "colour": colour,
                "points": " ".join(f"{x(i)},{y(value(points[i]))}" for i in idx),
                "end_x": x(games - 1),
                "end_y": y(value(points[-1])),
                "total": round(value(points[-1]), 2),
            }
            for name, colour, value in (
                ("μ", RATING_COLOURS[0], lambda p: p.mu),
                ("μ − 3σ", RATING_COLOURS[1], lambda p: p.ordinal),
            )
        ]
        if points
        else []
    )
    y_step = _nice_step(high - low, 5)
    x_step = _nice_step(x_max, 10)
    return Chart(
        width,
        height,
        left,
        right,
        top,
        bottom,
        x_ticks=[{"value": v, "x": x(v - 1)} for v in range(x_step, x_max + 1, x_step)],
        y_ticks=[{"value": v, "y": y(v)} for v in range(low, high + 1, y_step)],
        series=series,
    )


def expected_points_chart(analysis: dict, width: int = 720, height: int = 260) -> Chart:
    """Each player's expected points for the game (the move it played, as the analysis
    valued it) at each of its judged decisions, over the turns: one polyline a player."""
    decisions = analysis["decisions"]
    players = analysis["players"]
    last_turn = max([d["turn"] for d in decisions] + [1])
    y_max = rules_named(analysis["rules"]).points_for(1, len(players))
    lines = []
    for p in players:
        mine = [
            (d["turn"], d["points"])
            for d in decisions
            if d["player"] == p["player"] and d.get("points") is not None
        ]
        if mine:
            lines.append((p["name"], seat_colour(p["player"]), mine, f"{mine[-1][1]:.2f}"))
    return _line_chart(lines, last_turn, _nice_step(last_turn, 10), y_max, 1, width, height, 40)
