"""Past runs from the history database: reopen one, replay it in the panes, or import other
tools' result files (vLLM, guidellm, AIPerf) as runs of their own.

One row per run, newest first, filled when the window opens. Measured requests and failures are
counted apart from the hidden calibration and warm-up requests (a calibration sends a long
prompt to each model once: on a paid endpoint it costs money, so it is shown, but never as a
measurement).
"""

from __future__ import annotations

import asyncio
import gc
import time
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDoubleSpinBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMessageBox,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from workbench.core.foundation.i18n import Phrase
from workbench.core.foundation.redaction import redact
from workbench.core.foundation.results import RequestResult
from workbench.core.foundation.token_counts import tokens_label
from workbench.core.history.run_facts import RunSummary
from workbench.core.history.run_history import RunStore, StoreError
from workbench.ui.compare_controller import CompareController
from workbench.ui.retranslate import Retranslating
from workbench.ui.run_status import run_status_text

if TYPE_CHECKING:
    from workbench.core.history.result_import import ImportOutcome, Read

COLUMNS = (
    QT_TRANSLATE_NOOP("HistoryView", "when"),
    QT_TRANSLATE_NOOP("HistoryView", "kind"),
    QT_TRANSLATE_NOOP("HistoryView", "status"),
    QT_TRANSLATE_NOOP("HistoryView", "models"),
    QT_TRANSLATE_NOOP("HistoryView", "prompt"),
    QT_TRANSLATE_NOOP("HistoryView", "measured"),
    QT_TRANSLATE_NOOP("HistoryView", "failed"),
    QT_TRANSLATE_NOOP("HistoryView", "stopped"),
    QT_TRANSLATE_NOOP("HistoryView", "calibration / warm-up"),
    # an imported run's median TTFT as its file states it (the Summary quotes the same)
    QT_TRANSLATE_NOOP("HistoryView", "file's TTFT median ms"),
)
KINDS = {  # the history's run kinds (run_history.RunKind), as the table words them
    "comparison": QT_TRANSLATE_NOOP("HistoryView", "comparison"),
    "sweep": QT_TRANSLATE_NOOP("HistoryView", "sweep"),
    "replay": QT_TRANSLATE_NOOP("HistoryView", "replay"),
}
RUN_ID_ROLE = Qt.ItemDataRole.UserRole
PAINT_FIRST_S = 0.03


def store_and_load(
    history: Path, read: list[Read]
) -> tuple[list[ImportOutcome], list[RequestResult]]:
    """On a worker thread: store the files' runs, then read their rows back as the history
    holds them (20,000 rows took 0.8 s to read: not on the GUI thread)."""
    from workbench.core.history import (
        result_import,  # the importers and pydantic: after the first paint
    )

    outcomes = result_import.store_files_at(history, read)
    store = RunStore(history)
    try:
        return outcomes, [r for o in outcomes if o.run_id for r in store.results(o.run_id)]
    finally:
        store.close()


