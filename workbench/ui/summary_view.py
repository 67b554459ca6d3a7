"""The stakeholder summary: one page with the charts, the key table and a plain conclusion per
model, exportable as PNG and PDF."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QT_TRANSLATE_NOOP, QMarginsF, QPoint, QSize, Qt
from PySide6.QtGui import QPageLayout, QPageSize, QPainter, QPdfWriter, QPixmap
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from workbench.core.conclusions import Conclusion, conclude
from workbench.core.results import RequestResult
from workbench.core.summary import summarize
from workbench.ui.prompt_slider import tokens_label

TABLE_COLUMNS = (
    QT_TRANSLATE_NOOP("SummaryPage", "model"),
    QT_TRANSLATE_NOOP("SummaryPage", "attention"),
    QT_TRANSLATE_NOOP("SummaryPage", "prompt"),
    QT_TRANSLATE_NOOP("SummaryPage", "n"),
    QT_TRANSLATE_NOOP("SummaryPage", "TTFT ms"),
    QT_TRANSLATE_NOOP("SummaryPage", "decode tok/s"),
    QT_TRANSLATE_NOOP("SummaryPage", "prefill tok/s"),
    QT_TRANSLATE_NOOP("SummaryPage", "cost $/request"),
)


class SummaryPage(QWidget):
    """The printable page itself (white, fixed width), rebuilt from results and chart images."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("summaryPage")
        self.setStyleSheet("#summaryPage { background: white; } QLabel { color: #1b2631; }")
        self.setFixedWidth(1000)
        self.title = QLabel()
        self.title.setStyleSheet("font-size: 20pt; font-weight: 700;")
        self.subtitle = QLabel()
        self.subtitle.setStyleSheet("color: #5d6d7e;")
        self.conclusions = QLabel()
        self.conclusions.setWordWrap(True)
        self.conclusions.setTextFormat(Qt.TextFormat.RichText)
        self.conclusions.setStyleSheet("font-size: 13pt;")
        self.table = QTableWidget(0, len(TABLE_COLUMNS))
        self.table.setHorizontalHeaderLabels([self.tr(c) for c in TABLE_COLUMNS])
        self.table.verticalHeader().hide()
        self.table.setStyleSheet("QTableWidget { background: white; color: #1b2631; }")
        self.charts = QHBoxLayout()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(32, 28, 32, 28)
        layout.addWidget(self.title)
        layout.addWidget(self.subtitle)
        layout.addSpacing(8)
        layout.addWidget(self.conclusions)
        layout.addSpacing(8)
        layout.addLayout(self.charts)
        layout.addWidget(self.table)

    def sentence(self, c: Conclusion) -> str:
        speed = ""
        if c.decode_ratio is not None:
            if c.decode_ratio >= 1:
                speed = self.tr("decodes %1× faster than").replace("%1", f"{c.decode_ratio:.1f}")
            else:
                speed = self.tr("decodes %1× slower than").replace(
                    "%1", f"{1 / c.decode_ratio:.1f}"
                )
        cost = ""
        if c.cost_change is not None and abs(c.cost_change) >= 0.005:
            if c.cost_change < 0:
                cost = self.tr("costs %1 % less")
            else:
                cost = self.tr("costs %1 % more")
            cost = cost.replace("%1", f"{abs(c.cost_change) * 100:.0f}")
        first = ""
        if c.ttft_ratio is not None:
            first = (
                self.tr("first token %1× %2")
                .replace("%1", f"{max(c.ttft_ratio, 1 / c.ttft_ratio):.1f}")
                .replace("%2", self.tr("sooner") if c.ttft_ratio >= 1 else self.tr("later"))
            )
        text = (
            self.tr("At %1 the %2 model <b>%3</b> %4 the %5 model <b>%6</b>")
            .replace("%1", tokens_label(c.prompt_tokens))
            .replace("%2", c.attention or "?")
            .replace("%3", c.model)
            .replace("%4", speed)
            .replace("%5", c.baseline_attention or "?")
            .replace("%6", c.baseline)
        )
        extras = [p for p in (first, cost) if p]
        return text + (" (" + ", ".join(extras) + ")" if extras else "") + "."

    def build(
        self,
        results: Sequence[RequestResult],
        charts: Sequence[QPixmap],
        baseline: str | None = None,
    ) -> None:
        cells = summarize(results)
        models = sorted({c.model for c in cells})
        self.title.setText(self.tr("Model comparison: %1").replace("%1", " vs ".join(models)))
        self.subtitle.setText(
            self.tr(
                "Measured with Attention Workbench, %1. Medians over "
                "repeats; decode tok/s excludes time to first token."
            ).replace("%1", time.strftime("%Y-%m-%d %H:%M"))
        )
        sentences = [self.sentence(c) for c in conclude(cells, baseline)]
        self.conclusions.setText(
            "<br>".join(sentences)
            if sentences
            else self.tr("Run a comparison of at least two models to see a conclusion.")
        )
        self.table.setRowCount(len(cells))
        for row, c in enumerate(cells):
            values = [
                c.model,
                c.attention or "",
                tokens_label(c.prompt_tokens_target),
                str(c.n),
                _fmt(c.median("ttft_ms"), 0),
                _fmt(c.median("decode_tps"), 1),
                _fmt(c.median("prefill_tps"), 0),
                _fmt(c.median("cost_usd"), 5),
            ]
            for column, value in enumerate(values):
                self.table.setItem(row, column, QTableWidgetItem(value))
        self.table.resizeColumnsToContents()
        self.table.setFixedHeight(
            self.table.horizontalHeader().height() + 30 * max(1, len(cells)) + 4
        )
        while self.charts.count():
            item = self.charts.takeAt(0)
            if item.widget():
                item.widget().deleteLater()
        for pixmap in charts:
            label = QLabel()
            label.setPixmap(
                pixmap.scaledToWidth(
                    int(900 / max(1, len(charts))), Qt.TransformationMode.SmoothTransformation
                )
            )
            self.charts.addWidget(label)
        self.adjustSize()


