"""Past runs from the history database: reopen one, or replay it in the panes."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QDoubleSpinBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from workbench.ui.run_status import run_status_text
from workbench.ui.session import Session


class HistoryView(QWidget):
    open_requested = Signal(list)  # list[RequestResult]
    replay_requested = Signal(list, float)

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.list = QListWidget()
        self.open_button = QPushButton(self.tr("Open results"))
        self.replay_button = QPushButton(self.tr("Replay in panes"))
        self.speed = QDoubleSpinBox()
        self.speed.setRange(0.1, 20.0)
        self.speed.setValue(1.0)
        self.speed.setSuffix("×")
        self.refresh_button = QPushButton(self.tr("Refresh"))
        buttons = QHBoxLayout()
        for widget in (self.open_button, self.replay_button, QLabel(self.tr("speed")), self.speed):
            buttons.addWidget(widget)
        buttons.addStretch(1)
        buttons.addWidget(self.refresh_button)
        layout = QVBoxLayout(self)
        layout.addLayout(buttons)
        layout.addWidget(self.list, 1)
        self.open_button.clicked.connect(lambda: self._emit(replay=False))
        self.replay_button.clicked.connect(lambda: self._emit(replay=True))
        self.refresh_button.clicked.connect(self.refresh)
        self.list.itemDoubleClicked.connect(lambda _item: self._emit(replay=False))

    def refresh(self) -> None:
        self.list.clear()
        runs = self.session.history()
        for run in runs:
            text = (
                self.tr("%1  %2  %3 — %4 requests, %5 failed — %6")
                .replace("%1", run.when)
                .replace("%2", run.kind)
                .replace("%3", run_status_text(run.status))
                .replace("%4", str(run.requests))
                .replace("%5", str(run.errors))
                .replace("%6", ", ".join(run.models))
            )
            item = QListWidgetItem(text)
            item.setData(Qt.ItemDataRole.UserRole, run.run_id)
            self.list.addItem(item)

    def _emit(self, replay: bool) -> None:
        item = self.list.currentItem()
        if item is None:
            return
        results = self.session.load_run(item.data(Qt.ItemDataRole.UserRole))
        if replay:
            self.replay_requested.emit(results, self.speed.value())
        else:
            self.open_requested.emit(results)