class HistoryView(Retranslating, QWidget):
    open_requested = Signal(list)  # list[RequestResult]
    replay_requested = Signal(list, float)
    imported = Signal(list)  # list[RequestResult]: the imported runs' rows, for the charts
    imported_aggregates = Signal(list)  # list[ImportedFigures]: runs imported without rows

    def __init__(self, session: CompareController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setObjectName("historyTable")
        self.table.verticalHeader().hide()
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        self.open_button, self.replay_button = QPushButton(), QPushButton()
        self.speed = QDoubleSpinBox()
        self.speed.setRange(0.1, 20.0)
        self.speed.setValue(1.0)
        self.speed.setSuffix("×")
        self.refresh_button, self.import_button = QPushButton(), QPushButton()
        self.delete_button = QPushButton()
        self.delete_box: QMessageBox | None = None  # the confirmation while it is up
        self.import_task: asyncio.Future | None = None  # the last import started
        self.import_status = QLabel()
        self.import_status.setObjectName("historyImportStatus")
        self.import_status.setWordWrap(True)
        self._imported: tuple[tuple[int, int, list[Phrase]], str] | None = None  # counts, words
        # Qt's own dialog, opened without blocking: the window keeps painting while it is up
        self.import_dialog = QFileDialog(self)  # its title and filters: retranslate
        self.import_dialog.setOption(QFileDialog.Option.DontUseNativeDialog)
        self.import_dialog.setFileMode(QFileDialog.FileMode.ExistingFiles)
        self.import_dialog.filesSelected.connect(self.import_paths)
        buttons = QHBoxLayout()
        self.speed_label = QLabel()
        for widget in (self.open_button, self.replay_button, self.speed_label, self.speed):
            buttons.addWidget(widget)
        buttons.addStretch(1)
        buttons.addWidget(self.delete_button)
        buttons.addWidget(self.import_button)
        buttons.addWidget(self.refresh_button)
        layout = QVBoxLayout(self)
        layout.addLayout(buttons)
        layout.addWidget(self.import_status)
        layout.addWidget(self.table, 1)
        self.open_button.clicked.connect(lambda: self._emit(replay=False))
        self.replay_button.clicked.connect(lambda: self._emit(replay=True))
        self.refresh_button.clicked.connect(self.refresh)
        self.delete_button.clicked.connect(self.confirm_delete)
        self.import_button.clicked.connect(self.import_dialog.open)
        self.table.itemDoubleClicked.connect(lambda _item: self._emit(replay=False))
        self.retranslate()

    def retranslate(self) -> None:
        """The tab's buttons, headers and rows in the language installed."""
        self.table.setAccessibleName(self.tr("Run history"))
        self.table.setHorizontalHeaderLabels([self.tr(c) for c in COLUMNS])
        self.open_button.setText(self.tr("Open results"))
        self.replay_button.setText(self.tr("Replay in panes"))
        self.speed_label.setText(self.tr("speed"))
        self.refresh_button.setText(self.tr("Refresh"))
        self.delete_button.setText(self.tr("Delete…"))
        self.delete_button.setToolTip(
            self.tr("Remove the selected run and its requests from the history, after asking")
        )
        self.import_button.setText(self.tr("Import…"))
        self.import_dialog.setWindowTitle(self.tr("Import result files"))
        self.import_dialog.setNameFilters(
            [self.tr("Result files (*.json *.jsonl *.yaml *.yml)"), self.tr("All files (*)")]
        )
        # Qt names the sidebar's places ("Computer") once, when they are set: set them again
        self.import_dialog.setSidebarUrls(self.import_dialog.sidebarUrls())
        self.import_button.setToolTip(
            self.tr(
                "Add result files of vLLM (bench serve --save-result), guidellm "
                "(benchmarks.json) or AIPerf / GenAI-Perf (profile_export) to the history"
            )
        )
        self.import_dialog.setWindowTitle(self.tr("Import result files"))
        if self.table.rowCount():
            self.refresh()  # kinds and statuses are words too
        if self._imported is not None and self.import_status.text() == self._imported[1]:
            self._say_imported(*self._imported[0])  # still shown: said again

    def refresh(self) -> None:
        runs = self.session.records.history()
        self.table.setRowCount(len(runs))
        for row, run in enumerate(runs):
            for column, text in enumerate(self._cells(run)):
                item = QTableWidgetItem(text)
                item.setData(RUN_ID_ROLE, run.info.run_id)
                if column >= 5:
                    item.setTextAlignment(
                        Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
                    )
                if COLUMNS[column] == "calibration / warm-up":
                    item.setToolTip(
                        self.tr(
                            "Requests that measured each model's tokenizer or warmed it up: sent "
                            "(and billed on a paid endpoint), but not part of the results"
                        )
                    )
                self.table.setItem(row, column, item)
        if runs and not self.table.selectedItems():
            self.table.selectRow(0)

    def _cells(self, run: RunSummary) -> list[str]:
        info = run.info
        kind = self.tr(KINDS[info.kind]) if info.kind in KINDS else info.kind
        return [
            time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(info.created_at)),
            kind
            if run.imported_from is None
            else self.tr("%1, imported from %2")
            .replace("%1", kind)
            .replace("%2", run.imported_from),
            run_status_text(info.status, info.errors, info.stopped),
            ", ".join(run.models),
            ", ".join(tokens_label(n) for n in run.prompt_lengths),
            str(info.requests),
            str(info.errors),
            str(info.stopped),
            f"{info.calibration} / {info.warmup}",
            "" if run.file_ttft_ms is None else f"{run.file_ttft_ms:,.0f}",
        ]

    def selected_run(self) -> str | None:
        items = self.table.selectedItems()
        return None if not items else str(items[0].data(RUN_ID_ROLE))

    def _emit(self, replay: bool) -> None:
        run_id = self.selected_run()
        if run_id is None:
            return
        results = self.session.records.load_run(run_id)
        if replay:
            self.replay_requested.emit(results, self.speed.value())
        else:
            self.open_requested.emit(results)

    def confirm_delete(self) -> None:
        """Ask (without blocking the window) before the selected run leaves the history."""
        run_id = self.selected_run()
        if run_id is None or self.session.store is None:
            return
        row = self.table.currentRow()
        what = " · ".join(self.table.item(row, c).text() for c in (0, 1, 3) if row >= 0)
        self.delete_box = QMessageBox(
            QMessageBox.Icon.Question,
            self.tr("Delete run"),
            self.tr("Delete this run and its %1 request(s) from the history?\n%2")
            .replace("%1", self.table.item(row, 5).text() if row >= 0 else "?")
            .replace("%2", what),
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
            self,
        )
        self.delete_box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        self.delete_box.accepted.connect(lambda: self._delete(run_id))
        self.delete_box.open()

    def _delete(self, run_id: str) -> None:
        try:
            self.session.records.delete_run(run_id)
        except StoreError as error:
            self.import_status.setText(redact(str(error)))
            return
        self.import_status.setText(self.tr("Run deleted from the history."))
        self.refresh()

    def import_paths(self, paths: list[str]) -> asyncio.Task | None:
        """Import result files into the history; the runs' rows go to the charts beside ours.
        Parsing and storing run on a worker thread: the window keeps painting meanwhile."""
        store = self.session.store
        if store is None:
            self.import_status.setText(self.tr("No run history is open: nothing can be imported."))
            return None
        self.import_status.setText(self.tr("Importing %1 file(s)…").replace("%1", str(len(paths))))
        # the parse allocates ~10 objects a row, so full collections run during it, and each
        # scanned the whole heap with the GIL held (0.1-0.6 s in a test session's heap): what
        # the window holds already is long-lived, and goes out of the collector's reach, as
        # start-up's heap does (app.freeze_startup_heap; a frozen cycle is never freed)
        gc.freeze()
        previous = self.import_task
        self.import_task = asyncio.ensure_future(
            self._import(store, [Path(p) for p in paths], previous)
        )
        return self.import_task

    async def _import(
        self, store: RunStore, paths: list[Path], previous: asyncio.Future | None
    ) -> None:
        if previous is not None:  # one import at a time: two would both add a new file's run
            await asyncio.wait([previous])
        # the paints already asked for (the status line's, a window's first) go first: the
        # parse's Python would hold the GIL against each of their Qt calls
        await asyncio.sleep(PAINT_FIRST_S)
        # the importers (and pydantic) load on first use, off the GUI thread and after start-up
        result_import = await asyncio.to_thread(
            import_module, "workbench.core.history.result_import"
        )
        try:
            read = await asyncio.to_thread(result_import.read_files, paths)
            if store.in_memory:  # a memory database lives in this thread's connection only
                outcomes = result_import.store_files(store, read)
                rows = [r for o in outcomes if o.run_id for r in store.results(o.run_id)]
            else:
                outcomes, rows = await asyncio.to_thread(store_and_load, store.path, read)
        except StoreError as error:  # the history is locked or its disk is full
            self.import_status.setText(redact(str(error)))
            return
        self._show_imported(outcomes, rows)

    def _say_imported(self, added: int, known: int, errors: list[Phrase]) -> None:
        """The import's outcome, a file's error in the UI's language too (the readers mark
        their messages); said again in the new language on a switch."""
        text = (
            self.tr("Imported %1 run(s), %2 already in the history.")
            .replace("%1", str(added))
            .replace("%2", str(known))
        )
        said = [e.render(QCoreApplication.translate) for e in errors]
        self.import_status.setText(redact("\n".join([text, *said])))
        self._imported = ((added, known, errors), self.import_status.text())

    def _show_imported(self, outcomes: list[ImportOutcome], rows: list[RequestResult]) -> None:
        errors = [
            o.error_phrase or Phrase(o.error, context="ResultFile") for o in outcomes if o.error
        ]
        runs = [o for o in outcomes if o.run_id]
        added = sum(o.added for o in runs)
        self._say_imported(added, len(runs) - added, errors)
        self.refresh()
        if rows:
            self.imported.emit(rows)
            gc.freeze()  # the imported rows stay as long as they are shown
        # a file of aggregates only has no rows: its own medians and means go to the charts
        only = [
            self.session.records.imported_figures(o.run_id)
            for o in runs
            if o.run_id and not o.requests
        ]
        if any(only):
            self.imported_aggregates.emit([f for f in only if f is not None])
