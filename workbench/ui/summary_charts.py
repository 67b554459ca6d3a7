"""The summary page's charts, painted with QPainter from the figures themselves.

Drawn, not grabbed from the live widgets: the same vectors land in the app, the PNG and the
PDF at any size, axes always start at zero, and a failed model is a hatched bar that names its
error class instead of a gap that reads as "instant"; a model the user stopped is a dotted grey
outline saying "stopped".
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainter, QPainterPath, QPen

from workbench.core.foundation.token_counts import tokens_label

FAILED_COLOR = "#c0392b"
STOPPED_COLOR = "#7f8c8d"  # a stop is no failure: grey, not the failure red
AXIS_COLOR = "#5d6d7e"
GRID_COLOR = "#d5d8dc"
TEXT_COLOR = "#1b2631"
LADDER = (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10)


def font(pixels: float, bold: bool = False) -> QFont:
    f = QFont()
    f.setPixelSize(max(1, round(pixels)))
    f.setBold(bold)
    return f


def nice_top(value: float) -> float:
    """The next tidy number (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8 × 10^k) at or above value."""
    if value <= 0:
        return 1.0
    step = 10 ** math.floor(math.log10(value))
    for m in LADDER:
        if step * m >= value * 1.0000001:
            return step * m
    return step * 10


def fmt_value(v: float) -> str:
    if v >= 100:
        return f"{v:,.0f}"
    if v >= 10:
        return f"{v:,.1f}"
    return f"{v:,.2f}"


@dataclass(frozen=True)
class Bar:
    label: str
    color: str
    value: float | None
    failure: str = ""  # the error class when the model has no successful request here
    stopped: bool = False  # no result because the user stopped it: drawn apart from a failure


@dataclass(frozen=True)
class Series:
    label: str
    color: str
    points: tuple[tuple[int, float, float, float], ...]  # (length, median, p10, p90)
    failed_at: tuple[int, ...] = ()


@dataclass(frozen=True)
class ChartText:
    title: str
    y_label: str
    x_label: str
    failed: str  # "failed: %1"


def _frame(painter: QPainter, rect: QRectF, text: ChartText) -> QRectF:
    """Title, y label and x label; returns the plot area left for the data."""
    painter.setPen(QColor(TEXT_COLOR))
    painter.setFont(font(15, bold=True))
    title_h = QFontMetricsF(font(15, bold=True)).height() + 6
    painter.drawText(QRectF(rect.left(), rect.top(), rect.width(), title_h), text.title)
    label_font = font(12)
    label_h = QFontMetricsF(label_font).height()
    painter.setFont(label_font)
    painter.setPen(QColor(AXIS_COLOR))
    painter.save()
    painter.translate(rect.left(), rect.bottom() - label_h * 2)
    painter.rotate(-90)
    span = rect.height() - title_h - label_h * 2
    painter.drawText(QRectF(0, 0, span, label_h), Qt.AlignmentFlag.AlignCenter, text.y_label)
    painter.restore()
    painter.drawText(
        QRectF(rect.left(), rect.bottom() - label_h, rect.width(), label_h),
        Qt.AlignmentFlag.AlignCenter,
        text.x_label,
    )
    tick_w = QFontMetricsF(font(11)).horizontalAdvance("00,000") + 8
    return QRectF(
        rect.left() + label_h + tick_w,
        rect.top() + title_h + 8,
        rect.width() - label_h - tick_w - 8,
        rect.height() - title_h - 8 - label_h * 2 - 6,
    )


def _y_axis(painter: QPainter, plot: QRectF, top: float) -> None:
    """Grid lines and tick labels from zero to `top`."""
    painter.setFont(font(11))
    ticks = 5
    for i in range(ticks + 1):
        value = top * i / ticks
        y = plot.bottom() - plot.height() * i / ticks
        painter.setPen(QPen(QColor(GRID_COLOR), 1))
        painter.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y))
        painter.setPen(QColor(AXIS_COLOR))
        painter.drawText(
            QRectF(plot.left() - 200, y - 8, 194, 16),
            Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
            fmt_value(value) if top < 10 else f"{value:,.0f}",
        )
    painter.setPen(QPen(QColor(AXIS_COLOR), 1.2))
    painter.drawLine(plot.bottomLeft(), plot.bottomRight())
    painter.drawLine(plot.bottomLeft(), plot.topLeft())


def draw_bars(painter: QPainter, rect: QRectF, text: ChartText, bars: Sequence[Bar]) -> None:
    """Zero-based bars, one per model in its colour, the value on top; failures hatched."""
    x_font = font(11)
    x_h = QFontMetricsF(x_font).height() * 2 + 4
    plot = _frame(painter, rect, text)
    plot.setBottom(plot.bottom() - x_h)
    values = [b.value for b in bars if b.value is not None]
    top = nice_top(max(values, default=0.0) * 1.08)
    _y_axis(painter, plot, top)
    if not bars:
        return
    slot = plot.width() / len(bars)
    width = min(slot * 0.62, 90)
    for i, bar in enumerate(bars):
        cx = plot.left() + slot * (i + 0.5)
        painter.setFont(x_font)
        painter.setPen(QColor(TEXT_COLOR))
        painter.drawText(
            QRectF(cx - slot / 2 + 2, plot.bottom() + 4, slot - 4, x_h),
            Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop | Qt.TextFlag.TextWordWrap,
            bar.label,
        )
        if bar.value is None and bar.stopped:
            _stopped_bar(painter, QRectF(cx - width / 2, plot.top(), width, plot.height()), bar)
            continue
        if bar.value is None:
            _failed_bar(painter, QRectF(cx - width / 2, plot.top(), width, plot.height()), bar)
            continue
        h = plot.height() * bar.value / top
        body = QRectF(cx - width / 2, plot.bottom() - h, width, h)
        painter.fillRect(body, QColor(bar.color))
        painter.setPen(QColor(TEXT_COLOR))
        painter.drawText(
            QRectF(cx - slot / 2, body.top() - 18, slot, 16),
            Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignBottom,
            fmt_value(bar.value),
        )


def _stopped_bar(painter: QPainter, body: QRectF, bar: Bar) -> None:
    """A dotted grey outline, unfilled, "stopped" up its middle: no result, and no failure."""
    painter.save()
    painter.setPen(QPen(QColor(STOPPED_COLOR), 1.2, Qt.PenStyle.DotLine))
    painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.drawRect(body)
    painter.translate(body.center())
    painter.rotate(-90)
    painter.setFont(font(12))
    span = QRectF(-body.height() / 2, -body.width() / 2, body.height(), body.width())
    painter.drawText(span, Qt.AlignmentFlag.AlignCenter, bar.failure)
    painter.restore()


def _failed_bar(painter: QPainter, body: QRectF, bar: Bar) -> None:
    """A full-height hatched outline with the error class written up its middle."""
    painter.save()
    painter.setPen(QPen(QColor(FAILED_COLOR), 1.5, Qt.PenStyle.DashLine))
    painter.setBrush(QBrush(QColor(FAILED_COLOR), Qt.BrushStyle.BDiagPattern))
    painter.drawRect(body)
    painter.translate(body.center())
    painter.rotate(-90)
    painter.setFont(font(12, bold=True))
    painter.setPen(QColor(FAILED_COLOR))
    span = QRectF(-body.height() / 2, -body.width() / 2, body.height(), body.width())
    painter.fillRect(span.adjusted(body.height() * 0.15, 6, -body.height() * 0.15, -6), Qt.white)
    painter.drawText(span, Qt.AlignmentFlag.AlignCenter, bar.failure)
    painter.restore()


def draw_lines(
    painter: QPainter,
    rect: QRectF,
    text: ChartText,
    series: Sequence[Series],
    lengths: Sequence[int],
) -> None:
    """Median per model against prompt length (log x), its p10-p90 band, y from zero."""
    x_font = font(11)
    x_h = QFontMetricsF(x_font).height() + 4
    plot = _frame(painter, rect, text)
    plot.setBottom(plot.bottom() - x_h)
    highs = [p[3] for s in series for p in s.points]
    top = nice_top(max(highs, default=0.0) * 1.05)
    _y_axis(painter, plot, top)
    if not lengths:
        return
    lo, hi = math.log10(min(lengths)), math.log10(max(lengths))
    pad = 0.08 * (hi - lo) if hi > lo else 0.5

    def x_at(n: int) -> float:
        return plot.left() + plot.width() * (math.log10(n) - lo + pad) / (hi - lo + 2 * pad)

    def y_at(v: float) -> float:
        return plot.bottom() - plot.height() * v / top

    painter.setFont(x_font)
    painter.setPen(QColor(AXIS_COLOR))
    for n in lengths:
        painter.drawText(
            QRectF(x_at(n) - 30, plot.bottom() + 3, 60, x_h), Qt.AlignmentFlag.AlignHCenter,
            tokens_label(n),
        )  # fmt: skip
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    for s in series:
        color = QColor(s.color)
        points = sorted(s.points)
        if points:
            band = QPainterPath(QPointF(x_at(points[0][0]), y_at(points[0][3])))
            for n, _m, _lo, high in points[1:]:
                band.lineTo(x_at(n), y_at(high))
            for n, _m, low, _hi in reversed(points):
                band.lineTo(x_at(n), y_at(low))
            band.closeSubpath()
            fill = QColor(color)
            fill.setAlpha(60)
            painter.fillPath(band, fill)
            painter.setPen(QPen(color, 2.2))
            for a, b in itertools.pairwise(points):
                painter.drawLine(QPointF(x_at(a[0]), y_at(a[1])), QPointF(x_at(b[0]), y_at(b[1])))
            painter.setBrush(color)
            for n, median, _lo, _hi in points:
                painter.drawEllipse(QPointF(x_at(n), y_at(median)), 3.5, 3.5)
            painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.setPen(QPen(QColor(FAILED_COLOR), 2.4))
        for n in s.failed_at:  # a failed length is a red cross on the axis, not a zero
            x, y = x_at(n), plot.bottom() - 8
            painter.drawLine(QPointF(x - 6, y - 6), QPointF(x + 6, y + 6))
            painter.drawLine(QPointF(x - 6, y + 6), QPointF(x + 6, y - 6))
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
