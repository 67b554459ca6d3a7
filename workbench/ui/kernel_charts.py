"""The Kernels tab's three charts: latency and achieved bandwidth against KV length (measured
rows, with the roofline dashed and the device's peak bandwidth), and KV bytes per token."""

from __future__ import annotations

import math
from collections.abc import Iterable
from pathlib import Path

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QWidget

from kernels_bridge.analytic import HardwareProfile
from kernels_bridge.protocol import ResultRow
from workbench.core.foundation.token_counts import tokens_label
from workbench.ui.chart_export import ExportableChart
from workbench.ui.colors import NO_MODEL_GREY, variant_colors
from workbench.ui.fitted_text import set_chart_title
from workbench.ui.retranslate import Retranslating
from workbench.ui.slot_axis import SlotAxis

KV_CHOICES = (1024, 4096, 16384, 32768, 65536, 131072)
BACKEND_SYMBOLS = ("o", "s", "t", "d", "x", "+")
TITLE_SIZE = "10pt"
Series = dict[str, list[tuple[int, float]]]


def measured_series(rows: Iterable[ResultRow], field: str) -> Series:
    """label -> [(KV length, value)] of `field` (latency_us, achieved_gbps) per variant
    (and backend, when several), from the rows without errors."""
    rows = list(rows)
    backends = {r.backend for r in rows}
    out: Series = {}
    for r in rows:
        value = getattr(r, field)
        if r.error or value is None or value <= 0:
            continue
        label = r.variant if len(backends) == 1 else f"{r.variant} · {r.backend}"
        out.setdefault(label, []).append((r.kv_len, float(value)))
    for points in out.values():
        points.sort()
    return out


def _new_plot(**axes: pg.AxisItem) -> pg.PlotWidget:
    # the titles and axis labels are set in retranslate
    plot = pg.PlotWidget(title=" ", axisItems=axes)
    plot.showGrid(x=True, y=True, alpha=0.2)
    plot.addLegend(offset=(10, 10))
    return plot


def _reset(plot: pg.PlotWidget) -> None:
    plot.clear()
    legend = plot.plotItem.legend
    if legend is not None:
        legend.clear()


