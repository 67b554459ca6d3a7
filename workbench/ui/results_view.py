"""The results table: one row per request (the CSV's columns) or one per model and length.

The models sort themselves and format rows lazily (request_rows.py); large sets are
formatted and summarised in slices between the window's events (sliced.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import Qt
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

from workbench.core.foundation.results import RequestResult
from workbench.core.history.csv_export import COLUMNS
from workbench.core.history.summary import CellSummary
from workbench.ui.request_rows import AggregateRows, RequestRows, SortedRows
from workbench.ui.retranslate import Retranslating
from workbench.ui.sliced import Latest, Steps, summarize_in_steps

AGGREGATE_COLUMNS = (
    "model",
    "attention",
    "prompt",
    "concurrency",  # each level its own row: requests 16 in flight are not pooled with 1
    "offered_rate",  # and each rate (--rate, a capacity search's steps): empty in closed loop
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


class ResultsView(Retranslating, QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.results: list[RequestResult] = []
        self.view_mode = QComboBox()
        self.view_mode.addItem("", "requests")  # worded by retranslate()
        self.view_mode.addItem("", "aggregate")
        self.view_mode.currentIndexChanged.connect(self._rebuild)
        self.requests_model = RequestRows()
        self.aggregate_model = AggregateRows(AGGREGATE_COLUMNS)
        self.summarizing: Latest[list[list[str]]] = Latest()
        self.table = QTableView()
        self.table.setModel(self.requests_model)
        self.arrow_style = SortArrowStyle()
        header = self.table.horizontalHeader()
        header.setStyle(self.arrow_style)
        # oldest request first, and the header says so
        header.setSortIndicator(COLUMNS.index("started_at"), Qt.SortOrder.AscendingOrder)
        for rows in (self.requests_model, self.aggregate_model):  # a reset restores defaults
            rows.modelReset.connect(lambda: fit_headers(self.table))
        fit_headers(self.table)
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
        self.retranslate()
        self._rebuild()

    def retranslate(self) -> None:
        """The tab's words in the language installed; the headers and the vocabulary cells
        are painted in it (result_columns.py)."""
        self.view_mode.setAccessibleName(self.tr("Results grouping"))
        self.view_mode.setItemText(0, self.tr("Per request"))
        self.view_mode.setItemText(1, self.tr("Per model and prompt length (median, p10, p90)"))
        self.table.setAccessibleName(self.tr("Results table"))
        self.count.setText(self.tr("%1 requests").replace("%1", str(len(self.results))))
        model = self.table.model()
        if model is not None and model.columnCount():
            model.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, model.columnCount() - 1)
            fit_headers(self.table)
        self.table.viewport().update()

    def add(self, result: RequestResult) -> None:
        self.results.append(result)
        if self.view_mode.currentData() == "requests":
            self.requests_model.append(result)
            self.count.setText(self.tr("%1 requests").replace("%1", str(len(self.results))))
        elif not self.summarizing.pending:  # else the summaries in flight look again at their end
            self._rebuild()

    def shown_results(self) -> list[RequestResult]:
        """The requests the table holds, in the order it shows them (per request), else all."""
        if self.view_mode.currentData() != "requests":
            return list(self.results)
        return self.requests_model.shown()

    def shown_table(self) -> tuple[list[str], list[list[str]]]:
        """The rows per model and prompt length as the table shows them: header, rows in order."""
        model = self.aggregate_model
        return list(model.columns), [model.text(source) for source in model.order]

    def set_results(self, results: Sequence[RequestResult]) -> None:
        self.results = list(results)
        self._rebuild()

    def _show(self, model: SortedRows) -> None:
        """The table shows `model`, sorted by the column and order its header shows."""
        header = self.table.horizontalHeader()
        if self.table.model() is not model:
            self.table.setModel(model)
            fit_headers(self.table)
            # each view keeps its own sort: the same position is another column in the other
            header.setSortIndicator(model.sort_column, model.sort_order)
        model.sort(header.sortIndicatorSection(), header.sortIndicatorOrder())

    def _rebuild(self) -> None:
        if self.view_mode.currentData() == "aggregate":
            rows = list(self.results)
            self.summarizing.run(
                lambda: aggregate_rows(rows),
                len(rows),
                lambda table: self._set_aggregates(table, len(rows)),
            )
            self._show(self.aggregate_model)
        else:
            self.summarizing.cancel()
            self.requests_model.set_results(self.results)
            self._show(self.requests_model)
        self.count.setText(self.tr("%1 requests").replace("%1", str(len(self.results))))

    def _set_aggregates(self, table: list[list[str]], summarised: int) -> None:
        self.aggregate_model.set_rows(table)
        if summarised != len(self.results):  # rows a live run added meanwhile
            self._rebuild()


def fit_headers(table: QTableView) -> None:
    """Each column at least as wide as its header's name and sort arrow: the default width cut
    'prompt_tokens_target' to 'mpt_tokens_tar'. Header texts only: measuring every row would
    cost a pass over thousands of requests."""
    header = table.horizontalHeader()
    for section in range(header.count()):
        header.resizeSection(
            section, max(header.sectionSize(section), header.sectionSizeHint(section))
        )


def aggregate_rows(results: Sequence[RequestResult]) -> Steps[list[list[str]]]:
    """One row per model and prompt length: its medians and spread, as the table shows them."""
    cells: list[CellSummary] = yield from summarize_in_steps(results)
    return [
        [
            c.model,
            c.attention or "",
            str(c.prompt_tokens_target),
            str(c.concurrency),
            c.rate_text,
            str(c.n),
            str(c.errors),
            _fmt(c.figures["ttft_ms"].median, 0),
            _fmt(c.figures["ttft_ms"].p10, 0),
            _fmt(c.figures["ttft_ms"].p90, 0),
            _fmt(c.figures["decode_tps"].median),
            _fmt(c.figures["decode_tps"].p10),
            _fmt(c.figures["decode_tps"].p90),
            _fmt(c.median("prefill_tps"), 0),
            _fmt(c.median("e2e_ms"), 0),
            _fmt(c.median("cost_usd"), 6),
        ]
        for c in cells
    ]
