"""The results table: one row per request (the CSV's columns) or one per model and length."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
)
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QProxyStyle,
    QStyle,
    QStyleOption,
    QStyleOptionHeader,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from workbench.core.csv_export import COLUMNS, row_for
from workbench.core.results import RequestResult
from workbench.core.summary import summarize

AGGREGATE_COLUMNS = (
    "model",
    "attention",
    "prompt",
    "n",
    "errors",
    "ttft_ms p50",
    "ttft_ms p10",
    "ttft_ms p90",
    "decode_tps p50",
    "decode_tps p10",
    "decode_tps p90",
    "prefill_tps p50",
    "e2e_ms p50",
    "cost_usd p50",
)
_Index = QModelIndex | QPersistentModelIndex


def _number(text: str) -> float | str:
    try:
        return float(text)
    except ValueError:
        return text


class TableModel(QAbstractTableModel):
    """Rows of strings with numeric sorting (Qt.UserRole holds the sort key)."""

    def __init__(self, columns: Sequence[str]) -> None:
        super().__init__()
        self.columns = list(columns)
        self.rows: list[list[str]] = []

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.columns)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        text = self.rows[index.row()][index.column()]
        if role == Qt.ItemDataRole.DisplayRole:
            return text
        if role == Qt.ItemDataRole.UserRole:
            value = _number(text)
            return value if isinstance(value, float) else float("-inf") if not text else value
        return None

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return self.columns[section]
        return None

    def set_rows(self, rows: list[list[str]]) -> None:
        self.beginResetModel()
        self.rows = rows
        self.endResetModel()

    def append(self, row: list[str]) -> None:
        self.beginInsertRows(QModelIndex(), len(self.rows), len(self.rows))
        self.rows.append(row)
        self.endInsertRows()


def _fmt(v: float | None, digits: int = 1) -> str:
    return "" if v is None else f"{v:.{digits}f}"


class SortArrowStyle(QProxyStyle):
    """Qt draws an ascending sort as a down arrow (an old Windows convention), so a column
    sorted descending showed an up arrow. Here the arrow points up for ascending, as most
    readers expect (smallest first, growing downwards)."""

    def drawPrimitive(
        self,
        element: QStyle.PrimitiveElement,
        option: QStyleOption,
        painter: Any,
        widget: QWidget | None = None,
    ) -> None:
        if element == QStyle.PrimitiveElement.PE_IndicatorHeaderArrow and isinstance(
            option, QStyleOptionHeader
        ):
            swapped = QStyleOptionHeader(option)
            flip = {
                QStyleOptionHeader.SortIndicator.SortUp: QStyleOptionHeader.SortIndicator.SortDown,
                QStyleOptionHeader.SortIndicator.SortDown: QStyleOptionHeader.SortIndicator.SortUp,
            }
            swapped.sortIndicator = flip.get(option.sortIndicator, option.sortIndicator)
            option = swapped
        super().drawPrimitive(element, option, painter, widget)


class ResultsView(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.results: list[RequestResult] = []
        self.view_mode = QComboBox()
        self.view_mode.setAccessibleName(self.tr("Results grouping"))
        self.view_mode.addItem(self.tr("Per request"), "requests")
        self.view_mode.addItem(
            self.tr("Per model and prompt length (median, p10, p90)"), "aggregate"
        )
        self.view_mode.currentIndexChanged.connect(self._rebuild)
        self.requests_model = TableModel(COLUMNS)
        self.aggregate_model = TableModel(AGGREGATE_COLUMNS)
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSortRole(Qt.ItemDataRole.UserRole)
        self.proxy.setSourceModel(self.requests_model)
        self.table = QTableView()
        self.table.setAccessibleName(self.tr("Results table"))
        self.table.setModel(self.proxy)
        self.arrow_style = SortArrowStyle()
        self.table.horizontalHeader().setStyle(self.arrow_style)
        # oldest request first, and the header says so
        self.table.horizontalHeader().setSortIndicator(
            COLUMNS.index("started_at"), Qt.SortOrder.AscendingOrder
        )
        self.table.setSortingEnabled(True)
        self.table.setAlternatingRowColors(True)
        self.count = QLabel()
        top = QHBoxLayout()
        top.addWidget(self.view_mode)
        top.addStretch(1)
        top.addWidget(self.count)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.table, 1)
        self._rebuild()

    def add(self, result: RequestResult) -> None:
        self.results.append(result)
        if self.view_mode.currentData() == "requests":
            row = row_for(result)
            self.requests_model.append([row[c] for c in COLUMNS])
            self.count.setText(self.tr("%1 requests").replace("%1", str(len(self.results))))
        else:
            self._rebuild()

    def shown_results(self) -> list[RequestResult]:
        """The requests the table holds, in the order it shows them (per request), else all."""
        if self.view_mode.currentData() != "requests":
            return list(self.results)
        rows = range(self.proxy.rowCount())
        return [self.results[self.proxy.mapToSource(self.proxy.index(r, 0)).row()] for r in rows]

    def set_results(self, results: Sequence[RequestResult]) -> None:
        self.results = list(results)
        self._rebuild()

    def _rebuild(self) -> None:
        if self.view_mode.currentData() == "aggregate":
            rows = []
            for c in summarize(self.results):
                ttft, dec = c.figures["ttft_ms"], c.figures["decode_tps"]
                rows.append(
                    [
                        c.model,
                        c.attention or "",
                        str(c.prompt_tokens_target),
                        str(c.n),
                        str(c.errors),
                        _fmt(ttft.median, 0),
                        _fmt(ttft.p10, 0),
                        _fmt(ttft.p90, 0),
                        _fmt(dec.median),
                        _fmt(dec.p10),
                        _fmt(dec.p90),
                        _fmt(c.median("prefill_tps"), 0),
                        _fmt(c.median("e2e_ms"), 0),
                        _fmt(c.median("cost_usd"), 6),
                    ]
                )
            self.aggregate_model.set_rows(rows)
            self.proxy.setSourceModel(self.aggregate_model)
        else:
            rows = [[row[c] for c in COLUMNS] for row in map(row_for, self.results)]  # once a row
            self.requests_model.set_rows(rows)
            self.proxy.setSourceModel(self.requests_model)
        self.count.setText(self.tr("%1 requests").replace("%1", str(len(self.results))))
