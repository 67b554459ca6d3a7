"""The main window's toolbar: preset, pane count, run mode, and the run, stop and export
actions with their shortcuts. The window connects them to what they do."""

from __future__ import annotations

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QComboBox, QLabel, QSpinBox, QToolBar, QWidget

MAX_PANES = 8


class RunToolbar(QToolBar):
    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Run"))
        self.setObjectName("mainToolbar")
        self.preset = QComboBox()
        self.preset.addItem(self.tr("Preset: real models (GQA vs MLA)"), "real")
        self.preset.addItem(self.tr("Preset: attention only (70B twins)"), "attention")
        self.preset.addItem(self.tr("Preset: Gateway overhead (direct vs gateway)"), "gateway")
        self.preset.addItem(self.tr("Custom"), "custom")
        self.preset.setAccessibleName(self.tr("Preset"))
        self.addWidget(self.preset)
        self.addSeparator()
        panes_label = QLabel(self.tr(" &Panes "))
        self.addWidget(panes_label)
        self.pane_count = QSpinBox()
        self.pane_count.setRange(2, MAX_PANES)
        panes_label.setBuddy(self.pane_count)
        self.addWidget(self.pane_count)
        self.mode = QComboBox()
        self.mode.setAccessibleName(self.tr("Run mode"))
        self.mode.addItem(self.tr("All at once"), "parallel")
        self.mode.addItem(self.tr("One after another"), "sequential")
        self.addWidget(self.mode)
        self.addSeparator()
        self.run_action = self._action(self.tr("Run all"), "Ctrl+R")
        self.stop_action = self._action(self.tr("Stop all"), "Ctrl+.")
        self.stop_action.setEnabled(False)
        self.export_action = self._action(self.tr("Export CSV…"), "Ctrl+E")
        self.export_chart_action = self._action(self.tr("Export charts…"), "Ctrl+Shift+E")

    def _action(self, text: str, shortcut: str) -> QAction:
        action = QAction(text, self)
        action.setShortcut(QKeySequence(shortcut))
        self.addAction(action)
        return action
