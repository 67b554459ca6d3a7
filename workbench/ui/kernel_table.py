"""The Kernels tab's results table: one row per measured (or failed) combination; the CSV
export keeps every column, the table the ones a reader compares."""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP
from PySide6.QtWidgets import QHeaderView, QTableWidget, QTableWidgetItem, QWidget

from kernels_bridge.protocol import ResultRow
from workbench.core.foundation.token_counts import tokens_label
from workbench.ui.retranslate import Retranslating
from workbench.ui.theme import follow_item_status, mark_item

# (ResultRow field, header) of the table
TABLE_COLUMNS: tuple[tuple[str, str], ...] = (
    ("variant", QT_TRANSLATE_NOOP("KernelTable", "variant")),
    ("backend", QT_TRANSLATE_NOOP("KernelTable", "backend")),
    ("device", QT_TRANSLATE_NOOP("KernelTable", "device")),
    ("dtype", QT_TRANSLATE_NOOP("KernelTable", "dtype")),
    ("batch", QT_TRANSLATE_NOOP("KernelTable", "batch")),
    ("kv_len", QT_TRANSLATE_NOOP("KernelTable", "KV length")),
    ("q_len", QT_TRANSLATE_NOOP("KernelTable", "q length")),
    ("latency_us", QT_TRANSLATE_NOOP("KernelTable", "latency µs")),
    ("achieved_gbps", QT_TRANSLATE_NOOP("KernelTable", "GB/s")),
    ("achieved_tflops", QT_TRANSLATE_NOOP("KernelTable", "TFLOP/s")),
    ("frac_peak_bw", QT_TRANSLATE_NOOP("KernelTable", "% peak BW")),
    ("roofline_us", QT_TRANSLATE_NOOP("KernelTable", "roofline µs")),
    ("kv_bytes_per_token", QT_TRANSLATE_NOOP("KernelTable", "KV B/token")),
    ("shape", QT_TRANSLATE_NOOP("KernelTable", "shape")),
    ("rel_err", QT_TRANSLATE_NOOP("KernelTable", "rel. error")),
    ("timing", QT_TRANSLATE_NOOP("KernelTable", "timing")),
    ("error", QT_TRANSLATE_NOOP("KernelTable", "error")),
)


def cell_text(field: str, value: object) -> str:
    if value is None or value == "":
        return "–"
    if field == "frac_peak_bw" and isinstance(value, float):
        return f"{100 * value:.0f} %"
    if field == "kv_len" and isinstance(value, int):
        return tokens_label(value)
    if isinstance(value, float):
        return f"{value:,.3g}" if abs(value) < 100 else f"{value:,.0f}"
    return str(value)


class KernelTable(Retranslating, QTableWidget):
    """Read-only rows, errors in red with the whole text as a tooltip."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(0, len(TABLE_COLUMNS), parent)
        self.retranslate()
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.horizontalHeader().setStretchLastSection(True)
        self.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.verticalHeader().hide()
        follow_item_status(self)

    def retranslate(self) -> None:
        self.setAccessibleName(self.tr("Kernel timings"))
        header = self.horizontalHeader()
        # sized to contents, each new header text measured every row of its column again
        # (a quarter second for the H200 sweep's rows); fixed while relabelled, sized once
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.setHorizontalHeaderLabels([self.tr(h) for _, h in TABLE_COLUMNS])
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)

    def set_rows(self, rows: list[ResultRow]) -> None:
        """Replace every row (a loaded CSV), sized once rather than row by row."""
        self.setUpdatesEnabled(False)
        try:
            self.setRowCount(0)
            self.setRowCount(len(rows))
            for r, row in enumerate(rows):
                self._fill(r, row)
        finally:
            self.setUpdatesEnabled(True)

    def add_row(self, row: ResultRow) -> None:
        r = self.rowCount()
        self.insertRow(r)
        self._fill(r, row)

    def _fill(self, r: int, row: ResultRow) -> None:
        for c, (field, _) in enumerate(TABLE_COLUMNS):
            value = getattr(row, field)
            item = QTableWidgetItem(cell_text(field, value))
            if field == "error" and value:
                mark_item(item, "failed")
                item.setToolTip(str(value))
            self.setItem(r, c, item)
