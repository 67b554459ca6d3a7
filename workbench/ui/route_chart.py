"""The gateway-overhead chart of `workbench bench --compare-route --chart`: added TTFT (median
and p90, gateway minus direct) per concurrency level, as bars painted like the summary's.

A QGuiApplication is enough (no window); the figures come from core/history/route_compare.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QRectF
from PySide6.QtGui import QColor, QGuiApplication, QImage, QPainter

from workbench.core.foundation.terminal import printable
from workbench.core.history.route_compare import LevelComparison
from workbench.ui.summary_charts import Bar, ChartText, draw_bars

MEDIAN_COLOR = "#2e86c1"
P90_COLOR = "#e67e22"
WIDTH, HEIGHT = 1200, 600


def route_bars(levels: Sequence[LevelComparison]) -> list[Bar]:
    """Two bars per level; a negative addition (the gateway was faster) is drawn at zero and
    its signed value written under the bar, never hidden."""
    bars = []
    for level in levels:
        for what, color, value in (
            ("median", MEDIAN_COLOR, level.added_ttft_median_ms),
            ("p90", P90_COLOR, level.added_ttft_p90_ms),
        ):
            signed = "no data" if value is None else f"{value:+.1f} ms"
            label = f"c={level.concurrency} {what}\n{signed}"
            if value is None:
                bars.append(Bar(label, color, None, failure="no successful requests"))
            else:
                bars.append(Bar(label, color, max(0.0, value)))
    return bars


def write_route_chart(levels: Sequence[LevelComparison], path: Path, model: str) -> None:
    """Write the chart as PNG at `path`; OSError when it cannot be saved."""
    _app = QGuiApplication.instance() or QGuiApplication(["workbench"])
    image = QImage(WIDTH, HEIGHT, QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
    text = ChartText(
        title=f"Gateway overhead: added TTFT, {printable(model)}",
        y_label="ms added (gateway - direct)",
        x_label="concurrency level: median and p90",
        failed="failed: %1",
    )
    try:
        draw_bars(painter, QRectF(24, 16, WIDTH - 48, HEIGHT - 32), text, route_bars(levels))
    finally:
        painter.end()
    if not image.save(str(path), "PNG"):
        raise OSError(f"Qt could not write a PNG to {path}")
