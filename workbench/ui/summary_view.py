"""The Summary tab: the stakeholder pages as they will print, with PNG and PDF export.

The canvas paints the same `SummaryDocument` pages that `render_pdf` and `render_png` write,
scaled to the tab's width: nothing is grabbed from other widgets, so the first render is never
squashed and nothing is cut off.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QSize
from PySide6.QtGui import QColor, QPainter, QPaintEvent
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from workbench.core.foundation.imported_figures import ImportedFigures
from workbench.core.foundation.results import RequestResult
from workbench.core.history.summary import SummaryReport, build_report
from workbench.ui.retranslate import Retranslating
from workbench.ui.sliced import Latest, Steps, summarize_in_steps
from workbench.ui.summary_page import (
    PAGE_WIDTH,
    PAPERS,
    SummaryDocument,
    default_paper,
    page_height,
    render_pdf,
    render_png,
)

if TYPE_CHECKING:
    from workbench.core.history.run_facts import RunFacts

GAP = 16
MIN_PAGE_PX = 560  # narrower than this, the canvas scrolls sideways instead of shrinking


class SummaryCanvas(QWidget):
    """The pages one under the other, as wide as the scroll area allows."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.document: SummaryDocument | None = None
        self.paper = default_paper()
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    def set_document(self, document: SummaryDocument | None, paper: str) -> None:
        self.document, self.paper = document, paper
        self.fit(self.width())

    def scale(self, width: int) -> float:
        return max(MIN_PAGE_PX, min(width - 2 * GAP, 1200)) / PAGE_WIDTH

    def fit(self, width: int) -> None:
        """Height for this width: every page at the scale the width allows."""
        pages = len(self.document.pages(self.paper)) if self.document else 0
        page_h = page_height(self.paper) * self.scale(width)
        self.setFixedHeight(int(max(1, pages) * (page_h + GAP) + GAP))
        self.setMinimumWidth(MIN_PAGE_PX + 2 * GAP)
        self.update()

    def sizeHint(self) -> QSize:
        return QSize(int(PAGE_WIDTH * 0.8), self.height())

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if event.oldSize().width() != event.size().width():
            self.fit(event.size().width())

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.fillRect(self.rect(), QColor("#aab7b8"))
        if self.document is None:
            painter.end()
            return
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        scale = self.scale(self.width())
        page_w, page_h = PAGE_WIDTH * scale, page_height(self.paper) * scale
        left = max(GAP, (self.width() - page_w) / 2)
        for index in range(len(self.document.pages(self.paper))):
            top = GAP + index * (page_h + GAP)
            if top > event.rect().bottom() or top + page_h < event.rect().top():
                continue
            painter.save()
            painter.translate(left, top)
            painter.scale(scale, scale)
            self.document.paint_page(painter, self.paper, index)
            painter.restore()
        painter.end()


def _number(value: float | None, digits: int) -> str:
    return "–" if value is None else f"{value:,.{digits}f}"


