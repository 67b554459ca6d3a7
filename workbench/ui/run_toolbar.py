"""The main window's toolbar: preset, pane count, run mode, and the run, stop and export
actions with their shortcuts. The window connects them to what they do."""

from __future__ import annotations

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QComboBox, QLabel, QSpinBox, QToolBar, QWidget

from workbench.ui.retranslate import Retranslating

MAX_PANES = 8


class RunToolbar(Retranslating, QToolBar):
    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.setObjectName("mainToolbar")
        self.preset = QComboBox()
        for key in ("real", "attention", "story", "gateway", "custom"):
            self.preset.addItem("", key)
        self.addWidget(self.preset)
        self.addSeparator()
        self.panes_label = QLabel()
        self.addWidget(self.panes_label)
        self.pane_count = QSpinBox()
        self.pane_count.setRange(2, MAX_PANES)
        self.panes_label.setBuddy(self.pane_count)
        self.addWidget(self.pane_count)
        self.mode = QComboBox()
        self.mode.addItem("", "parallel")
        self.mode.addItem("", "sequential")
        self.addWidget(self.mode)
        self.addSeparator()
        self.run_action = self._action("Ctrl+R")
        self.stop_action = self._action("Ctrl+.")
        self.stop_action.setEnabled(False)
        self.export_action = self._action("Ctrl+E")
        self.export_chart_action = self._action("Ctrl+Shift+E")
        self.retranslate()

    def retranslate(self) -> None:
        """Every text of the toolbar in the language installed (View → Language)."""
        self.setWindowTitle(self.tr("Run"))
        presets = (
            self.tr("Preset: real models (GQA vs MLA)"),
            self.tr("Preset: attention only (70B twins)"),
            self.tr("Preset: attention story (8 twins)"),
            self.tr("Preset: Gateway overhead (direct vs gateway)"),
            self.tr("Custom"),
        )
        for index, text in enumerate(presets):
            self.preset.setItemText(index, text)
        self.preset.setAccessibleName(self.tr("Preset"))
        self.panes_label.setText(self.tr(" &Panes "))
        self.mode.setAccessibleName(self.tr("Run mode"))
        self.mode.setItemText(0, self.tr("All at once"))
        self.mode.setItemText(1, self.tr("One after another"))
        self.run_action.setText(self.tr("Run all"))
        self.stop_action.setText(self.tr("Stop all"))
        self.export_action.setText(self.tr("Export CSV…"))
        self.export_chart_action.setText(self.tr("Export charts…"))

    def _action(self, shortcut: str) -> QAction:
        action = QAction(self)
        action.setShortcut(QKeySequence(shortcut))
        self.addAction(action)
        return action
