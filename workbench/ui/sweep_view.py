"""The sweep view: TTFT, prefill tok/s and decode tok/s against prompt length, filling in live.

One median line per model with a p10-p90 band over repeats; log-scale x (prompt tokens).
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QT_TRANSLATE_NOOP, Qt, QTimer, Signal
from PySide6.QtGui import QHideEvent, QShowEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from workbench.core.foundation.imported_figures import ImportedFigures
from workbench.core.foundation.results import RequestResult
from workbench.core.foundation.token_counts import tokens_label
from workbench.core.history.summary import CellSummary, shown_model
from workbench.core.planning.run_plan import MAX_CONCURRENCY
from workbench.ui.chart_export import ExportableChart
from workbench.ui.colors import model_colors
from workbench.ui.retranslate import Retranslating
from workbench.ui.sliced import LARGE, Latest, Steps, finish, summarize_in_steps
from workbench.ui.theme import chart_colors, status_color

SWEEP_LENGTHS = (1024, 4096, 16384, 32768, 65536, 131072, 262144, 1048576)
DEFAULT_CHECKED = (1024, 4096, 16384, 32768, 65536)
FIGURES = (
    ("ttft_ms", QT_TRANSLATE_NOOP("SweepView", "Time to first token"),
     QT_TRANSLATE_NOOP("SweepView", "TTFT (ms)")),
    ("prefill_tps", QT_TRANSLATE_NOOP("SweepView", "Prefill speed"),
     QT_TRANSLATE_NOOP("SweepView", "prefill (tokens/s)")),
    ("decode_tps", QT_TRANSLATE_NOOP("SweepView", "Decode speed"),
     QT_TRANSLATE_NOOP("SweepView", "decode (tokens/s)")),
)  # fmt: skip


REDRAW_MS = 250
Cells = list[tuple[int, CellSummary]]  # (x, cell) per model and x
# imported runs' points: hollow diamonds in colours the models' palette (colors.py) leaves free
IMPORTED_COLORS = ("#7f7f7f", "#17becf", "#bcbd22", "#e377c2")


class SweepView(Retranslating, QWidget):
    run_requested = Signal(list, int, list)  # lengths, repeats, concurrency levels
    stop_requested = Signal()

    def __init__(self, session: object | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.results: list[RequestResult] = []
        self.order: list[str] = []  # models in the panes' order, for the legend and colours
        self.imported: list[ImportedFigures] = []  # runs imported with aggregates only
        # the rows' summaries, once per change of the rows, not once per figure and model:
        # (rows' key, axis, cells); a large set is summarised in slices (sliced.py)
        self._summaries: tuple[tuple[int, int], str, Cells] | None = None
        self._generation = 0  # which list of rows `results` is: set_results starts another
        self.summarizing: Latest[tuple[tuple[int, int], str, Cells]] = Latest()
        self.length_boxes: dict[int, QCheckBox] = {}
        controls = QHBoxLayout()
        self.lengths_label, self.repeats_label = QLabel(), QLabel()
        self.concurrency_label = QLabel()
        controls.addWidget(self.lengths_label)
        for n in SWEEP_LENGTHS:
            box = QCheckBox(tokens_label(n))
            box.setChecked(n in DEFAULT_CHECKED)
            self.length_boxes[n] = box
            controls.addWidget(box)
        controls.addSpacing(12)
        controls.addWidget(self.repeats_label)
        self.repeats = QSpinBox()
        self.repeats.setRange(1, 100)
        self.repeats.setValue(3)
        controls.addWidget(self.repeats)
        controls.addWidget(self.concurrency_label)
        self.concurrency = QLineEdit("1")
        self.concurrency.setMaximumWidth(90)
        controls.addWidget(self.concurrency)
        self.run_button, self.cancel_button = QPushButton(), QPushButton()
        self.cancel_button.setEnabled(False)
        controls.addWidget(self.run_button)
        controls.addWidget(self.cancel_button)
        controls.addStretch(1)
        self.status = QLabel()
        self.status.setWordWrap(True)  # a long progress line (its Chinese too) wraps, never cut
        plots = QHBoxLayout()
        self.plots: dict[str, pg.PlotWidget] = {}
        self.charts: list[ExportableChart] = []
        self.legend = QLabel()
        self.legend.setObjectName("sweepLegend")
        self.legend.setWordWrap(True)
        for key, _title, _unit in FIGURES:
            plot = pg.PlotWidget(title=" ")
            plot.showGrid(x=True, y=True, alpha=0.2)
            plot.setMinimumSize(220, 200)
            axis = plot.getAxis("bottom")
            axis.setTicks([[(math.log10(n), tokens_label(n)) for n in SWEEP_LENGTHS]])
            self.plots[key] = plot
            self.charts.append(ExportableChart(f"sweep_{key}", plot))
            plots.addWidget(plot)
        # the progress beside the legend, not at the end of the controls: at 1024 px the
        # controls leave it a few characters a line
        legend_row = QHBoxLayout()
        legend_row.addWidget(self.legend, 3)
        legend_row.addWidget(self.status, 1)
        self.status.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        layout = QVBoxLayout(self)
        layout.addLayout(controls)
        layout.addLayout(legend_row)
        layout.addLayout(plots, 1)
        self.run_button.clicked.connect(self._on_run)
        self.cancel_button.clicked.connect(self.stop_requested.emit)
        # results arrive in bursts (8 panes finish together); one redraw per burst, and none
        # while the tab is hidden
        self._stale = False
        self._redraw_timer = QTimer(self)
        self._redraw_timer.setSingleShot(True)
        self._redraw_timer.setInterval(REDRAW_MS)
        self._redraw_timer.timeout.connect(self.refresh)
        self._progress: tuple[int, int, float | None] | None = None  # worded again on a switch
        self.retranslate()

    def retranslate(self) -> None:
        """Every text of the tab and its charts in the language installed."""
        self.lengths_label.setText(self.tr("Prompt lengths:"))
        self.repeats_label.setText(self.tr("repeats"))
        self.concurrency_label.setText(self.tr("concurrency"))
        self.concurrency.setAccessibleName(self.tr("Concurrency levels"))
        self.concurrency.setToolTip(
            self.tr(
                "Requests in flight per model; several levels (1,4,16) run in turn and the "
                "charts show concurrency on the x axis"
            )
        )
        self.run_button.setText(self.tr("Run sweep"))
        if self._progress is not None:
            self.set_progress(*self._progress)
        self.cancel_button.setText(self.tr("Cancel"))
        foreground = chart_colors(self.palette())[1].name()
        for key, title, unit in FIGURES:
            self.plots[key].setTitle(self.tr(title), color=foreground)
            self.plots[key].setLabel("left", self.tr(unit))
        self._set_axis([])  # the x axis' label; a redraw sets its range again
        self.restyle()

    def check_lengths(self, low: int, high: int) -> None:
        """Check the lengths from low to high, uncheck the others (a preset's sweep)."""
        for n, box in self.length_boxes.items():
            box.setChecked(low <= n <= high)

    def lengths(self) -> list[int]:
        return [n for n, box in self.length_boxes.items() if box.isChecked()]

    def levels(self) -> list[int] | None:
        """The concurrency levels typed (1,4,16), or None when they are not numbers in range."""
        try:
            levels = [int(part) for part in self.concurrency.text().split(",") if part.strip()]
        except ValueError:
            return None
        ok = levels and all(1 <= n <= MAX_CONCURRENCY for n in levels)
        return sorted(set(levels)) if ok else None

    def _on_run(self) -> None:
        lengths, levels = self.lengths(), self.levels()
        if not lengths:
            self.status.setText(self.tr("Pick at least one prompt length."))
        elif levels is None:
            self.status.setText(
                self.tr(
                    "Concurrency: type levels from 1 to %1 separated by commas, e.g. 1,4,16."
                ).replace("%1", str(MAX_CONCURRENCY))
            )
        else:
            self.run_requested.emit(lengths, self.repeats.value(), levels)

    def set_running(self, running: bool) -> None:
        self.run_button.setEnabled(not running)
        self.cancel_button.setEnabled(running)
        if not running and self.isVisible():
            self.refresh()  # hidden, it redraws when shown

    def set_progress(self, done: int, total: int, eta: float | None) -> None:
        self._progress = (done, total, eta)
        eta_text = "" if eta is None else self.tr(", ETA %1 s").replace("%1", f"{eta:.0f}")
        self.status.setText(
            self.tr("%1 of %2 requests%3")
            .replace("%1", str(done))
            .replace("%2", str(total))
            .replace("%3", eta_text)
        )

    def clear(self) -> None:
        self.results = []
        self._generation += 1
        self.summarizing.cancel()
        self.imported.clear()
        self._stale = True
        self.flush()

    def set_results(self, results: Sequence[RequestResult]) -> None:
        """Show these rows instead (a run's, read from the history); drawn when next shown."""
        self.results = list(results)
        self._generation += 1
        self.summarizing.cancel()  # summaries of the rows before are of no use
        self._stale = True
        if self.isVisible():
            self.refresh()

    def add_imported(self, figures: Sequence[ImportedFigures]) -> None:
        """Runs imported without per-request rows: their own medians, as points of their own."""
        known = {f.run_id for f in self.imported}
        self.imported += [f for f in figures if f.run_id not in known]
        self._stale = True
        if self.isVisible():
            self.refresh()

    def add(self, result: RequestResult) -> None:
        self.results.append(result)
        self._stale = True
        if self.isVisible() and not self._redraw_timer.isActive():
            self._redraw_timer.start()

    def extend(self, results: Sequence[RequestResult]) -> None:
        """Rows that join those drawn (an imported run's): drawn at once when they are few;
        many are summarised in slices between the window's events, once the tab is shown."""
        self.results += results
        self._stale = True
        if self.isVisible() or len(self.results) < LARGE:
            self.refresh()

    def flush(self) -> None:
        """Draw the results added since the last redraw, now (before an export, say)."""
        self._redraw_timer.stop()
        if self._stale:
            self.summarizing.cancel()  # every row, now: slices in flight are dropped
            self._stale = False
            self._redraw()

    def refresh(self) -> None:
        """Draw what changed: at once when the rows are few or summarised already; else once
        they are summarised, in slices (the window keeps painting meanwhile)."""
        self._redraw_timer.stop()
        if not self._stale or self.summarizing.pending:
            return  # the summaries in flight look again when they are made
        key = self._rows_key()
        if self._summaries is not None and self._summaries[0] == key:
            self.flush()
            return
        rows = list(self.results)

        def keyed() -> Steps[tuple[tuple[int, int], str, Cells]]:
            axis, cells = yield from summaries(rows)
            return key, axis, cells

        self.summarizing.run(keyed, len(rows), self._summarized)

    def _summarized(self, value: tuple[tuple[int, int], str, Cells]) -> None:
        """Sliced summaries made: drawn, though rows came meanwhile (a live sweep's rows may
        come faster than thousands are summarised); those are summarised next."""
        self._summaries = value
        self._stale = False
        self._redraw()
        if value[0] != self._rows_key():
            self._stale = True
            self._redraw_timer.start()

    def _rows_key(self) -> tuple[int, int]:
        # rows are only ever added to a list, or the list replaced (a new generation)
        return (self._generation, len(self.results))

    def restyle(self) -> None:
        """A theme switch: the failure marks are drawn again in the new palette's colour."""
        self._stale = True
        if self.isVisible():
            self.refresh()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.refresh()

    def hideEvent(self, event: QHideEvent) -> None:
        self._redraw_timer.stop()  # flushed when shown again
        super().hideEvent(event)

    def _summarised(self) -> tuple[str, Cells]:
        """The axis and cells drawn: while rows are summarised in slices, the last made; else
        those of the rows as they are now (summarised here when not yet)."""
        key = self._rows_key()
        in_flight = self.summarizing.pending and self._summaries is not None
        if not in_flight and (self._summaries is None or self._summaries[0] != key):
            self.summarizing.cancel()
            self._summaries = (key, *finish(summaries(self.results)))
        assert self._summaries is not None
        return self._summaries[1], self._summaries[2]

    @property
    def axis(self) -> str:
        """ "concurrency" for a sweep over concurrency levels at one prompt length (a
        --compare-route run, a load sweep), else "prompt" (tokens)."""
        return self._summarised()[0]

    def series(self, figure: str) -> dict[str, list[tuple[int, float, float, float]]]:
        """model -> [(x, median, p10, p90)] of a figure, for plots and tests; x is the prompt
        length, or the concurrency level when the axis is concurrency."""
        out: dict[str, list[tuple[int, float, float, float]]] = {}
        for x, cell in self._summarised()[1]:
            agg = cell.figures[figure]
            if agg.median is None:
                continue
            p10 = agg.p10 if agg.p10 is not None else agg.median
            p90 = agg.p90 if agg.p90 is not None else agg.median
            out.setdefault(cell.model, []).append((x, agg.median, p10, p90))
        return out

    def imported_series(self, figure: str) -> dict[str, list[tuple[float, float]]]:
        """label -> [(x, value)]: the aggregate-only imported runs' own medians (else means)."""
        out: dict[str, list[tuple[float, float]]] = {}
        for run in self.imported:
            x = run.concurrency if self.axis == "concurrency" else run.prompt_tokens
            value = run.value(figure) if figure in ("ttft_ms", "decode_tps") else None
            if x and value is not None:
                label = self.tr("%1 (imported from %2)").replace("%1", run.model)
                out.setdefault(label.replace("%2", run.tool), []).append((x, value))
        return out

    def _mark_failed(
        self, plot: pg.PlotWidget, model: str, color: str, shown: dict[str, str]
    ) -> None:
        """An x where every request of a model failed: a cross on the axis, not a gap."""
        failed = [x for x, c in self._summarised()[1]
                  if shown.get(c.model) == model and c.n == 0 and c.errors]  # fmt: skip
        if failed:
            plot.plot(
                np.log10(failed),
                [0.0] * len(failed),
                pen=None,
                symbol="x",
                symbolSize=18,
                symbolPen=pg.mkPen(status_color("failed", self.palette()), width=1),
                symbolBrush=color,
            )

    def _set_axis(self, xs: list[float]) -> None:
        """The x axis: its label and ticks for the axis in use, spanning the measured xs."""
        concurrency = self.axis == "concurrency"
        label = (
            self.tr("concurrency (requests in flight, log scale)")
            if concurrency
            else self.tr("prompt tokens (log scale)")
        )
        ticks = sorted(set(xs)) if concurrency else SWEEP_LENGTHS
        names = [str(int(x)) if concurrency else tokens_label(int(x)) for x in ticks]
        for plot in self.plots.values():
            plot.setLabel("bottom", label)
            axis = plot.getAxis("bottom")
            axis.setTicks([[(math.log10(x), n) for x, n in zip(ticks, names, strict=True)]])
            if xs:  # the x axis spans the measured xs, not the items' default origin
                lo, hi = math.log10(min(xs)), math.log10(max(xs))
                plot.setXRange(lo - 0.15, hi + 0.15, padding=0)

    def _draw_imported(self, plot: pg.PlotWidget, figure: str) -> float:
        """The imported runs' points: hollow diamonds, named as imported; returns the top."""
        top = 0.0
        for i, (label, points) in enumerate(sorted(self.imported_series(figure).items())):
            color = IMPORTED_COLORS[i % len(IMPORTED_COLORS)]
            plot.plot(
                np.log10([p[0] for p in points]),
                [p[1] for p in points],
                pen=None,
                symbol="d",
                symbolSize=12,
                symbolPen=pg.mkPen(color, width=2),
                symbolBrush=None,
                name=label,
            )
            top = max(top, *(p[1] for p in points))
        return top

    def _redraw(self) -> None:
        providers = {r.model: r.provider for r in self.results}
        # the panes' order, then any other model as it first finished
        models = list(dict.fromkeys([*self.order, *(r.model for r in self.results)]))
        models = [m for m in models if m in providers]
        colors = dict(zip(models, model_colors([(providers[m], m) for m in models]), strict=True))
        cells = self._summarised()[1]
        shown = {shown_model(r): r.model for r in self.results}  # a cell's model -> the row's
        repeats = max((c.n + c.errors for _x, c in cells), default=0)
        xs: list[float] = [x for x, _c in cells if x]
        for key, plot in self.plots.items():
            plot.clear()
            series = self.series(key)
            top = self._draw_imported(plot, key)
            xs += [x for points in self.imported_series(key).values() for x, _v in points]
            for model in models:
                self._mark_failed(plot, model, colors[model], shown)
                points = sorted(series.get(model, []))
                if not points:
                    continue
                top = max(top, self._draw_model(plot, model, colors[model], points))
            plot.setYRange(0, top * 1.08 if top > 0 else 1.0, padding=0)  # from zero
        self._set_axis(xs)
        imported = "".join(
            f"&nbsp;&nbsp; <span style='font-size:14px'>◇</span> {html.escape(label)}"
            for label in sorted({k for f, *_ in FIGURES for k in self.imported_series(f)})
        )
        swatches = "&nbsp;&nbsp; ".join(
            f"<span style='color:{colors[m]}; font-size:16px'>■</span> {html.escape(m)}"
            for m in models
        )
        if len({x for x, _c in cells}) == 1:  # one x: the spread is a bar (_draw_model)
            note = self.tr("line: median; bar: p10–p90 over %1 repeat(s)")
        else:
            note = self.tr("line: median; shaded: p10–p90 over %1 repeat(s)")
        note = note.replace("%1", str(repeats))
        if imported:
            note += self.tr("; ◇ imported: the file's own median (its mean where it has none)")
        text = f"{swatches}{imported}&nbsp;&nbsp;&nbsp; <i>{note}</i>" if models or imported else ""
        self.legend.setText(text)

    def _draw_model(
        self, plot: pg.PlotWidget, model: str, color: str, points: list[tuple]
    ) -> float:
        """One model's median line over its p10-p90 band; returns the band's top."""
        xs = np.log10([p[0] for p in points])
        if len(points) == 1 and points[0][2] != points[0][3]:
            # one x (a sweep of one length, or the first so far): a band there has no width
            # and pyqtgraph draws nothing, so the spread is a bar
            _x, median, p10, p90 = points[0]
            pen = pg.mkPen(color + "aa", width=3)
            plot.addItem(
                pg.ErrorBarItem(x=xs, y=np.array([median]), top=p90 - median,
                                bottom=median - p10, beam=0.04, pen=pen)
            )  # fmt: skip
        elif any(p[2] != p[3] for p in points):  # the band first: the line stays on top
            # its edges need a pen: pyqtgraph builds no path for a curve without one,
            # and the fill between two empty paths was an invisible band
            edge = pg.mkPen(color + "66", width=1)
            low = pg.PlotDataItem(xs, [p[2] for p in points], pen=edge)
            high = pg.PlotDataItem(xs, [p[3] for p in points], pen=edge)
            plot.addItem(pg.FillBetweenItem(low, high, brush=pg.mkBrush(color + "55")))
        plot.plot(
            xs,
            [p[1] for p in points],
            pen=pg.mkPen(color, width=2),
            symbol="o",
            symbolSize=6,
            symbolBrush=color,
            name=model,
        )
        return max(p[3] for p in points)


def summaries(results: Sequence[RequestResult]) -> Steps[tuple[str, Cells]]:
    """The axis of these rows, and (x, cell) per model and x: x is the prompt length, or the
    concurrency level for a sweep over levels at one length; in steps (sliced.py)."""
    measured = [r for r in results if not r.warmup]
    one_length = len({r.prompt_tokens_target for r in measured}) <= 1
    # an open-loop row's concurrency is its cap, 0 for none: a rate, not a level (a capacity
    # search's steps beside its floor of one at a time are no concurrency sweep)
    levels = sorted({r.concurrency for r in measured if r.concurrency > 0})
    if not (one_length and len(levels) > 1):
        cells = yield from summarize_in_steps(results)
        return "prompt", [(c.prompt_tokens_target, c) for c in cells]
    by_level: dict[int, list[RequestResult]] = {}
    for r in results:
        if r.concurrency > 0:
            by_level.setdefault(r.concurrency, []).append(r)
    out: Cells = []
    for level in sorted(by_level):
        out += [(level, cell) for cell in (yield from summarize_in_steps(by_level[level]))]
    return "concurrency", out
