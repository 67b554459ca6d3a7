"""Texts that fit the room they have: a chart's title and a picker's shown choice are elided
("…") to their widget's width, never clipped, and never widen it; the whole text stays the
chart's tooltip and accessible name, and the picker's list entry."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QPaintEvent
from PySide6.QtWidgets import QComboBox, QStyle, QStyleOptionComboBox, QStylePainter

if TYPE_CHECKING:
    import pyqtgraph as pg

ELLIPSIS = "…"
TITLE_MARGIN = 8  # px kept free beside a chart's title


def elided(text: str, fits: Callable[[str], bool]) -> str:
    """`text`, or its longest head that fits with an ellipsis (the ellipsis alone at worst)."""
    if fits(text):
        return text
    low, high = 0, len(text)  # fits(text[:low] + …) holds for low; not for high
    while high - low > 1:
        mid = (low + high) // 2
        if fits(text[:mid].rstrip() + ELLIPSIS):
            low = mid
        else:
            high = mid
    return text[:low].rstrip() + ELLIPSIS


class _TitleFit(QObject):
    """Refits a chart's title whenever the chart is resized."""

    def __init__(self, plot: pg.PlotWidget) -> None:
        super().__init__(plot)
        self.plot = plot
        self.full = ""
        plot.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize:
            self.fit()
        return False

    def room(self) -> int:
        """The chart's width less its side axes: the column the title is centred in."""
        item = self.plot.getPlotItem()
        sides = sum(
            item.getAxis(name).width()
            for name in ("left", "right")
            if item.getAxis(name).isVisible()
        )
        return int(self.plot.viewport().width() - sides - 2 * TITLE_MARGIN)

    def fit(self) -> None:
        label = self.plot.getPlotItem().titleLabel
        room = self.room()

        def fits(text: str) -> bool:
            label.setText(text)
            return bool(label.item.boundingRect().width() <= room)

        shown = elided(self.full, fits)
        if label.text != shown:
            label.setText(shown)
        self.plot.setToolTip(self.full if shown != self.full else "")


def set_chart_title(plot: pg.PlotWidget, text: str, **style: Any) -> None:
    """Title `plot` with `text` (LabelItem style: size, color…), elided to the chart's width
    now and on every resize; the whole title is the chart's accessible name and, when elided,
    its tooltip."""
    plot.setTitle(text, **style)
    fit = plot.findChild(_TitleFit) or _TitleFit(plot)
    fit.full = text
    plot.setAccessibleName(text)
    fit.fit()


def full_title(plot: pg.PlotWidget) -> str:
    """The title as set, before any eliding."""
    fit = plot.findChild(_TitleFit)
    return fit.full if fit is not None else str(plot.getPlotItem().titleLabel.text)


class ElidedComboBox(QComboBox):
    """A picker that shows its choice elided to the box ("H200 (4.8 TB/s, 989…"), where Qt
    would cut it mid-letter; the list shows every choice whole."""

    def shown_text(self) -> str:
        """The text painted in the box."""
        option = QStyleOptionComboBox()
        self.initStyleOption(option)
        field = self.style().subControlRect(
            QStyle.ComplexControl.CC_ComboBox,
            option,
            QStyle.SubControl.SC_ComboBoxEditField,
            self,
        )
        return self.fontMetrics().elidedText(
            option.currentText, Qt.TextElideMode.ElideRight, field.width()
        )

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QStylePainter(self)
        option = QStyleOptionComboBox()
        self.initStyleOption(option)
        painter.drawComplexControl(QStyle.ComplexControl.CC_ComboBox, option)
        option.currentText = self.shown_text()
        painter.drawControl(QStyle.ControlElement.CE_ComboBoxLabel, option)
