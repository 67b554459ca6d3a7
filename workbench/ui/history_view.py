"""Past runs from the history database: reopen one, or replay it in the panes.

One row per run, newest first, filled when the window opens. Measured requests and failures are
counted apart from the hidden calibration and warm-up requests (a calibration sends a long
prompt to each model once: on a paid endpoint it costs money, so it is shown, but never as a
measurement).
"""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDoubleSpinBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from workbench.ui.prompt_slider import tokens_label
from workbench.ui.run_status import run_status_text
from workbench.ui.session import HistoryRow, Session

COLUMNS = (
    QT_TRANSLATE_NOOP("HistoryView", "when"),
    QT_TRANSLATE_NOOP("HistoryView", "kind"),
    QT_TRANSLATE_NOOP("HistoryView", "status"),
    QT_TRANSLATE_NOOP("HistoryView", "models"),
    QT_TRANSLATE_NOOP("HistoryView", "prompt"),
    QT_TRANSLATE_NOOP("HistoryView", "measured"),
    QT_TRANSLATE_NOOP("HistoryView", "failed"),
    QT_TRANSLATE_NOOP("HistoryView", "calibration / warm-up"),
)
RUN_ID_ROLE = Qt.ItemDataRole.UserRole


class HistoryView(QWidget):
    open_requested = Signal(list)  # list[RequestResult]
    replay_requested = Signal(list, float)

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setObjectName("historyTable")
        self.table.setAccessibleName(self.tr("Run history"))
        self.table.setHorizontalHeaderLabels([self.tr(c) for c in COLUMNS])
        self.table.verticalHeader().hide()
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
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
        layout.addWidget(self.table, 1)
        self.open_button.clicked.connect(lambda: self._emit(replay=False))
        self.replay_button.clicked.connect(lambda: self._emit(replay=True))
        self.refresh_button.clicked.connect(self.refresh)
        self.table.itemDoubleClicked.connect(lambda _item: self._emit(replay=False))

    def refresh(self) -> None:
        runs = self.session.history()
        self.table.setRowCount(len(runs))
        for row, run in enumerate(runs):
            for column, text in enumerate(self._cells(run)):
                item = QTableWidgetItem(text)
                item.setData(RUN_ID_ROLE, run.run_id)
                if column >= 5:
                    item.setTextAlignment(
                        Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
                    )
                if column == 7:
                    item.setToolTip(
                        self.tr(
                            "Requests that measured each model's tokenizer or warmed it up: sent "
                            "(and billed on a paid endpoint), but not part of the results"
                        )
                    )
                self.table.setItem(row, column, item)
        if runs and not self.table.selectedItems():
            self.table.selectRow(0)

    def _cells(self, run: HistoryRow) -> list[str]:
        return [
            run.when,
            run.kind,
            run_status_text(run.status, run.errors),
            ", ".join(run.models),
            ", ".join(tokens_label(n) for n in run.prompt_lengths),
            str(run.requests),
            str(run.errors),
            f"{run.calibration} / {run.warmup}",
        ]

    def selected_run(self) -> str | None:
        items = self.table.selectedItems()
        return None if not items else str(items[0].data(RUN_ID_ROLE))

    def _emit(self, replay: bool) -> None:
        run_id = self.selected_run()
        if run_id is None:
            return
        results = self.session.load_run(run_id)
        if replay:
            self.replay_requested.emit(results, self.speed.value())
        else:
            self.open_requested.emit(results)
