"""The prompt-length slider: a stop per power of two from 128 to 1M tokens, each labelled.

The slider only takes the labelled stops, and each label is painted centred on the pixel where
the handle's centre sits at that stop (asked from the style, as the slider itself draws), so a
label is always exactly under the handle that selects it. A length between stops (a clamp to
fit a context window) is kept exactly and shown in the value label, the handle at its stop.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QRect, QSize, Qt, Signal
from PySide6.QtGui import QPainter, QPaintEvent
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QSlider,
    QSpinBox,
    QStyle,
    QStyleOptionSlider,
    QVBoxLayout,
    QWidget,
)

from workbench.core.foundation.token_counts import tokens_label
from workbench.ui.retranslate import Retranslating

MIN_TOKENS = 128
MAX_TOKENS = 1024 * 1024
STOPS = tuple(MIN_TOKENS * 2**i for i in range(14))  # 128, 256, ..., 512K, 1M
LABEL_GAP = 6  # pixels between neighbouring labels at the narrowest width


def stop_index(tokens: int) -> int:
    """The stop nearest to `tokens` (on the log scale the slider shows)."""
    tokens = min(MAX_TOKENS, max(MIN_TOKENS, tokens))
    return min(range(len(STOPS)), key=lambda i: abs(math.log2(STOPS[i] / tokens)))


def handle_centre(slider: QSlider, value: int) -> int:
    """The x pixel (in the slider's coordinates) of the handle's centre at `value`."""
    option = QStyleOptionSlider()
    slider.initStyleOption(option)
    style = slider.style()
    groove = style.subControlRect(
        QStyle.ComplexControl.CC_Slider, option, QStyle.SubControl.SC_SliderGroove, slider
    )
    handle = style.subControlRect(
        QStyle.ComplexControl.CC_Slider, option, QStyle.SubControl.SC_SliderHandle, slider
    )
    span = groove.width() - handle.width()
    offset = QStyle.sliderPositionFromValue(slider.minimum(), slider.maximum(), value, span)
    return groove.x() + offset + handle.width() // 2


class StopLabels(QWidget):
    """The stops' labels, each centred under the handle position of its stop."""

    def __init__(self, slider: QSlider, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.slider = slider
        self.labels = [tokens_label(n) for n in STOPS]
        self.setObjectName("stopLabels")

    def centres(self) -> list[int]:
        """Each label's centre x in this widget's coordinates."""
        origin = self.slider.mapTo(self.parentWidget(), self.slider.rect().topLeft()).x()
        mine = self.mapTo(self.parentWidget(), self.rect().topLeft()).x()
        return [handle_centre(self.slider, i) + origin - mine for i in range(len(STOPS))]

    def sizeHint(self) -> QSize:
        return QSize(self.minimumSizeHint().width(), self.fontMetrics().height() + 2)

    def minimumSizeHint(self) -> QSize:
        widest = max(self.fontMetrics().horizontalAdvance(t) for t in self.labels)
        return QSize((widest + LABEL_GAP) * len(self.labels), self.fontMetrics().height() + 2)

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        metrics = self.fontMetrics()
        for text, x in zip(self.labels, self.centres(), strict=True):
            w = metrics.horizontalAdvance(text)
            painter.drawText(QRect(x - w // 2, 0, w + 1, self.height()), 0, text)
        painter.end()


class PromptPanel(Retranslating, QWidget):
    """Slider plus task settings; emits `changed` whenever any of them changes."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._exact: int | None = None  # a length between stops, set by a clamp
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setObjectName("promptSlider")
        self.slider.setRange(0, len(STOPS) - 1)
        self.slider.setTickPosition(QSlider.TickPosition.TicksBelow)
        self.slider.setTickInterval(1)
        self.slider.setPageStep(1)
        self.stops = StopLabels(self.slider)
        self.value_label = QLabel()
        self.value_label.setObjectName("promptValue")
        self.value_label.setMinimumWidth(self.fontMetrics().horizontalAdvance("000,000 tokens"))
        self.task = QComboBox()
        self.task.addItems(["", ""])  # texts by retranslate(); the data is the task
        self.task.setItemData(0, "summary")
        self.task.setItemData(1, "needle")
        self.depth = QDoubleSpinBox()
        self.depth.setRange(0.0, 1.0)
        self.depth.setSingleStep(0.1)
        self.depth.setValue(0.5)
        self.max_tokens = QSpinBox()
        self.max_tokens.setRange(1, 32768)
        self.max_tokens.setValue(256)
        self.language = QComboBox()
        self.language.addItems(["", ""])
        self.language.setItemData(0, "en")
        self.language.setItemData(1, "zh")

        # the slider and its labels take the width; the settings sit two by two beside them
        grid = QGridLayout(self)
        grid.setContentsMargins(4, 2, 4, 2)
        grid.setVerticalSpacing(2)
        title = self.title = QLabel()
        title.setObjectName("sectionTitle")
        grid.addWidget(title, 0, 0, 2, 1)
        # the labels are wider than the slider by half a label each side, so the first and the
        # last ("128", "1M") are never cut at the widget's edge
        track = QWidget()
        column = QVBoxLayout(track)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        half = self.fontMetrics().horizontalAdvance("512K") // 2 + 2
        inset = QHBoxLayout()
        inset.setContentsMargins(half, 0, half, 0)
        inset.addWidget(self.slider)
        column.addLayout(inset)
        column.addWidget(self.stops)
        grid.addWidget(track, 0, 1, 2, 1)
        grid.addWidget(self.value_label, 0, 2, 2, 1)
        grid.addWidget(self.task, 0, 3)
        grid.addWidget(self.depth, 0, 4)
        grid.addWidget(self.language, 1, 3)
        grid.addWidget(self.max_tokens, 1, 4)
        grid.setColumnStretch(1, 1)

        self.slider.valueChanged.connect(self._on_slider)
        self.task.currentIndexChanged.connect(self._on_change)
        self.depth.valueChanged.connect(self._on_change)
        self.max_tokens.valueChanged.connect(self._on_change)
        self.language.currentIndexChanged.connect(self._on_change)
        self.retranslate()
        self.set_tokens(32768)

    def retranslate(self) -> None:
        """Every text in the language installed; on a switch, nothing chosen changes."""
        self.slider.setAccessibleName(self.tr("Prompt length"))
        self.task.setAccessibleName(self.tr("Prompt task"))
        # "Task:" spelled out: a bare "Summary" read as the Summary tab's name
        self.task.setItemText(0, self.tr("Task: summarize"))
        self.task.setItemText(1, self.tr("Task: find the needle"))
        self.depth.setAccessibleName(self.tr("Needle depth"))
        self.depth.setPrefix(self.tr("needle depth "))
        self.depth.setToolTip(
            self.tr("Where the needle sits in the prompt: 0 its start, 1 its end")
        )
        self.max_tokens.setAccessibleName(self.tr("Maximum output tokens"))
        self.max_tokens.setPrefix(self.tr("max tokens "))
        self.language.setAccessibleName(self.tr("Prompt text language"))
        self.language.setItemText(0, self.tr("English text"))
        self.language.setItemText(1, self.tr("Chinese text"))
        self.title.setText(self.tr("Prompt"))
        self.value_label.setText(self.tr("%1 tokens").replace("%1", tokens_label(self.tokens())))

    def tokens(self) -> int:
        return self._exact if self._exact is not None else STOPS[self.slider.value()]

    def set_tokens(self, tokens: int) -> None:
        """Any length from 1 up: a stop moves the handle; a length between stops stays exact."""
        index = stop_index(tokens)
        self._exact = None if STOPS[index] == tokens else max(1, tokens)
        self.slider.blockSignals(True)
        self.slider.setValue(index)
        self.slider.blockSignals(False)
        self._on_change()

    def _on_slider(self) -> None:
        self._exact = None  # the user picked a stop
        self._on_change()

    def _on_change(self) -> None:
        self.depth.setEnabled(self.task.currentData() == "needle")
        n = self.tokens()
        self.value_label.setText(self.tr("%1 tokens").replace("%1", tokens_label(n)))
        self.stops.update()
        self.changed.emit()
