"""A pane's live figures (TTFT, decode, tokens, elapsed, cost): one widget that paints itself.

Five QLabels per pane cost a relayout on every change (QLabel.setText always asks its layout
again), and 8 panes change 3-4 figures on every 30 Hz frame: that was most of the window's
paint time under load (benchmarks/gui_load.py --events). Here a change only repaints its cell.
Cells flow left to right and wrap onto another row in a narrow pane (8 panes side by side).
"""

from __future__ import annotations

from PySide6.QtCore import QRect, QSize, Qt
from PySide6.QtGui import (
    QFont,
    QFontMetrics,
    QPainter,
    QPaintEvent,
    QPalette,
    QResizeEvent,
)
from PySide6.QtWidgets import QSizePolicy, QWidget

GAP = 14


class FigureStrip(QWidget):
    def __init__(self, figures: list[tuple[str, str, str]], parent: QWidget | None = None) -> None:
        """figures: (key, caption, the widest value it shows, e.g. "00,000.0 tok/s")."""
        super().__init__(parent)
        self._keys = [key for key, _, _ in figures]
        self._captions = {key: caption for key, caption, _ in figures}
        self._values = dict.fromkeys(self._keys, "–")
        self._widest = [widest for _, _, widest in figures]
        self._value_font = QFont(self.font())
        self._value_font.setPointSizeF(13)
        self._value_font.setWeight(QFont.Weight.DemiBold)
        values, captions = QFontMetrics(self._value_font), self.fontMetrics()
        self._row_height = captions.height() + values.height() + 6
        self._measure()
        policy = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)

    def _measure(self) -> None:
        """A fixed width per cell: a changing number never moves its neighbours."""
        values, captions = QFontMetrics(self._value_font), self.fontMetrics()
        self._widths = [
            max(values.horizontalAdvance(widest), captions.horizontalAdvance(self._captions[key]))
            + GAP
            for key, widest in zip(self._keys, self._widest, strict=True)
        ]
        self._laid_out: tuple[int, list[QRect]] = (-1, [])  # (width, cells) of the last layout

    def set_captions(self, captions: list[str]) -> None:
        """New captions, in the figures' order (a language switch)."""
        self._captions = dict(zip(self._keys, captions, strict=True))
        self._measure()
        self.updateGeometry()
        self.update()

    def text(self, key: str) -> str:
        return self._values[key]

    def set(self, key: str, text: str) -> None:
        if self._values[key] != text:
            self._values[key] = text
            self.update(self._cells(self.width())[self._keys.index(key)])

    def _cells(self, width: int) -> list[QRect]:
        """Each figure's rectangle at this width: left to right, wrapping onto new rows."""
        if self._laid_out[0] == width:
            return self._laid_out[1]
        cells, x, y, height = [], 0, 0, self._row_height
        for w in self._widths:
            if x and x + w > width:
                x, y = 0, y + height
            cells.append(QRect(x, y, w, height))
            x += w
        self._laid_out = (width, cells)
        return cells

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return self._cells(width)[-1].bottom() + 1

    def resizeEvent(self, event: QResizeEvent) -> None:
        # the rows this width needs are a minimum: the pane's text shrinks first, never a figure
        needed = self.heightForWidth(event.size().width())
        if self.minimumHeight() != needed:
            self.setMinimumHeight(needed)
        super().resizeEvent(event)

    def sizeHint(self) -> QSize:
        return QSize(sum(self._widths), self._row_height)

    def minimumSizeHint(self) -> QSize:
        return QSize(max(self._widths), self._row_height)

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        palette = self.palette()  # the pane's own background shows through
        caption_height = self.fontMetrics().height()
        for key, cell in zip(self._keys, self._cells(self.width()), strict=True):
            if not cell.intersects(event.rect()):
                continue
            painter.setPen(palette.color(QPalette.ColorRole.WindowText))
            painter.setFont(self.font())
            painter.drawText(
                QRect(cell.x(), cell.y(), cell.width(), caption_height),
                Qt.AlignmentFlag.AlignLeft,
                self._captions[key],
            )
            painter.setFont(self._value_font)
            painter.drawText(
                QRect(cell.x(), cell.y() + caption_height + 2, cell.width(), cell.height()),
                Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop,
                self._values[key],
            )
        painter.end()
