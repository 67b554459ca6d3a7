"""The stakeholder summary as a paginated document: one layout for the app, the PNG and the PDF.

`SummaryDocument` words a `SummaryReport` (core/history/summary.py) in the UI's language and lays it
out on pages of a paper size (A4 or Letter) in logical units 1000 wide; the view, the PNG and
the PDF all paint those same pages, so what the app shows is what the file holds.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from PySide6.QtCore import (
    QT_TRANSLATE_NOOP,
    QCoreApplication,
    QDateTime,
    QLocale,
    QRectF,
    QSizeF,
    Qt,
)
from PySide6.QtGui import QColor, QFontMetricsF, QPageSize, QPainter, QPen, QTextDocument

from workbench.core.foundation.token_counts import tokens_label
from workbench.core.history.conclusions import conclude, winners
from workbench.core.history.summary import ModelRow, SummaryReport
from workbench.core.load.capacity_report import sentence_line
from workbench.ui.colors import model_colors
from workbench.ui.summary_charts import (
    FAILED_COLOR,
    TEXT_COLOR,
    Bar,
    ChartText,
    Series,
    draw_bars,
    draw_lines,
    font,
)
from workbench.ui.summary_sentences import (
    esc,
    failure_sentence,
    keep_units,
    sentence,
    source_sentence,
    stopped_sentence,
    where,
    winners_sentence,
)

PAGE_WIDTH = 1000.0
MARGIN = 48.0
CHART_HEIGHT = 330.0
ROW_HEIGHT = 26.0
PAPERS = {"A4": QPageSize.PageSizeId.A4, "Letter": QPageSize.PageSizeId.Letter}


translate = QCoreApplication.translate


def default_paper() -> str:
    """Letter where it is the usual paper (the US, Canada, Mexico, the Philippines); else A4."""
    letter = {QLocale.Country.UnitedStates, QLocale.Country.Canada, QLocale.Country.Mexico,
              QLocale.Country.Philippines}  # fmt: skip
    return "Letter" if QLocale().territory() in letter else "A4"


def page_height(paper: str) -> float:
    size = QPageSize(PAPERS[paper]).size(QPageSize.Unit.Point)
    return PAGE_WIDTH * size.height() / size.width()


Painter = Callable[[QPainter, QRectF], None]


@dataclass
class Block:
    height: float
    paint: Painter
    texts: tuple[str, ...] = ()
    repeat_header: bool = False  # a table row: a new page repeats the table's header first
    table_header: bool = False
    document: QTextDocument | None = None  # a block of text: its lines as laid out


def _rich_block(html: str, width: float, pixels: float, texts: tuple[str, ...]) -> Block:
    doc = QTextDocument()
    doc.setDefaultFont(font(pixels))
    doc.setDefaultStyleSheet(f"body {{ color: {TEXT_COLOR}; }}")
    doc.setDocumentMargin(0)
    doc.setHtml(f"<body>{keep_units(html)}</body>")
    doc.setTextWidth(width)

    def paint(painter: QPainter, rect: QRectF) -> None:
        painter.save()
        painter.translate(rect.topLeft())
        doc.drawContents(painter, QRectF(0, 0, rect.width(), rect.height()))
        painter.restore()

    return Block(doc.size().height() + 6, paint, texts, document=doc)


def _plain(html: str) -> str:
    doc = QTextDocument()
    doc.setHtml(html)
    return doc.toPlainText()


class SummaryDocument:
    """The worded, laid-out page(s) of one report."""

    def __init__(self, report: SummaryReport, baseline: str | None = None) -> None:
        self.report = report
        self.baseline = baseline
        self.colors = dict(
            zip(report.models, model_colors([self._named(m) for m in report.models]), strict=True)
        )
        several = self.several_levels = len(report.concurrency_levels) > 1
        # a capacity search's steps are rows of their own; the words compare each model's at
        # its charted rate (its capacity), as the charts do
        said = report.charted_rows() if report.several_rates else list(report.rows)
        cells = [r.cell for r in said]
        self.conclusions = [winners_sentence(w, several) for w in winners(cells)]
        self.conclusions += [sentence(c, several) for c in conclude(cells, baseline)]
        self.conclusions += [failure_sentence(r, several) for r in said if r.cell.errors]
        self.conclusions += [stopped_sentence(r, several) for r in said if r.cell.stopped]
        self.conclusions += [  # an imported row's figures: the file's, or derived
            source_sentence(r, where(r.cell.prompt_tokens_target, r.cell.concurrency, several))
            for r in said
            if r.cell.reported_by
        ]
        self._pages: dict[str, list[list[tuple[Block, float]]]] = {}

    def _named(self, model: str) -> tuple[str, str]:
        row = next((r for r in self.report.rows if r.cell.model == model), None)
        return (row.cell.provider if row else "", model)

    # ---- words ----

    def title(self) -> str:
        names = translate("SummaryPage", " vs ").join(self.report.models)
        names = names or translate("SummaryPage", "no measured requests")
        if self.report.is_sweep:
            return translate("SummaryPage", "Prompt-length sweep: %1").replace("%1", names)
        return translate("SummaryPage", "Model comparison: %1").replace("%1", names)

    def subtitle(self) -> list[str]:
        r = self.report
        when = QDateTime.fromSecsSinceEpoch(int(r.started_at or time.time()))
        date = QLocale().toString(when, translate("SummaryPage", "d MMMM yyyy, HH:mm"))
        lengths = ", ".join(tokens_label(n) for n in r.prompt_lengths) or "–"
        counted = ""
        if r.prompt_tokens_median:
            counted = translate("SummaryPage", " (servers counted a median of %1)").replace(
                "%1", f"{r.prompt_tokens_median:,.0f}"
            )
        lines = [
            translate("SummaryPage", "%1 · prompt length %2 tokens%3")
            .replace("%1", date)
            .replace("%2", lengths)
            .replace("%3", counted),
            self._endpoint_line(),
            translate(
                "SummaryPage",
                "Medians over up to %1 request(s) per model and length; decode tok/s excludes "
                "the time to first token. Run %2, measured with Attention Workbench.",
            )
            .replace("%1", str(r.repeats))
            .replace("%2", r.run_id[:12] or "–"),
        ]
        if not r.own_runs and r.imported_from:  # another tool measured it: say which, and where
            lines[2] = (
                translate(
                    "SummaryPage",
                    "Medians over up to %1 request(s) per model and length; decode tok/s "
                    "excludes the time to first token. Run %2, imported from %3.",
                )
                .replace("%1", str(r.repeats))
                .replace("%2", r.run_id[:12] or "–")
                .replace("%3", self._sources(r.imported_from))
            )
        level = r.concurrency_levels[0] if len(r.concurrency_levels) == 1 else 0
        if level > 1:  # one load, but not one request at a time: say which
            lines.append(
                translate(
                    "SummaryPage", "Concurrency %1: up to %1 requests in flight at once."
                ).replace("%1", str(level))
            )
        if self.several_levels:  # each level its own rows, never pooled; the charts show one
            lines[2] = (
                translate(
                    "SummaryPage",
                    "Concurrency %1: medians over up to %2 request(s) per model, length and "
                    "concurrency; the charts show concurrency %3. Decode tok/s excludes the time "
                    "to first token. Run %4, measured with Attention Workbench.",
                )
                .replace("%1", ", ".join(str(n) for n in r.concurrency_levels))
                .replace("%2", str(r.repeats))
                .replace("%3", str(r.charted_level))
                .replace("%4", r.run_id[:12] or "–")
            )
        return lines

    def _endpoint_line(self) -> str:
        """The servers measured; an imported file that names none is said as such."""
        r = self.report
        named = list(r.endpoints)
        if r.no_endpoint:
            named.append(
                translate("SummaryPage", "none stated in %1").replace(
                    "%1", self._sources(r.no_endpoint)
                )
            )
        if len(named) <= 1:
            return translate("SummaryPage", "Endpoint: %1").replace("%1", "".join(named) or "–")
        return translate("SummaryPage", "Endpoints: %1").replace("%1", ", ".join(named))

    @staticmethod
    def _sources(files: Sequence[tuple[str, str]]) -> str:
        """ "a.json by vllm, b.json by guidellm" """
        return ", ".join(
            translate("SummaryPage", "%1 by %2").replace("%1", name).replace("%2", tool)
            for name, tool in dict.fromkeys(files)
        )

    def texts(self) -> list[str]:
        """Every string the page shows, as plain text (for tests and accessibility)."""
        out: list[str] = []
        for page in self.pages("A4"):
            for block, _y in page:
                out += block.texts
        return out

    # ---- blocks ----

    def _header(self, width: float) -> list[Block]:
        title = self.title()
        subtitle = self.subtitle()
        html = f"<div style='font-size:26px; font-weight:700'>{esc(title)}</div>"
        html += "".join(
            f"<div style='color:#5d6d7e; font-size:13px; margin-top:3px'>{esc(s)}</div>"
            for s in subtitle
        )
        return [_rich_block(html, width, 13, (title, *subtitle))]

    def _conclusion_block(self, width: float) -> Block:
        if self.conclusions:
            html = "".join(f"<p style='margin-bottom:5px'>{s}</p>" for s in self.conclusions)
            plain = tuple(_plain(s) for s in self.conclusions)
        else:
            empty = translate(
                "SummaryPage", "Run a comparison of at least two models to see a conclusion."
            )
            # a paragraph of its own: bare text after the heading ran into it in the PDF's text
            html, plain = f"<p style='margin-bottom:5px'>{esc(empty)}</p>", (empty,)
        heading = translate("SummaryPage", "Conclusion")
        html = f"<div style='font-size:17px; font-weight:700'>{esc(heading)}</div>" + html
        return _rich_block(html, width, 15, (heading, *plain))

    def _legend(self, width: float) -> Block:
        names = [(m, self.report.attention.get(m)) for m in self.report.models]
        labels = [f"{m} ({a})" if a else m for m, a in names]
        metrics = QFontMetricsF(font(13))
        items = [metrics.horizontalAdvance(label) + 40 for label in labels]
        rows, x = 1, 0.0
        for w in items:
            if x and x + w > width:
                rows, x = rows + 1, 0.0
            x += w

        def paint(painter: QPainter, rect: QRectF) -> None:
            painter.setFont(font(13))
            x, y = rect.left(), rect.top()
            for (model, _a), label, w in zip(names, labels, items, strict=True):
                if x > rect.left() and x + w > rect.right():
                    x, y = rect.left(), y + 22
                painter.fillRect(QRectF(x, y + 4, 22, 12), QColor(self.colors[model]))
                painter.setPen(QColor(TEXT_COLOR))
                painter.drawText(
                    QRectF(x + 28, y, w - 28, 20), Qt.AlignmentFlag.AlignVCenter, label
                )
                x += w

        return Block(rows * 22 + 8, paint, tuple(labels))

    def _charts(self, width: float) -> Block:
        r = self.report
        charts = self._chart_specs()
        gap = 24.0
        each = (width - gap * (len(charts) - 1)) / len(charts)

        def paint(painter: QPainter, rect: QRectF) -> None:
            for i, (text, figure) in enumerate(charts):
                area = QRectF(rect.left() + i * (each + gap), rect.top(), each, CHART_HEIGHT)
                if r.is_sweep:
                    draw_lines(painter, area, text, self._series(figure), r.prompt_lengths)
                else:
                    draw_bars(painter, area, text, self._bars(figure))

        texts = tuple(t for text, _f in charts for t in (text.title, text.y_label, text.x_label))
        return Block(CHART_HEIGHT + 14, paint, texts + tuple(r.models))

    def _chart_specs(self) -> list[tuple[ChartText, str]]:
        x = (
            translate("SummaryPage", "prompt length (tokens, log scale)")
            if self.report.is_sweep
            else translate("SummaryPage", "model")
        )
        if self.several_levels:
            x = translate("SummaryPage", "%1, at concurrency %2").replace("%1", x)
            x = x.replace("%2", str(self.report.charted_level))
        failed = translate("SummaryPage", "failed: %1")
        return [
            (
                ChartText(
                    translate("SummaryPage", "Time to first token"),
                    translate("SummaryPage", "TTFT (ms)"),
                    x,
                    failed,
                ),
                "ttft_ms",
            ),
            (
                ChartText(
                    translate("SummaryPage", "Decode speed"),
                    translate("SummaryPage", "decode (tokens/s)"),
                    x,
                    failed,
                ),
                "decode_tps",
            ),
        ]

    def _bars(self, figure: str) -> list[Bar]:
        length = self.report.prompt_lengths[0] if self.report.prompt_lengths else 0
        bars = []
        for model in self.report.models:
            row = self.report.row(model, length)
            value = row.cell.median(figure) if row else None
            classes = ", ".join(row.cell.error_classes) if row else ""
            stopped = row is not None and row.cell.stopped > 0 and not row.cell.errors
            failure = (
                translate("SummaryPage", "stopped")
                if stopped
                else translate("SummaryPage", "failed: %1").replace(
                    "%1", classes or translate("SummaryPage", "no answer")
                )
            )
            bars.append(Bar(model, self.colors[model], value, failure, stopped))
        return bars

    def _series(self, figure: str) -> list[Series]:
        out = []
        for model in self.report.models:
            points, failed = [], []
            for n in self.report.prompt_lengths:
                row = self.report.row(model, n)
                if row is None:
                    continue
                agg = row.cell.figures[figure]
                if agg.median is None:
                    if row.cell.errors:  # a length only stopped is no failure: no cross
                        failed.append(n)
                    continue
                low = agg.p10 if agg.p10 is not None else agg.median
                high = agg.p90 if agg.p90 is not None else agg.median
                points.append((n, agg.median, low, high))
            out.append(Series(model, self.colors[model], tuple(points), tuple(failed)))
        return out

    # ---- the table ----

    COLUMNS = (
        (QT_TRANSLATE_NOOP("SummaryPage", "model"), 0.25),
        (QT_TRANSLATE_NOOP("SummaryPage", "attention"), 0.09),
        (QT_TRANSLATE_NOOP("SummaryPage", "prompt"), 0.08),
        (QT_TRANSLATE_NOOP("SummaryPage", "ok / failed / stopped"), 0.1),
        (QT_TRANSLATE_NOOP("SummaryPage", "TTFT ms"), 0.1),
        (QT_TRANSLATE_NOOP("SummaryPage", "decode tok/s"), 0.12),
        (QT_TRANSLATE_NOOP("SummaryPage", "prefill tok/s"), 0.12),
        (QT_TRANSLATE_NOOP("SummaryPage", "$ / request"), 0.14),
    )

    @property
    def columns(self) -> tuple[tuple[str, float], ...]:
        """The table's columns: a concurrency column where the run measured several levels, a
        rate column where it offered several rates (a capacity search's steps)."""
        extra = []
        if self.several_levels:
            extra.append((QT_TRANSLATE_NOOP("SummaryPage", "concurrency"), 0.1))
        if self.report.several_rates:
            extra.append((QT_TRANSLATE_NOOP("SummaryPage", "req/s"), 0.07))
        if not extra:
            return self.COLUMNS
        model = ("model", self.COLUMNS[0][1] - sum(w for _n, w in extra))
        return (model, *self.COLUMNS[1:3], *extra, *self.COLUMNS[3:])

    def _table_header(self) -> Block:
        names = [translate("SummaryPage", name) for name, _w in self.columns]

        def paint(painter: QPainter, rect: QRectF) -> None:
            painter.setFont(font(12, bold=True))
            painter.setPen(QColor(TEXT_COLOR))
            self._cells(painter, rect, names)
            painter.setPen(QPen(QColor("#85929e"), 1))
            painter.drawLine(rect.bottomLeft(), rect.bottomRight())

        return Block(ROW_HEIGHT, paint, tuple(names), table_header=True)

    def _cells(self, painter: QPainter, rect: QRectF, values: list[str]) -> None:
        x = rect.left()
        for (_name, share), value in zip(self.columns, values, strict=True):
            w = rect.width() * share
            align = Qt.AlignmentFlag.AlignVCenter | (
                Qt.AlignmentFlag.AlignLeft if x == rect.left() else Qt.AlignmentFlag.AlignRight
            )
            cell = QRectF(x + 4, rect.top(), w - 8, ROW_HEIGHT)
            text = painter.fontMetrics().elidedText(value, Qt.TextElideMode.ElideRight, int(w - 8))
            painter.drawText(cell, align, text)
            x += w

    def _table_row(self, row: ModelRow, width: float) -> Block:
        c = row.cell
        values = [
            c.model,
            c.attention or "",
            tokens_label(c.prompt_tokens_target),
            f"{c.n} / {c.errors} / {c.stopped}",
            _fmt(c.median("ttft_ms"), 0),
            _fmt(c.median("decode_tps"), 1),
            _fmt(c.median("prefill_tps"), 0),
            _fmt(c.median("cost_usd"), 5),
        ]
        if self.report.several_rates:
            values.insert(3, c.rate_text)
        if self.several_levels:
            values.insert(3, str(c.concurrency))
        reason = (
            translate("SummaryPage", "Failed: %1").replace("%1", row.reason) if row.reason else ""
        )
        metrics = QFontMetricsF(font(12))
        flags = int(Qt.TextFlag.TextWordWrap)
        reason_h = (
            metrics.boundingRect(QRectF(0, 0, width - 40, 1000), flags, reason).height() + 6
            if reason
            else 0.0
        )
        color = self.colors.get(c.model, TEXT_COLOR)

        def paint(painter: QPainter, rect: QRectF) -> None:
            painter.fillRect(QRectF(rect.left(), rect.top() + 6, 4, ROW_HEIGHT - 12), QColor(color))
            painter.setFont(font(12))
            painter.setPen(QColor(TEXT_COLOR))
            self._cells(painter, QRectF(rect.left() + 8, rect.top(), rect.width() - 8, 0), values)
            if reason:
                painter.setPen(QColor(FAILED_COLOR))
                box = QRectF(rect.left() + 30, rect.top() + ROW_HEIGHT, width - 40, reason_h)
                painter.drawText(box, flags, reason)
            painter.setPen(QPen(QColor("#e5e8e8"), 1))
            painter.drawLine(rect.bottomLeft(), rect.bottomRight())

        texts = tuple(values) + ((reason,) if reason else ())
        return Block(ROW_HEIGHT + reason_h, paint, texts, repeat_header=True)

    # ---- pages ----

    def _capacity_block(self, width: float) -> list[Block]:
        """A capacity search's answer, the page's first words (core/load/capacity_report.py)."""
        capacity = self.report.capacity
        said = sentence_line(capacity, translate) if capacity else ""
        if not said:
            return []
        html = f"<div style='font-size:19px; font-weight:700'>{esc(said)}</div>"
        return [_rich_block(html, width, 15, (said,))]

    def blocks(self, width: float) -> list[Block]:
        blocks = self._capacity_block(width) + self._header(width)
        blocks.append(self._conclusion_block(width))
        if self.report.models:
            blocks.append(self._legend(width))
            blocks.append(self._charts(width))
            blocks.append(self._table_header())
            blocks += [self._table_row(r, width) for r in self.report.rows]
        return blocks

    def pages(self, paper: str) -> list[list[tuple[Block, float]]]:
        """Blocks placed on pages of `paper`: (block, y) in logical units, page by page."""
        if paper not in self._pages:
            self._pages[paper] = self._paginate(paper)
        return self._pages[paper]

    def _paginate(self, paper: str) -> list[list[tuple[Block, float]]]:
        width = PAGE_WIDTH - 2 * MARGIN
        bottom = page_height(paper) - MARGIN - 24  # the footer lives below
        pages: list[list[tuple[Block, float]]] = [[]]
        y = MARGIN
        header: Block | None = None
        for block in self.blocks(width):
            if block.table_header:
                header = block
            if y + block.height > bottom and pages[-1]:
                pages.append([])
                y = MARGIN
                if block.repeat_header and header is not None:
                    pages[-1].append((header, y))
                    y += header.height
            pages[-1].append((block, y))
            y += block.height + 10
        return pages

    def paint_page(self, painter: QPainter, paper: str, index: int) -> None:
        """Page `index` in logical units (0..1000 wide): white paper, blocks, footer."""
        pages = self.pages(paper)
        height = page_height(paper)
        painter.fillRect(QRectF(0, 0, PAGE_WIDTH, height), Qt.GlobalColor.white)
        width = PAGE_WIDTH - 2 * MARGIN
        for block, y in pages[index]:
            block.paint(painter, QRectF(MARGIN, y, width, block.height))
        painter.setFont(font(11))
        painter.setPen(QColor("#85929e"))
        footer = (
            translate("SummaryPage", "Attention Workbench — page %1 of %2")
            .replace("%1", str(index + 1))
            .replace("%2", str(len(pages)))
        )
        painter.drawText(
            QRectF(MARGIN, height - MARGIN, width, 20), Qt.AlignmentFlag.AlignRight, footer
        )

    def page_size(self, paper: str) -> QSizeF:
        return QSizeF(PAGE_WIDTH, page_height(paper))


def _fmt(v: float | None, digits: int) -> str:
    return "–" if v is None else f"{v:,.{digits}f}"


def render_pdf(document: SummaryDocument, path: str, paper: str) -> int:
    """Write every page to a PDF of `paper`; returns the page count."""
    from PySide6.QtCore import QMarginsF
    from PySide6.QtGui import QPageLayout, QPdfWriter

    writer = QPdfWriter(path)
    writer.setTitle(document.title())
    writer.setCreator("Attention Workbench")
    writer.setResolution(300)
    writer.setPageLayout(
        QPageLayout(QPageSize(PAPERS[paper]), QPageLayout.Orientation.Portrait, QMarginsF())
    )
    pages = document.pages(paper)
    painter = QPainter()
    if not painter.begin(writer):
        raise OSError(f"could not write {path}")
    try:
        scale = writer.width() / PAGE_WIDTH
        for index in range(len(pages)):
            if index:
                writer.newPage()
            painter.save()
            painter.scale(scale, scale)
            document.paint_page(painter, paper, index)
            painter.restore()
    finally:
        painter.end()
    return len(pages)


PNG_SCALE = 1.6
PNG_GAP = 16


def render_png(document: SummaryDocument, path: str, paper: str) -> int:
    """Every page, one under the other, in one PNG 1,600 px wide; returns the page count."""
    from PySide6.QtGui import QImage

    pages = document.pages(paper)
    page_h = page_height(paper) * PNG_SCALE
    width = int(PAGE_WIDTH * PNG_SCALE)
    height = int(page_h * len(pages) + PNG_GAP * (len(pages) - 1))
    image = QImage(width, height, QImage.Format.Format_RGB32)
    image.fill(QColor("#aab7b8"))
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
    try:
        for index in range(len(pages)):
            painter.save()
            painter.translate(0, index * (page_h + PNG_GAP))
            painter.scale(PNG_SCALE, PNG_SCALE)
            document.paint_page(painter, paper, index)
            painter.restore()
    finally:
        painter.end()
    if not image.save(path):
        raise OSError(f"could not write {path}")
    return len(pages)