def _fmt(v: float | None, digits: int) -> str:
    return "" if v is None else f"{v:,.{digits}f}"


class SummaryView(QWidget):
    """A scrollable preview of the page with export buttons."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.page = SummaryPage()
        scroll = QScrollArea()
        scroll.setWidget(self.page)
        scroll.setWidgetResizable(False)
        self.refresh_button = QPushButton(self.tr("Refresh from the latest results"))
        self.png_button = QPushButton(self.tr("Export PNG…"))
        self.pdf_button = QPushButton(self.tr("Export PDF…"))
        bar = QHBoxLayout()
        for b in (self.refresh_button, self.png_button, self.pdf_button):
            bar.addWidget(b)
        bar.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addLayout(bar)
        layout.addWidget(scroll, 1)
        self.png_button.clicked.connect(lambda: self._export_dialog(".png"))
        self.pdf_button.clicked.connect(lambda: self._export_dialog(".pdf"))

    def export(self, path: str | Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        self.page.adjustSize()
        if path.suffix.lower() == ".png":
            if not self.page.grab().save(str(path)):
                raise OSError(f"could not write {path}")
        elif path.suffix.lower() == ".pdf":
            writer = QPdfWriter(str(path))
            writer.setPageLayout(
                QPageLayout(
                    QPageSize(QPageSize.PageSizeId.A4),
                    QPageLayout.Orientation.Portrait,
                    QMarginsF(12, 12, 12, 12),
                )
            )
            writer.setResolution(150)
            painter = QPainter(writer)
            try:
                target = painter.viewport().size()
                size: QSize = self.page.size()
                scale = min(target.width() / size.width(), target.height() / size.height())
                painter.scale(scale, scale)
                self.page.render(painter, QPoint(0, 0))
            finally:
                painter.end()
        else:
            raise ValueError(f"{path.name}: the summary exports as .png or .pdf")
        return path

    def _export_dialog(self, suffix: str) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self, self.tr("Export summary"), f"summary{suffix}", f"*{suffix}"
        )
        if path:
            self.export(path)
