"""A tournament's interval chart is drawn on its rules' points: a UECda tournament's run
1 … 5 (a fixed 0 … 4 axis put its best entrants past the chart's end)."""

from __future__ import annotations

import pytest

from daifugo.rules import DAIHINMIN_2011_NAME, UECDA_NAME
from places.presentation.charts import interval_chart
from places.reads.tournaments import Standing


def standing(name: str, ppg: float, low: float, high: float) -> Standing:
    return Standing(name, 10, round(ppg * 10), ppg, low, high, 3.0, (2, 2, 2, 2, 2))


@pytest.mark.parametrize(
    "rules, axis", [(DAIHINMIN_2011_NAME, [0, 1, 2, 3, 4]), (UECDA_NAME, [1, 2, 3, 4, 5])]
)
def test_the_axis_is_the_points_a_game_of_those_rules_gives(rules, axis):
    best, worst = axis[-1], axis[0]
    chart = interval_chart(
        [standing("top", best, best - 0.5, best + 0.5), standing("last", worst, worst - 1, worst)],
        rules,
    )
    assert [t["value"] for t in chart.x_ticks] == axis
    left, right = chart.x_ticks[0]["x"], chart.x_ticks[-1]["x"]
    top, last = chart.series
    assert top["x"] == right and last["x"] == left  # the ends of the axis, not past them
    assert top["high"] == right and last["low"] == left  # an interval past them is cut
    assert left < top["low"] < right
