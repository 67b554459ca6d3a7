"""A bar chart's bottom axis whose names never run into each other: each name is wrapped at its
dashes onto up to three lines that fit its bar's slot (the last line elided if still too long),
re-measured whenever the axis is drawn (a resize, a new pane)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QFontMetricsF

SLOT_GAP_PX = 3  # blank pixels kept between neighbouring names
MAX_LINES = 3


def wrap_name(name: str, room: float, metrics: QFontMetricsF) -> str:
    """`name` on lines no wider than `room` px, broken after a dash, '+' or space."""
    if metrics.horizontalAdvance(name) <= room:
        return name
    lines: list[str] = []
    for part in re.findall(r"[^-+ ]*[-+ ]|[^-+ ]+$", name):
        if lines and metrics.horizontalAdvance(lines[-1] + part) <= room:
            lines[-1] += part
        else:
            lines.append(part)
    if len(lines) > MAX_LINES:
        lines[MAX_LINES - 1 :] = ["".join(lines[MAX_LINES - 1 :])]
    elide = Qt.TextElideMode.ElideRight
    return "\n".join(metrics.elidedText(line, elide, room) or "…" for line in lines)


class SlotAxis(pg.AxisItem):
    """Bottom axis of bars at x = 0, 1, 2, ...; `set_names` gives one full name per bar."""

    def __init__(self) -> None:
        super().__init__("bottom")
        self.names: list[str] = []

    def set_names(self, names: Sequence[str]) -> None:
        self.names = list(names)
        self.setTicks([list(enumerate(self.names))])

    def shown_names(self, metrics: QFontMetricsF) -> list[str]:
        """The names as they fit their slots at the axis's current width."""
        view = self.linkedView()
        span = view.viewRect().width() if view is not None else 0.0
        slot = self.geometry().width() / span if span > 0 else 0.0
        room = max(0.0, slot - SLOT_GAP_PX)
        return [wrap_name(n, room, metrics) for n in self.names]

    def generateDrawSpecs(self, p: Any) -> Any:
        if not self.names:
            return super().generateDrawSpecs(p)
        metrics = QFontMetricsF(self.style["tickFont"] or p.font())
        shown = self.shown_names(metrics)
        self._tickLevels = [list(enumerate(shown))]
        specs = super().generateDrawSpecs(p)
        # room for every line: pyqtgraph measures text 20 % short, which cut a third line off
        lines = max(n.count("\n") + 1 for n in shown)
        self._updateMaxTextSize(int(lines * metrics.height()) + 2)
        return specs
