"""Live charts of a comparison: cumulative tokens vs time, TTFT bars, decode tok/s bars.

TTFT is where a curve leaves zero and its slope is the decode rate. Repainted from the
session's frame timer, never per token.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor, QPalette
from PySide6.QtWidgets import QGraphicsItem, QHBoxLayout, QWidget

from workbench.ui.chart_export import ExportableChart
from workbench.ui.legend_place import MARGIN, place
from workbench.ui.panes_model import PaneModel, PaneState
from workbench.ui.retranslate import Retranslating
from workbench.ui.slot_axis import SlotAxis
from workbench.ui.theme import chart_colors, status_color

BAR_INTERVAL_S = 0.25
CURVE_INTERVAL_S = 0.1
# At most this many points per drawn curve (a plot is ~800 px wide): 8 panes at 200 tok/s
# reach 2,000 points each in 10 s, and drawing cost grows with points, not pixels.
CURVE_POINTS = 800
THICK_POINTS = 400


COARSE = (1, 2, 5, 10)
FINE = (1, 1.25, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10)  # bars: a bar should fill most of its plot


def _step_up(value: float, ladder: tuple[float, ...] = COARSE) -> float:
    """The next of 1, 2, 5, 10, 20, 50, ... (or of a finer ladder) at or above `value`."""
    step = 1.0
    while step > value > 0:  # sub-second runs: 0.1, 0.2, 0.5, ...
        step /= 10
    while step * 10 <= value:
        step *= 10
    for m in ladder:
        if step * m >= value:
            return step * m
    return step * 10


def cache_static_parts(plot: pg.PlotWidget) -> None:
    """Keep the axes (tick labels and grid) and the legend as pixmaps between their own changes.

    A grid makes each axis item span the whole plot, so every new curve point used to repaint
    both axes: re-playing their tick labels and grid lines cost ~6 ms per axis per frame.
    """
    for name in ("left", "bottom", "top", "right"):
        plot.getAxis(name).setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
    legend = plot.plotItem.legend
    if legend is not None:
        legend.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)


class LivePlots(Retranslating, QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.tokens_plot = pg.PlotWidget(title=" ")
        self.tokens_plot.showGrid(x=True, y=True, alpha=0.2)
        self.tokens_plot.addLegend(offset=(10, 10))
        # seconds stay seconds: below 1 s pyqtgraph rescaled the axis to "(x0.001)"
        self.tokens_plot.getAxis("bottom").enableAutoSIPrefix(False)
        self.ttft_plot, self.decode_plot = (
            pg.PlotWidget(title=" ", axisItems={"bottom": SlotAxis()}) for _ in range(2)
        )
        self._retitle()
        for plot in (self.ttft_plot, self.decode_plot):
            plot.showGrid(y=True, alpha=0.2)
            plot.getAxis("bottom").setStyle(tickTextOffset=4)
            plot.setMouseEnabled(x=False, y=False)
        for plot in (self.tokens_plot, self.ttft_plot, self.decode_plot):
            cache_static_parts(plot)
            plot.setAccessibleName(plot.getPlotItem().titleLabel.text)
        self._curves: list[pg.PlotDataItem] = []
        self._painted: dict[int, tuple[object, ...]] = {}
        self._bars_at = 0.0
        self._curves_at = 0.0
        self._curves_done: tuple[bool, ...] = ()
        self._range: tuple[float, float] = (0.0, 0.0)
        self._expected_tokens = 0.0
        self._bar_tops = [0.0, 0.0]
        self._bars_finished: tuple[bool, ...] = ()
        self._bars: list[pg.BarGraphItem] = []
        self._failures: list[list[pg.GraphicsObject]] = [[], []]  # per bar chart
        self._failure_keys: list[object] = [None, None]
        self.colors: list[str] = []
        # the scheme's palette, set at each switch: the widget's own follows only a few events
        # later, and failure labels drawn in between kept the old scheme's box
        self.scheme: QPalette | None = None
        self._legend_at = (MARGIN, MARGIN)  # the legend's top-left, px within the view
        # the axes grow (and the view shrinks as tick labels widen) after a curve finishes:
        # the legend is placed again for the view the points end up in
        view = self.tokens_plot.plotItem.vb
        view.sigRangeChanged.connect(self._place_legend)
        view.sigResized.connect(self._place_legend)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.tokens_plot, 2)
        layout.addWidget(self.ttft_plot, 1)
        layout.addWidget(self.decode_plot, 1)
        self.charts = [
            ExportableChart("tokens_vs_time", self.tokens_plot),
            ExportableChart("ttft", self.ttft_plot),
            ExportableChart("decode_tps", self.decode_plot),
        ]

    def set_panes(self, labels: Sequence[str], colors: Sequence[str]) -> None:
        """One curve and one bar per pane, in the pane's model colour, named by its model."""
        self.colors = list(colors)
        legend = self.tokens_plot.plotItem.legend
        for curve in self._curves:
            self.tokens_plot.removeItem(curve)
            if legend is not None:
                legend.removeItem(curve)
        self._curves = []
        self._painted.clear()
        # the old run's axes go with its curves: new panes start on the empty chart's range
        self._range, self._expected_tokens = (1.0, 10.0), 0.0
        if legend is not None and self._legend_at != (MARGIN, MARGIN):
            self._legend_at = (MARGIN, MARGIN)
            legend.anchor(itemPos=(0, 0), parentPos=(0, 0), offset=self._legend_at)
        self.tokens_plot.setRange(xRange=(0, 1.0), yRange=(0, 10.0), padding=0)
        for i, label in enumerate(labels):
            # not antialiased: that halves the chart's paint (8 dense curves at 10 Hz), and a
            # range step's; PNG exports are antialiased anyway. No clipping or automatic
            # downsampling either: paint() already keeps CURVE_POINTS, and both redo every
            # curve's data on each range step
            pen = pg.mkPen(colors[i], width=2)
            curve = self.tokens_plot.plot([], [], name=label, pen=pen, antialias=False)
            self._curves.append(curve)
        for plot in (self.ttft_plot, self.decode_plot):
            plot.getAxis("bottom").set_names(short_names(labels))
            # a fixed slot per bar: auto-ranged, x moved whenever bars changed height (as at a
            # run's start, all zero), and each move re-laid out the value axis and its grid
            plot.setXRange(-0.5, len(labels) - 0.5, padding=0)
            plot.setYRange(0, 1.0, padding=0)  # the old models' bar heights went with them
        self._bar_tops = [1.0, 1.0]

    def expect_tokens(self, max_tokens: int) -> None:
        """A run starts: the token axis spans max_tokens from the start (it only grows past it
        if a server ignores the limit), so it is not re-laid out as the curves climb."""
        self._expected_tokens = float(max_tokens)
        self._range = (0.0, 0.0)
        # the bar axes keep the last run's tops until this run's bars need others: a reset
        # here re-laid out both axes in the run's first frame, beside the token axis

    def points(self) -> int:
        """How many points the token curves hold (for tests and the frame budget)."""
        return sum(0 if c.xData is None else len(c.xData) for c in self._curves)

    def _retitle(self) -> None:
        """The charts' titles and axis labels in the language installed."""
        color = chart_colors(self.palette())[1].name()
        self.tokens_plot.setTitle(self.tr("Output tokens vs time"), color=color)
        self.tokens_plot.setLabel("bottom", self.tr("seconds since the request was sent"))
        self.tokens_plot.setLabel("left", self.tr("tokens"))
        self.ttft_plot.setTitle(self.tr("Time to first token"), color=color)
        self.ttft_plot.setLabel("left", self.tr("TTFT (ms)"))
        self.decode_plot.setTitle(self.tr("Decode speed"), color=color)
        self.decode_plot.setLabel("left", self.tr("decode (tokens/s)"))

    def restyle(self, palette: QPalette) -> None:
        """A theme switch: the next paint redraws every part whose colours come from it."""
        self.scheme = palette
        self._failure_keys = [None, None]
        self._curves_at = self._bars_at = 0.0

    def retranslate(self) -> None:
        self._retitle()
        self._failure_keys = [None, None]  # a failed bar's label is written again
        self._bars_at = 0.0

    def paint(self, panes: Sequence[PaneModel]) -> None:
        now = time.monotonic()
        done = tuple(p.result is not None for p in panes)
        if now - self._curves_at < CURVE_INTERVAL_S and done == self._curves_done:
            return  # charts repaint at 10 Hz: the eye needs no more, the loop pays for each
        # (all curves in one frame: a frame that changes any curve repaints the whole plot)
        finished = done != self._curves_done and any(done)
        self._curves_at, self._curves_done = now, done
        max_t = max_tokens = 0.0
        for i, (curve, pane) in enumerate(zip(self._curves, panes, strict=False)):
            if pane.curve_t:
                max_t = max(max_t, pane.curve_t[-1])
                max_tokens = max(max_tokens, pane.curve_tokens[-1])
            version = (pane.request_id, len(pane.curve_t), pane.result is not None)
            if self._painted.get(i) != version:  # else nothing new for this curve
                self._painted[i] = version
                self._draw_curve(i, curve, pane)
        self._grow_range(max_t, max_tokens)  # a new range places the legend again
        if finished:  # a curve is complete: where it lies is known
            self._place_legend()
        # bars redraw through a QPicture: a few times a second is plenty for the eye
        if now - self._bars_at >= BAR_INTERVAL_S or done != self._bars_finished:
            self._bars_at, self._bars_finished = now, done
            self._paint_bars(self.ttft_plot, [p.ttft_ms() for p in panes], 0, panes)
            self._paint_bars(self.decode_plot, [p.decode_tps() for p in panes], 1, panes)

    def _draw_curve(self, i: int, curve: pg.PlotDataItem, pane: PaneModel) -> None:
        if not pane.curve_t:
            curve.setData([], [])
            return
        # the curve starts at (0, 0) at send time: TTFT is where it leaves the axis
        xs = np.fromiter([0.0, *pane.curve_t], float)
        ys = np.fromiter([0.0, *pane.curve_tokens], float)
        if len(xs) > CURVE_POINTS:
            # evenly spaced samples, keeping the send point, the first token and the last
            # (more points than samples: the floored indices never repeat; np.unique would
            # import numpy.ma on first use, a 20 ms stall mid-run)
            keep = np.linspace(1, len(xs) - 1, CURVE_POINTS - 1).astype(int)
            keep = np.concatenate(([0], keep))
            xs, ys = xs[keep], ys[keep]
        # 2 px lines while a curve is short; 1 px once it is dense, where the raster
        # engine's stroker for wider lines costs a third of the chart's paint time
        width = 2 if len(xs) <= THICK_POINTS else 1
        if curve.opts["pen"].width() != width:
            curve.setPen(pg.mkPen(self.colors[i], width=width))
        curve.setData(xs, ys, skipFiniteCheck=True)

    def _place_legend(self, *_: object) -> None:
        """The legend goes where it covers no curve point (legend_place.py): fixed at the top
        left, it hid a fast model's curve above 150 tokens. Called when a curve finishes and
        whenever the view's range or size changes, so it is placed for the view the points are
        finally drawn in (placed once at a curve's end, the axes' later growth moved points
        under it)."""
        legend = self.tokens_plot.plotItem.legend
        view = self.tokens_plot.plotItem.vb
        if legend is None or not legend.isVisible():
            return
        frame = view.sceneBoundingRect()
        size = legend.sceneBoundingRect().size()
        xs, ys = self._scene_points()
        at = place(
            (xs - frame.left(), ys - frame.top()),
            (frame.width(), frame.height()),
            (size.width(), size.height()),
            self._legend_at,
        )
        if at != self._legend_at:
            self._legend_at = at
            legend.anchor(itemPos=(0, 0), parentPos=(0, 0), offset=at)

    def _scene_points(self) -> tuple[np.ndarray, np.ndarray]:
        """Every drawn curve point in scene coordinates, through the view's one transform."""
        view = self.tokens_plot.plotItem.vb
        view.updateMatrix()  # a range set this frame is applied lazily, at the next paint
        t = view.childGroup.sceneTransform()
        data = [(c.xData, c.yData) for c in self._curves if c.xData is not None and len(c.xData)]
        if not data:
            return np.empty(0), np.empty(0)
        x = np.concatenate([d[0] for d in data])
        y = np.concatenate([d[1] for d in data])
        return t.m11() * x + t.m21() * y + t.dx(), t.m12() * x + t.m22() * y + t.dy()

    def _grow_range(self, max_t: float, max_tokens: float) -> None:
        """Widen the axes in steps, not every frame: a new range re-lays out every tick label."""
        # the fine ladder: a 0.17 s run on a 1 s axis (or 5.2 s on 10) left half the chart empty
        want_t = _step_up(max_t * 1.05, FINE) if max_t else 1.0
        if self._expected_tokens and max_tokens <= self._expected_tokens:
            want_tokens = self._expected_tokens * 1.05
        else:
            want_tokens = _step_up(max_tokens * 1.05) if max_tokens else 10.0
        if (want_t, want_tokens) != self._range:
            self._range = (want_t, want_tokens)
            self.tokens_plot.setRange(xRange=(0, want_t), yRange=(0, want_tokens), padding=0)

    def _paint_bars(
        self,
        plot: pg.PlotWidget,
        values: list[float | None],
        slot: int,
        panes: Sequence[PaneModel],
    ) -> None:
        while len(self._bars) < 2:
            item = pg.BarGraphItem(x=[], height=[], width=0.6)
            self._bars.append(item)
            (self.ttft_plot if len(self._bars) == 1 else self.decode_plot).addItem(item)
        marks = [_MARKS.get(p.state, "") for p in panes]
        heights = [0.0 if mark else (v or 0.0) for v, mark in zip(values, marks, strict=False)]
        top = _step_up(max(heights) * 1.05, FINE) if max(heights, default=0.0) > 0 else 1.0
        live = any(p.state in (PaneState.WAITING, PaneState.STREAMING) for p in panes)
        kept = self._bar_tops[slot]
        if kept and (not any(heights) or (live and kept / 2 <= top <= kept)):
            # no bar to show yet (a run starting) keeps the axis; while bars move it grows at
            # once but shrinks only past half: each new top re-lays out the axis and its grid
            # (3-12 ms a time). Once nothing streams, it fits the bars exactly
            top = kept
        if top != self._bar_tops[slot]:
            # in steps, like the token axis: an auto-ranged axis re-lays out its labels (and
            # re-renders its cached grid) every time a bar moves
            self._bar_tops[slot] = top
            plot.setYRange(0, top, padding=0)
        brushes = self.colors[: len(values)]
        self._bars[slot].setOpts(
            x=list(range(len(values))), height=heights, width=0.6, brushes=brushes
        )
        self._mark_failures(plot, slot, panes, marks, top)

    def _mark_failures(
        self,
        plot: pg.PlotWidget,
        slot: int,
        panes: Sequence[PaneModel],
        marks: list[str],
        top: float,
    ) -> None:
        """A failed pane is a hatched full-height bar naming its error class, never a zero; a
        pane the user stopped is a dotted outline saying "stopped", as the Summary draws it."""
        palette = self.scheme or self.palette()
        failure = status_color("failed", palette).name()  # the theme's, at each switch
        muted = palette.color(QPalette.ColorRole.PlaceholderText).name()
        texts = [self._mark_text(m, p) for p, m in zip(panes, marks, strict=False)]
        key = (top, failure, muted, tuple(texts))  # the texts: a language switch relabels
        if self._failure_keys[slot] == key:
            return
        self._failure_keys[slot] = key
        for item in self._failures[slot]:
            plot.removeItem(item)
        self._failures[slot] = []
        label_fill = QColor(chart_colors(palette)[0])  # the chart's background, the
        label_fill.setAlpha(208)  # bars faintly behind it
        for i, (mark, text) in enumerate(zip(marks, texts, strict=False)):
            if not mark:
                continue
            stopped = mark == "stopped"
            color = muted if stopped else failure
            brush = QBrush(
                QColor(failure), Qt.BrushStyle.NoBrush if stopped else Qt.BrushStyle.BDiagPattern
            )
            bar = pg.BarGraphItem(
                x=[i], height=[top * 0.98], width=0.6, brush=brush,
                pen=pg.mkPen(color, width=1.5, style=Qt.PenStyle.DotLine if stopped
                             else Qt.PenStyle.DashLine),
            )  # fmt: skip
            label = pg.TextItem(
                text,
                color=color,
                angle=90,
                anchor=(0.5, 0.5),
                fill=pg.mkBrush(label_fill),
            )
            label.setPos(i, top * 0.5)
            for item in (bar, label):
                plot.addItem(item)
                self._failures[slot].append(item)

    def _mark_text(self, mark: str, pane: PaneModel) -> str:
        """A marked bar's label in the language installed ("" for an unmarked one)."""
        if not mark:
            return ""
        if mark == "stopped":
            return self.tr("stopped")
        return self.tr("failed: %1").replace("%1", str(pane.error_class or "?"))


_MARKS = {PaneState.ERROR: "failed", PaneState.STOPPED: "stopped"}  # a bar drawn, not a zero


def short_names(names: Sequence[str], limit: int = 14) -> list[str]:
    """Names that fit under narrow bars: a prefix all of them share ("sim-70b-") is dropped at a
    dash, then each is cut to `limit` characters. The legend and the panes carry full names."""
    common = ""
    if len(names) > 1:
        shared = names[0]
        for name in names[1:]:
            while not name.startswith(shared):
                shared = shared[:-1]
        common = shared[: shared.rfind("-") + 1]
    out = [name[len(common) :] or name for name in names]
    return [n if len(n) <= limit else n[: limit - 1] + "…" for n in out]