class KernelCharts(Retranslating, QWidget):
    """Latency, bandwidth and KV-bytes charts side by side; `draw` repaints all three."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        self.latency_plot, self.bandwidth_plot = _new_plot(), _new_plot()
        self.kv_plot = _new_plot(bottom=SlotAxis())
        # what the texts say of the last drawing: its roofline profile, CPU rows, KV bars' dtype
        self._profile: HardwareProfile | None = None
        self._cpu = False
        self._dtype = ""
        self.colors: dict[str, str] = {}  # variant -> colour, of the last drawing
        self._shapes = ""
        self.kv_plot.plotItem.legend.hide()
        self.bandwidth_plot.plotItem.legend.anchor((0, 1), (0, 1), offset=(10, -10))
        ticks = [[(math.log10(n), tokens_label(n)) for n in KV_CHOICES]]
        for plot in (self.latency_plot, self.bandwidth_plot):
            plot.setLogMode(x=False, y=True)  # x is placed at log10(KV) so ticks read 1K, 4K…
            plot.getAxis("bottom").setTicks(ticks)
        self.peak_line = pg.InfiniteLine(
            angle=0, pen=pg.mkPen("#808080", width=1.5, style=Qt.PenStyle.DashLine)
        )
        self.peak_label = pg.TextItem(color="#808080", anchor=(0, 1))
        self.charts = [
            ExportableChart("kernels_latency", self.latency_plot),
            ExportableChart("kernels_bandwidth", self.bandwidth_plot),
            ExportableChart("kernels_kv_bytes", self.kv_plot),
        ]
        for chart in self.charts:
            row.addWidget(chart.widget)
        self.retranslate()

    def retranslate(self) -> None:
        """Titles, axis labels and the peak's label in the language installed, for what is
        drawn; the curves stay."""
        suffix = self.tr(" — CPU (wall-clock)") if self._cpu else ""
        # short titles: pyqtgraph makes a title's width the chart's minimum, and a long one
        # pushed the latency chart past its column at every window size
        # and elided to the chart: at 1024 px the CPU's suffix was cut mid-word
        set_chart_title(
            self.latency_plot,
            self.tr("Latency per decode step%1").replace("%1", suffix),
            size=TITLE_SIZE,
        )
        set_chart_title(
            self.bandwidth_plot,
            self.tr("Achieved bandwidth%1").replace("%1", suffix),
            size=TITLE_SIZE,
        )
        kv_title = self.tr("KV cache bytes per token (one layer)")
        if self._dtype:
            kv_title = self.tr("KV bytes per token, one layer, %1").replace("%1", self._dtype)
        set_chart_title(self.kv_plot, kv_title, size=TITLE_SIZE)
        for plot in (self.latency_plot, self.bandwidth_plot):
            plot.setLabel("bottom", self.tr("KV length (tokens)"))
        self.bandwidth_plot.setLabel("left", self.tr("GB/s (log)"))
        self.kv_plot.setLabel("left", self.tr("bytes"))
        # GQA is 4,096 B in the default shape and 2,048 B in the H200 sweep's 70B twin: say
        # which shapes the bars are of
        shapes = self.tr("shapes: %1").replace("%1", self._shapes) if self._shapes else ""
        self.kv_plot.setLabel("bottom", shapes)
        profile = self._profile
        if profile is None:
            self.latency_plot.setLabel("left", self.tr("µs (log)"))
            return
        self.latency_plot.setLabel(
            "left", self.tr("µs (log); dashed: %1 roofline").replace("%1", profile.key)
        )
        peak = f"{profile.mem_bandwidth_tbs * 1000:,.0f}"
        self.peak_label.setText(
            self.tr("%1 peak %2 GB/s").replace("%1", profile.key).replace("%2", peak)
        )

    def draw(
        self,
        rows: list[ResultRow],
        roofline: Series,
        kv_bytes: dict[str, int],
        kv_lens: list[int],
        profile: HardwareProfile,
        dtype: str,
        cpu: bool,
        shapes: str = "",
    ) -> None:
        """All three charts for the measured rows and the chosen sweep on `profile`; `shapes`
        names the model shapes the KV bars are of."""
        self._profile, self._cpu, self._shapes = profile, cpu, shapes
        # the variants on the three charts take their colours together, by the models' rule
        shown = list(dict.fromkeys([*kv_bytes, *roofline, *(r.variant for r in rows)]))
        self.colors = dict(zip(shown, variant_colors(shown), strict=True))
        xs = [math.log10(n) for n in kv_lens] or [math.log10(KV_CHOICES[0])]
        self._draw_latency(rows, roofline, xs)
        self._draw_bandwidth(rows, profile, xs)
        self._draw_kv_bars(kv_bytes, dtype)
        self.retranslate()

    def export(self, folder: Path, suffix: str) -> list[Path]:
        return [c.export(folder / f"{c.name}{suffix}") for c in self.charts]

    def variant_color(self, variant: str) -> str:
        return self.colors.get(variant, NO_MODEL_GREY)

    def _draw_measured(self, plot: pg.PlotWidget, rows: list[ResultRow], field: str) -> None:
        backends = sorted({r.backend for r in rows})
        series = measured_series(rows, field)
        plot.plotItem.legend.setColumnCount(2 if len(series) > 6 else 1)
        for label, points in sorted(series.items()):
            variant, _, backend = label.partition(" · ")
            color = self.variant_color(variant)
            symbol = BACKEND_SYMBOLS[backends.index(backend) % 6] if backend in backends else "o"
            plot.plot(
                [math.log10(p[0]) for p in points],
                [p[1] for p in points],
                pen=pg.mkPen(color, width=2),
                symbol=symbol,
                symbolSize=7,
                symbolBrush=color,
                name=label,
            )

    def _draw_latency(self, rows: list[ResultRow], roofline: Series, xs: list[float]) -> None:
        plot = self.latency_plot
        _reset(plot)
        self._draw_measured(plot, rows, "latency_us")
        for variant, points in roofline.items():
            points = [p for p in points if p[1] > 0]
            if not points:
                continue
            item = plot.plot(
                [math.log10(p[0]) for p in points],
                [p[1] for p in points],
                pen=pg.mkPen(self.variant_color(variant), width=1.5, style=Qt.PenStyle.DashLine),
                name=self.tr("%1 roofline").replace("%1", variant),
            )
            # the axis title says dashed is the roofline and colours are variants: a legend
            # line per roofline doubled the legend and hid the curves
            plot.plotItem.legend.removeItem(item)
        # the measured lengths with a margin on both sides, as the bandwidth chart has: an
        # auto range put the last point on the frame and cut its tick label
        plot.setXRange(min(xs) - 0.1, max(xs) + 0.1, padding=0)

    def _draw_bandwidth(
        self, rows: list[ResultRow], profile: HardwareProfile, xs: list[float]
    ) -> None:
        plot = self.bandwidth_plot
        _reset(plot)
        self._draw_measured(plot, rows, "achieved_gbps")
        peak = profile.mem_bandwidth_tbs * 1000
        self.peak_line.setPos(math.log10(peak))  # the y axis is in log mode: place at log10
        plot.addItem(self.peak_line, ignoreBounds=False)
        self.peak_label.setPos(min(xs), math.log10(peak))
        plot.addItem(self.peak_label, ignoreBounds=True)
        plot.setXRange(min(xs) - 0.1, max(xs) + 0.1)
        values = [
            v for points in measured_series(rows, "achieved_gbps").values() for _, v in points
        ]
        if values:  # room below the curves for the legend, which sits bottom left
            lo, hi = math.log10(min(values)), math.log10(max(*values, peak))
            plot.setYRange(lo - 0.45 * (hi - lo) - 0.1, hi + 0.08, padding=0)

    def _draw_kv_bars(self, values: dict[str, int], dtype: str) -> None:
        plot = self.kv_plot
        _reset(plot)
        names = list(values)
        if not names:
            return
        heights = [values[v] for v in names]
        bars = pg.BarGraphItem(
            x=list(range(len(names))),
            height=heights,
            width=0.7,
            brushes=[pg.mkBrush(self.variant_color(v)) for v in names],
            pens=[pg.mkPen(self.variant_color(v)) for v in names],
        )
        plot.addItem(bars)
        for i, h in enumerate(heights):
            # upright: a value as wide as its bar ran into its neighbours ("1,1521,152")
            text = pg.TextItem(f"{h:,}", color="#5d6d7e", anchor=(0, 0.5), angle=90)
            text.setPos(i, h)
            plot.addItem(text)
        plot.getAxis("bottom").set_names(names)
        plot.setYRange(0, max(heights) * 1.45)  # room above the tallest bar for its value
        plot.setXRange(-0.6, len(names) - 0.4)
        self._dtype = dtype
