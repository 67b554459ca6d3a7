"""The prompt-length slider: log scale from 128 to 1M tokens, with labelled stops."""

from __future__ import annotations

import math

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QSlider,
    QSpinBox,
    QWidget,
)

MIN_TOKENS = 128
MAX_TOKENS = 1024 * 1024
STEPS_PER_DOUBLING = 4  # 128 .. 1M is 13 doublings: 52 positions, stops land on powers of 2
STOPS = (1024, 4096, 16384, 32768, 65536, 131072, 262144, 1048576)


def tokens_label(n: int) -> str:
    if n >= 1024 * 1024 and n % (1024 * 1024) == 0:
        return f"{n // (1024 * 1024)}M"
    if n >= 1024:
        return f"{n / 1024:g}K"
    return str(n)


def position_for(tokens: int) -> int:
    tokens = min(MAX_TOKENS, max(MIN_TOKENS, tokens))
    return round(math.log2(tokens / MIN_TOKENS) * STEPS_PER_DOUBLING)


def tokens_for(position: int) -> int:
    value = MIN_TOKENS * 2 ** (position / STEPS_PER_DOUBLING)
    # round to a tidy number: powers of two stay exact, the steps between to 1/64 of their size
    grain = max(1, 2 ** math.floor(math.log2(value)) // 64)
    return int(round(value / grain) * grain)


class PromptPanel(QWidget):
    """Slider plus task settings; emits `changed` whenever any of them changes."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setObjectName("promptSlider")
        self.slider.setRange(0, position_for(MAX_TOKENS))
        self.slider.setTickPosition(QSlider.TickPosition.TicksBelow)
        self.slider.setTickInterval(STEPS_PER_DOUBLING)
        self.slider.setPageStep(STEPS_PER_DOUBLING)
        self.value_label = QLabel()
        self.value_label.setObjectName("promptValue")
        self.value_label.setMinimumWidth(150)
        self.task = QComboBox()
        self.task.addItem(self.tr("Summary"), "summary")
        self.task.addItem(self.tr("Needle"), "needle")
        self.depth = QDoubleSpinBox()
        self.depth.setRange(0.0, 1.0)
        self.depth.setSingleStep(0.1)
        self.depth.setValue(0.5)
        self.depth.setPrefix(self.tr("depth "))
        self.max_tokens = QSpinBox()
        self.max_tokens.setRange(1, 32768)
        self.max_tokens.setValue(256)
        self.max_tokens.setPrefix(self.tr("max tokens "))
        self.language = QComboBox()
        self.language.addItem(self.tr("English text"), "en")
        self.language.addItem(self.tr("Chinese text"), "zh")

        stops = QWidget()
        stops_layout = QGridLayout(stops)
        stops_layout.setContentsMargins(0, 0, 0, 0)
        last = position_for(MAX_TOKENS)
        for stop in STOPS:
            label = QLabel(tokens_label(stop))
            label.setObjectName("stopLabel")
            column = round(position_for(stop) / last * 100)
            stops_layout.addWidget(label, 0, column, Qt.AlignmentFlag.AlignHCenter)
        for column in range(101):
            stops_layout.setColumnStretch(column, 1)

        left = QWidget()
        grid = QGridLayout(left)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setVerticalSpacing(0)
        grid.addWidget(self.slider, 0, 0)
        grid.addWidget(stops, 1, 0)

        row = QHBoxLayout(self)
        title = QLabel(self.tr("Prompt"))
        title.setObjectName("sectionTitle")
        row.addWidget(title)
        row.addWidget(left, 1)
        row.addWidget(self.value_label)
        for widget in (self.task, self.depth, self.language, self.max_tokens):
            row.addWidget(widget)

        self.slider.valueChanged.connect(self._on_change)
        self.task.currentIndexChanged.connect(self._on_change)
        self.depth.valueChanged.connect(self._on_change)
        self.max_tokens.valueChanged.connect(self._on_change)
        self.language.currentIndexChanged.connect(self._on_change)
        self.set_tokens(32768)

    def tokens(self) -> int:
        return tokens_for(self.slider.value())

    def set_tokens(self, tokens: int) -> None:
        self.slider.setValue(position_for(tokens))
        self._on_change()

    def _on_change(self) -> None:
        self.depth.setEnabled(self.task.currentData() == "needle")
        self.value_label.setText(self.tr("%1 tokens").replace("%1", tokens_label(self.tokens())))
        self.changed.emit()
