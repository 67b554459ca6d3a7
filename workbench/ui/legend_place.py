"""Where a chart's legend goes: the place of its size that covers the fewest curve points.

Points are counted into 2 px cells and a summed-area table gives every candidate box's count at
once, so every place 2 px apart is tried, on a small chart or a large one, in about a
millisecond. Qt-free: positions are pixels from the view's top-left corner.
"""

from __future__ import annotations

import math

import numpy as np

CELL = 2.0  # px: the grid the legend moves on
MARGIN = 10.0  # px kept between the legend and the view's edges


def place(
    points: tuple[np.ndarray, np.ndarray],
    view: tuple[float, float],
    legend: tuple[float, float],
    current: tuple[float, float] | None = None,
) -> tuple[float, float]:
    """The legend's top-left (x, y) in px within a view of size `view`; `points`: the curves'
    (xs, ys) in the same px. It stays at `current` while that covers no point; else a free
    corner (top left, bottom right, bottom left, top right), else the free place nearest the
    top left; where none is free, the one covering fewest (a corner on a tie)."""
    width, height = view
    cols, rows = int(width // CELL), int(height // CELL)
    w, h = math.ceil(legend[0] / CELL), math.ceil(legend[1] / CELL)
    m = int(MARGIN // CELL)
    c_last, r_last = cols - w - m, rows - h - m  # the last top-left cell that keeps the margin
    if c_last < m or r_last < m:
        return (MARGIN, MARGIN)  # no room: the top left, as before any placement
    xs, ys = points
    gx, gy = (xs // CELL).astype(int), (ys // CELL).astype(int)
    keep = (gx >= 0) & (gx < cols) & (gy >= 0) & (gy < rows)
    grid = np.zeros((rows + 1, cols + 1), dtype=np.int64)
    np.add.at(grid, (gy[keep] + 1, gx[keep] + 1), 1)
    table = grid.cumsum(0).cumsum(1)
    r0 = np.arange(m, r_last + 1)[:, None]
    c0 = np.arange(m, c_last + 1)[None, :]
    # points in cells [r0, r0 + h] x [c0, c0 + w]: one cell more than the legend, as a point on
    # its edge is under it too
    bottom, right = r0 + h + 1, c0 + w + 1
    counts = table[bottom, right] - table[r0, right] - table[bottom, c0] + table[r0, c0]

    def count(col: int, row: int) -> int:
        return int(counts[row - m, col - m])

    if current is not None:
        col, row = round(current[0] / CELL), round(current[1] / CELL)
        if m <= col <= c_last and m <= row <= r_last and count(col, row) == 0:
            return current
    corners = [(m, m), (c_last, r_last), (m, r_last), (c_last, m)]
    least = min(corners, key=lambda c: count(*c))
    if count(*least) > 0:
        free = np.argwhere(counts == 0)  # (row, col) pairs, from the top-left corner's
        if len(free):
            nearest = np.lexsort((free[:, 0], free[:, 0] ** 2 + free[:, 1] ** 2))[0]
            row, col = (int(v) for v in free[nearest])
            return ((col + m) * CELL, (row + m) * CELL)
        row, col = np.unravel_index(int(np.argmin(counts)), counts.shape)
        if counts[row, col] < count(*least):
            return ((int(col) + m) * CELL, (int(row) + m) * CELL)
    return (least[0] * CELL, least[1] * CELL)
