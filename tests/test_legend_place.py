"""legend_place: the legend takes a place clear of every point, stays while it is clear, and a
corner comes first (the Compare token chart's legend, issue 25 item 11)."""

from __future__ import annotations

import numpy as np

from workbench.ui.legend_place import MARGIN, place

VIEW = (340.0, 180.0)
LEGEND = (150.0, 60.0)


def _covered(at: tuple[float, float], xs: np.ndarray, ys: np.ndarray) -> int:
    inside = (xs >= at[0]) & (xs <= at[0] + LEGEND[0]) & (ys >= at[1]) & (ys <= at[1] + LEGEND[1])
    return int(inside.sum())


def test_an_empty_chart_keeps_the_top_left_corner() -> None:
    assert place((np.empty(0), np.empty(0)), VIEW, LEGEND) == (MARGIN, MARGIN)


def test_a_steep_and_a_late_curve_leave_the_legend_the_gap_between_them() -> None:
    # a fast curve up the left edge, a slow one from the bottom middle to the top right
    t = np.linspace(0, 1, 400)
    xs = np.concatenate([20 + 20 * t, 200 + 130 * t])
    ys = np.concatenate([170 - 160 * t, 170 - 160 * t])
    at = place((xs, ys), VIEW, LEGEND)
    assert _covered(at, xs, ys) == 0
    assert MARGIN <= at[0] <= VIEW[0] - LEGEND[0] - MARGIN
    assert place((xs, ys), VIEW, LEGEND, current=at) == at  # clear: it stays


def test_a_covered_place_is_left_and_no_room_covers_fewest() -> None:
    xs, ys = np.full(50, 30.0), np.full(50, 30.0)  # a cluster in the top-left corner
    at = place((xs, ys), VIEW, LEGEND, current=(MARGIN, MARGIN))
    assert at == (VIEW[0] - 150 - MARGIN, VIEW[1] - 60 - MARGIN)  # the bottom-right corner
    everywhere = np.meshgrid(np.arange(0, 340, 3.0), np.arange(0, 180, 3.0))
    grid = (everywhere[0].ravel(), everywhere[1].ravel())
    crowded = place(grid, VIEW, LEGEND)
    assert _covered(crowded, *grid) > 0  # no clear place: still one of the chart's places