class SummaryView(Retranslating, QWidget):
    """A scrollable preview of the pages with the paper size and export buttons."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.document: SummaryDocument | None = None
        self.building: Latest[SummaryReport] = Latest()  # a large run's page, in slices
        self.canvas = SummaryCanvas()
        self.scroll = QScrollArea()
        self.scroll.setWidget(self.canvas)
        self.scroll.setWidgetResizable(True)
        self.refresh_button = QPushButton()
        self.paper = QComboBox()
        for name in PAPERS:
            self.paper.addItem(name, name)
        self.paper.setCurrentIndex(self.paper.findData(self.canvas.paper))
        self.png_button, self.pdf_button = QPushButton(), QPushButton()
        self.empty, self.paper_label = QLabel(), QLabel()
        bar = QHBoxLayout()
        bar.addWidget(self.refresh_button)
        bar.addWidget(self.paper_label)
        bar.addWidget(self.paper)
        bar.addWidget(self.png_button)
        bar.addWidget(self.pdf_button)
        bar.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addLayout(bar)
        layout.addWidget(self.empty)
        self.imported: list[ImportedFigures] = []  # runs imported with aggregates only
        self.imported_label = QLabel()
        self.imported_label.setObjectName("summaryImported")
        self.imported_label.setWordWrap(True)
        self.imported_label.hide()
        layout.addWidget(self.imported_label)
        layout.addWidget(self.scroll, 1)
        self.retranslate()
        self.paper.currentIndexChanged.connect(self._on_paper)
        self.png_button.clicked.connect(lambda: self._export_dialog(".png"))
        self.pdf_button.clicked.connect(lambda: self._export_dialog(".pdf"))
        self._sync()

    def retranslate(self) -> None:
        """The tab's buttons and labels in the language installed."""
        self.refresh_button.setText(self.tr("Refresh from the latest results"))
        self.png_button.setText(self.tr("Export PNG…"))
        self.pdf_button.setText(self.tr("Export PDF…"))
        self.empty.setText(self.tr("Run a comparison or a sweep: its summary appears here."))
        self.paper_label.setText(self.tr("Paper"))
        papers = {"A4": self.tr("A4"), "Letter": self.tr("Letter")}  # the sizes' usual names
        for i in range(self.paper.count()):
            self.paper.setItemText(i, papers.get(self.paper.itemData(i), self.paper.itemData(i)))
        self.set_imported([])
        if self.document is not None:  # the page worded again, from the same report
            self.set_report(self.document.report, self.document.baseline)

    def set_imported(self, figures: list[ImportedFigures]) -> None:
        """Imported runs without per-request rows, listed under the pages with the file's own
        median and mean (they have no rows for the page's tables and charts)."""
        known = {f.run_id for f in self.imported}
        self.imported += [f for f in figures if f.run_id not in known]
        lines = [
            self.tr("%1 (imported from %2): TTFT median %3 ms, mean %4 ms; decode median %5 tok/s")
            .replace("%1", f.model)
            .replace("%2", f.tool)
            .replace("%3", _number(f.ttft_ms[0], 0))
            .replace("%4", _number(f.ttft_ms[1], 0))
            .replace("%5", _number(f.decode_tps[0], 1))
            for f in self.imported
        ]
        title = self.tr("Imported results, the files' own aggregates (no per-request rows):")
        self.imported_label.setText("\n".join([title, *lines]))
        self.imported_label.setVisible(bool(lines))

    def summarize(
        self,
        results: Sequence[RequestResult],
        kind: str,
        order: Sequence[str],
        baseline: str | None = None,
        runs: Sequence[RunFacts] = (),
    ) -> None:
        """The page of these rows: built at once when they are few, else summarised in slices
        between the window's events (20,000 imported rows took a third of a second), and
        shown when built."""
        rows = list(results)

        def report() -> Steps[SummaryReport]:
            cells = yield from summarize_in_steps(rows)
            return build_report(rows, kind=kind, order=order, cells=cells, runs=runs)

        self.building.run(report, len(rows), lambda built: self.set_report(built, baseline))

    def set_report(self, report: SummaryReport, baseline: str | None = None) -> None:
        self.document = SummaryDocument(report, baseline)
        self.canvas.set_document(self.document, self.current_paper())
        self._sync()

    def current_paper(self) -> str:
        return str(self.paper.currentData())

    def _on_paper(self) -> None:
        self.canvas.set_document(self.document, self.current_paper())

    def _sync(self) -> None:
        has = self.document is not None and bool(self.document.report.models)
        self.empty.setVisible(not has)
        self.png_button.setEnabled(has)
        self.pdf_button.setEnabled(has)

    def export(self, path: str | Path, paper: str | None = None) -> Path:
        """Write the pages as PNG or PDF, chosen by the suffix; returns the path."""
        path = Path(path)
        if self.document is None:
            raise ValueError("there is no summary to export yet: run a comparison first")
        path.parent.mkdir(parents=True, exist_ok=True)
        render = {".png": render_png, ".pdf": render_pdf}.get(path.suffix.lower())
        if render is None:
            raise ValueError(f"{path.name}: the summary exports as .png or .pdf")
        render(self.document, str(path), paper or self.current_paper())
        return path

    def _export_dialog(self, suffix: str) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self, self.tr("Export summary"), f"summary{suffix}", f"*{suffix}"
        )
        if path:
            self.export(path)
