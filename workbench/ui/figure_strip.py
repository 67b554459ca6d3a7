"""A pane's live figures (TTFT, decode, tokens, elapsed, cost): one widget that paints itself.

Five QLabels per pane cost a relayout on every change (QLabel.setText always asks its layout
again), and 8 panes change 3-4 figures on every 30 Hz frame: that was most of the window's
paint time under load (benchmarks/gui_load.py --events). Here a change only repaints the strip.
"""

from __future__ import annotations

from PySide6.QtCore import QRect, QSize, Qt
from PySide6.QtGui import QFont, QFontMetrics, QPainter, QPaintEvent, QPalette
from PySide6.QtWidgets import QSizePolicy, QWidget

WIDEST_VALUE = "0,000.0 tok/s"  # each column is as wide as this, so numbers never reflow


class FigureStrip(QWidget):
    def __init__(self, captions: list[tuple[str, str]], parent: QWidget | None = None) -> None:
        """captions: (key, caption shown above the value) per column."""
        super().__init__(parent)
        self._keys = [key for key, _ in captions]
        self._captions = dict(captions)
        self._values = dict.fromkeys(self._keys, "–")
        self._value_font = QFont(self.font())
        self._value_font.setPointSizeF(13)
        self._value_font.setWeight(QFont.Weight.DemiBold)
        self._gap = 14
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)

    def text(self, key: str) -> str:
        return self._values[key]

    def set(self, key: str, text: str) -> None:
        if self._values[key] != text:
            self._values[key] = text
            self.update(self._column_rect(self._keys.index(key)))

    def _column_width(self) -> int:
        return QFontMetrics(self._value_font).horizontalAdvance(WIDEST_VALUE) + self._gap

    def _column_rect(self, column: int) -> QRect:
        width = self._column_width()
        return QRect(column * width, 0, width, self.height())

    def sizeHint(self) -> QSize:
        height = self.fontMetrics().height() + QFontMetrics(self._value_font).height() + 4
        return QSize(self._column_width() * len(self._keys), height)

    def minimumSizeHint(self) -> QSize:
        return QSize(self._column_width() * 2, self.sizeHint().height())

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        palette = self.palette()  # the pane's own background shows through
        caption_height = self.fontMetrics().height()
        width = self._column_width()
        for column, key in enumerate(self._keys):
            x = column * width
            if x > self.width():
                break
            painter.setPen(palette.color(QPalette.ColorRole.WindowText))
            painter.setFont(self.font())
            painter.drawText(
                QRect(x, 0, width, caption_height), Qt.AlignmentFlag.AlignLeft, self._captions[key]
            )
            painter.setFont(self._value_font)
            painter.drawText(
                QRect(x, caption_height + 2, width, self.height() - caption_height - 2),
                Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop,
                self._values[key],
            )
        painter.end()
