"""The Capacity tab: search each pane's model for its highest rate within an SLO, and see why.

Two charts per search: goodput against the offered rate (a model that keeps up lies on the
diagonal, one past its capacity falls below it), and the first objective's observed percentile
against the rate, with the SLO's limit as a dashed line; each model's knee (the highest rate
that held) is a vertical line in its colour (colors.py, the one home of model colours). The
search itself is core's (core/run/capacity_run.py), as `bench --capacity` runs it; the sentence
above the charts is core/load/capacity_report.py's. Presets fill the choices; a dataset file goes
through the same readers as `bench --dataset` (core/datasets/).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt, Signal
from PySide6.QtGui import QPalette, QShowEvent
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QDoubleSpinBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from workbench.core.datasets import Dataset, DatasetError, load_dataset
from workbench.core.load.capacity import DEFAULT_RANGE, DEFAULT_TOLERANCE, MIN_RATE
from workbench.core.load.capacity_report import sentence_line, step_json
from workbench.core.load.slo import Objective, parse_slo
from workbench.core.planning.device_cost import MAX_DEVICE_COST, parse_device_cost, price_words
from workbench.core.planning.progress_estimate import ProgressReading
from workbench.core.run.capacity_run import CapacityFloor, CapacityFound, CapacityStep
from workbench.resources import resource
from workbench.ui.chart_export import ExportableChart
from workbench.ui.colors import model_colors
from workbench.ui.retranslate import Retranslating
from workbench.ui.theme import recolor_plot

SAMPLE_TRACE = "traces/mooncake_sample.jsonl"
DATASET_NAME_PX = 120  # the chosen file's name beside its button, elided in the middle
TRACE_SPEED_SHOWN = 1000.0  # the field's top: a 10-minute trace in under a second
# preset key -> (its name, the SLO it fills in)
PRESETS: dict[str, tuple[str, str]] = {
    "chat4k": (
        QT_TRANSLATE_NOOP("CapacityView", "Chat at 4K, Poisson"),
        "ttft_p90:3s,tpot_p90:60ms",
    ),
    "trace": (QT_TRANSLATE_NOOP("CapacityView", "Replay the sample trace"), "ttft_p90:3s"),
}
CHAT_PROMPT_TOKENS = 4096


class CapacityView(Retranslating, QWidget):
    """Choices, the run button, the sentence and the two charts of a capacity search."""

    search_requested = Signal()  # the window builds the plan from the panes and these choices
    stop_requested = Signal()
    shown = Signal()  # the tab comes into view: the window says the panes' list price

    def __init__(self) -> None:
        super().__init__()
        self.preset = QComboBox()
        for key, (name, _slo) in PRESETS.items():
            self.preset.addItem(name, key)
        self.slo = QLineEdit(PRESETS["chat4k"][1])
        self.slo.setMinimumWidth(200)
        self._make_load_fields()
        self.dataset_button = QPushButton()
        self.dataset_label = QLabel()
        self.dataset_label.setMaximumWidth(DATASET_NAME_PX)  # a long name must not widen it
        self.run_button = QPushButton()
        self.stop_button = QPushButton()
        self.stop_button.setEnabled(False)
        self.status = QLabel()
        self.status.setWordWrap(True)
        self._status_words: Callable[[], str] = self._hint  # said anew in another language
        self.plan = QLabel()  # the search's rule and worst-case cost, said before it starts
        self.plan.setWordWrap(True)
        self.plan.setObjectName("capacityPlan")
        self.sentence = QLabel()
        self.sentence.setObjectName("capacitySentence")
        self.sentence.setWordWrap(True)
        self.sentence.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.sentence.setStyleSheet("font-weight: 600; font-size: 14px")
        self.dataset: Dataset | None = None
        self.active = False  # whether the session's run in progress is this tab's
        self.dataset_path: Path | None = None
        self.section: dict[str, Any] | None = None  # the search shown, to say it anew
        self._labels = [QLabel() for _ in range(6)]
        controls = self._controls_rows()
        self.goodput_plot = pg.PlotWidget(title=" ")
        self.latency_plot = pg.PlotWidget(title=" ")
        self.charts = [
            ExportableChart("capacity_goodput", self.goodput_plot),
            ExportableChart("capacity_latency", self.latency_plot),
        ]
        # one rate axis for both: a step read across at the same x (the latency chart lacks
        # steps with no percentile, and on its own axis started where its points did)
        self.latency_plot.setXLink(self.goodput_plot)
        plots = QHBoxLayout()
        for plot in (self.goodput_plot, self.latency_plot):
            plot.showGrid(x=True, y=True, alpha=0.2)
            plot.setMinimumSize(220, 180)
            # the latency chart's top-left holds its SLO line (the top of its range) and the
            # low rates' points: its legend goes bottom right, where the high rates are high
            plot.addLegend(offset=(8, 8) if plot is self.goodput_plot else (-8, -8))
            plots.addWidget(plot)
        layout = QVBoxLayout(self)
        layout.addLayout(controls)
        layout.addWidget(self.plan)
        layout.addWidget(self.status)
        layout.addWidget(self.sentence)
        layout.addLayout(plots, 1)
        self.steps: dict[str, list[dict[str, Any]]] = {}
        self.floors: dict[str, dict[str, Any]] = {}  # models that missed one at a time
        self.knees: dict[str, float | None] = {}
        # the latency legend's entry for steps over the limit with no percentile (redraw)
        self._over_mark = pg.ScatterPlotItem(symbol="t1", size=11, brush=None)
        self.limit_ms: float | None = None
        self.figure = ""  # the first objective's name: the latency chart's figure
        self.unit = "req/s"
        self.preset.currentIndexChanged.connect(self._on_preset)
        self.dataset_button.clicked.connect(self._pick_dataset)
        self.run_button.clicked.connect(self.search_requested.emit)
        self._show_fields()
        self.stop_button.clicked.connect(self.stop_requested.emit)
        self.retranslate()

    def _make_load_fields(self) -> None:
        """The loads searched and the stop rule, as bench's --capacity-range and
        --capacity-tolerance (read by core/capacity.parse_range and Rule), the price of a
        device-hour, as bench --device-cost (core/planning/device_cost.parse_device_cost), and a
        trace's replay speed, as bench --trace-speed (core/run/dataset_plan.trace_schedule)."""
        self.range = QLineEdit()  # empty: from the floor's rate (capacity_tab.capacity_plan)
        self.range.setObjectName("capacityRange")
        self.range.setMaximumWidth(110)
        self.tolerance = QDoubleSpinBox()
        self.tolerance.setObjectName("capacityTolerance")
        self.tolerance.setRange(1, 100)
        self.tolerance.setDecimals(0)
        self.tolerance.setSuffix(" %")
        self.tolerance.setValue(DEFAULT_TOLERANCE * 100)
        self.price = QLineEdit()  # empty: the list price (device_cost())
        self.price.setObjectName("capacityDevicePrice")
        self.price.setMaximumWidth(110)
        self.price.setMaxLength(32)  # a price is a few characters: more is pasted by mistake
        self.list_price: float | None = None  # the panes' deployments' one list price, if any
        self.speed = QDoubleSpinBox()
        self.speed.setObjectName("capacityTraceSpeed")
        self.speed.setRange(0.1, TRACE_SPEED_SHOWN)
        self.speed.setDecimals(1)
        self.speed.setSuffix(" ×")
        self.speed.setValue(1.0)

    def _controls_rows(self) -> QVBoxLayout:
        """The choices over the charts: preset, SLO (it takes the spare room), the dataset,
        Search and Stop; under them the load fields and the device price (or a replay's speed),
        a row of their own so that the window still fits a 1024-pixel screen."""
        first, second = QHBoxLayout(), QHBoxLayout()
        labels = self._labels
        for widget in (labels[0], self.preset, labels[1]):
            first.addWidget(widget)
        first.addWidget(self.slo, 1)
        for widget in (self.dataset_button, self.dataset_label, self.run_button, self.stop_button):
            first.addWidget(widget)
        for widget in (labels[2], self.range, labels[3], self.tolerance, labels[5], self.price):
            second.addWidget(widget)
        for widget in (labels[4], self.speed):
            second.addWidget(widget)
        second.addStretch(1)
        controls = QVBoxLayout()
        controls.addLayout(first)
        controls.addLayout(second)
        return controls

    def retranslate(self) -> None:
        self._labels[0].setText(self.tr("Preset:"))
        self._labels[1].setText(self.tr("SLO:"))
        self._labels[2].setText(self.tr("Range:"))
        self._labels[3].setText(self.tr("Tolerance:"))
        self._labels[4].setText(self.tr("Speed:"))
        self._labels[5].setText(self.tr("Device price:"))
        self.speed.setToolTip(
            self.tr(
                "Replay the trace this many times faster than it was recorded "
                "(as bench --trace-speed)"
            )
        )
        self.range.setToolTip(
            self.tr(
                "The rates searched, LOW:HIGH in req/s (as bench --capacity-range); empty: "
                "from the rate of a request alone, down to %1 and up to %2 req/s"
            )
            .replace("%1", f"{MIN_RATE:g}")
            .replace("%2", f"{DEFAULT_RANGE['rate'][1]:g}")
        )
        self.range.setPlaceholderText(self.tr("automatic"))  # the tooltip says how
        _fit_placeholder(self.range)
        self._retranslate_price()
        self.tolerance.setToolTip(
            self.tr(
                "Stop when the bracket's high end is within this much of its low end "
                "(as bench --capacity-tolerance)"
            )
        )
        if self.section is not None:
            self.sentence.setText(sentence_line(self.section, QCoreApplication.translate))
        for index, (_key, (name, _slo)) in enumerate(PRESETS.items()):
            self.preset.setItemText(index, self.tr(name))
        self.dataset_button.setText(self.tr("Dataset…"))
        self.dataset_button.setToolTip(
            self.tr(
                "A dataset or trace file (OpenAI-style JSONL, ShareGPT JSON, Mooncake JSONL or "
                "the Azure trace CSV), read as `bench --dataset` reads it: its requests' sizes "
                "are sent at each rate of the search"
            )
        )
        name = self.dataset_path.name if self.dataset_path else ""
        metrics = self.dataset_label.fontMetrics()
        self.dataset_label.setText(
            metrics.elidedText(name, Qt.TextElideMode.ElideMiddle, DATASET_NAME_PX)
        )
        self.dataset_label.setToolTip(str(self.dataset_path) if self.dataset_path else "")
        self.run_button.setText(
            self.tr("Replay trace") if self.preset.currentData() == "trace" else self.tr("Search")
        )
        self.stop_button.setText(self.tr("Stop"))
        self.slo.setToolTip(self.tr("e.g. ttft_p90:3s,tpot_p90:60ms (figures ttft, tpot, e2e)"))
        self.goodput_plot.setTitle(self.tr("Goodput vs offered rate"))
        self.goodput_plot.setLabel("bottom", self.tr("offered rate (req/s)"))
        self.goodput_plot.setLabel("left", self.tr("within the SLO (req/s)"))
        self.latency_plot.setTitle(self.tr("Latency vs offered rate"))
        self.latency_plot.setLabel("bottom", self.tr("offered rate (req/s)"))
        self.latency_plot.setLabel(
            "left", self.tr("%1 (ms)").replace("%1", self.figure or self.tr("observed percentile"))
        )
        self.status.setText(self._status_words())

    def _hint(self) -> str:
        return self.tr(
            "Each pane's model is searched in turn: x2 steps, then bisection, until the "
            "SLO's limit is bracketed within the tolerance."
        )

    def say(self, words: Callable[[], str]) -> None:
        """The status line: `words()` now, and again in the language the user switches to."""
        self._status_words = words
        self.status.setText(words())

    def _retranslate_price(self) -> None:
        """The Device price field's tooltip and placeholder (the list price, in words)."""
        self.price.setToolTip(
            self.tr(
                "Your price per device-hour in USD, e.g. 2.5/h (up to %1; as bench "
                "--device-cost): a model served on a deployment (the built-in provider's "
                "models) costs its devices' time at the load that held. Empty: the list price "
                "in hardware.toml. Models without a deployment keep their token prices"
            ).replace("%1", f"{MAX_DEVICE_COST:g}")
        )
        if self.list_price is None:
            self.price.setPlaceholderText(self.tr("list price"))
        else:
            self.price.setPlaceholderText(
                self.tr("%1 list").replace("%1", price_words(self.list_price))
            )
        _fit_placeholder(self.price)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.shown.emit()

    def restyle(self, palette: QPalette) -> None:
        """A theme switch: the charts in the new palette (the widget's own still has the old
        one while the switch is delivered), the knees and SLO lines drawn again."""
        for plot in (self.goodput_plot, self.latency_plot):
            recolor_plot(plot, palette)
        self.redraw()

    # ---- choices ----

    def objectives(self) -> tuple[Objective, ...]:
        """The SLO as typed; ValueError names the part to fix."""
        return parse_slo(self.slo.text())

    def device_cost(self) -> float | None:
        """The price per device-hour as typed, None when empty (the list price);
        DeviceCostError says what to fix, in bench --device-cost's words."""
        text = self.price.text()
        return parse_device_cost(text) if text.strip() else None

    def set_list_price(self, price: float | None) -> None:
        """The list price the empty field stands for (None: none, or several)."""
        self.list_price = price
        self._retranslate_price()

    def _on_preset(self) -> None:
        key = self.preset.currentData()
        self.slo.setText(PRESETS[key][1])
        if key == "trace":
            self.load_dataset(resource(*SAMPLE_TRACE.split("/")))
        else:
            self.dataset, self.dataset_path = None, None
        self._show_fields()
        self.retranslate()

    def _show_fields(self) -> None:
        """A search's fields (range, tolerance, device price) or a replay's (its speed), not
        both: a replay finds no capacity to price."""
        replay = self.preset.currentData() == "trace"
        labels = self._labels
        for widget in (labels[2], self.range, labels[3], self.tolerance, labels[5], self.price):
            widget.setVisible(not replay)
        for widget in (labels[4], self.speed):
            widget.setVisible(replay)

    def _pick_dataset(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self,
            self.tr("Choose a dataset or trace"),
            "",
            self.tr("Datasets (*.jsonl *.json *.csv)"),
        )
        if path:
            self.load_dataset(Path(path))

    def load_dataset(self, path: Path) -> bool:
        """Read a file through core's readers; a bad one is named in the status line."""
        try:
            self.dataset = load_dataset(path)
        except DatasetError as exc:
            self.dataset, self.dataset_path = None, None
            self._status_words = partial(str, exc)  # core's words, in English
            self.retranslate()
            return False
        self.dataset_path = path
        requests, timed = len(self.dataset.requests), self.dataset.timed
        self._status_words = lambda: (
            self.tr("%1: %2 requests%3")
            .replace("%1", path.name)
            .replace("%2", str(requests))
            .replace("%3", self.tr(", with timestamps") if timed else "")
        )
        self.retranslate()
        return True

    # ---- a search ----

    def _say_floors(self) -> None:
        """The models that miss one at a time, while the search goes on to the others."""
        said = {"models": list(self.floors.values())}
        self.sentence.setText(sentence_line(said, QCoreApplication.translate))

    def start(self, plan_words: str, models: list[str]) -> None:
        self.steps = {m: [] for m in models}
        self.floors = {}
        self.knees = {}
        self.section = None
        self.sentence.setText("")
        self.plan.setText(plan_words)
        self.say(str)  # empty until the first progress
        self.redraw()

    def set_running(self, running: bool) -> None:
        self.run_button.setEnabled(not running)
        self.stop_button.setEnabled(running)

    def set_progress(self, reading: ProgressReading) -> None:
        # no share done or ETA: both would count the worst case, which most searches never reach
        self.say(
            lambda: (
                self.tr("%1 of at most %2 requests · elapsed %3 s")
                .replace("%1", str(reading.done))
                .replace("%2", str(reading.total))
                .replace("%3", f"{reading.elapsed_s:,.0f}")
            )
        )

    def take(self, event: object) -> None:
        """A floor, a step, or the answer, of the search the session runs."""
        if isinstance(event, CapacityFloor):
            if event.start is None:  # misses one at a time: said at once, in core's words
                self.floors[event.model] = {
                    "model": event.model, "status": "floor", "floor": event.floor
                }  # fmt: skip
                self._say_floors()
            return
        if isinstance(event, CapacityStep):
            steps = self.steps.setdefault(event.model, [])
            if steps and steps[-1]["load"] == event.step.load:  # confirmed: both steps' requests
                steps.pop()
            steps.append(step_json(event.step))
            if event.step.terms:
                self.limit_ms = event.step.terms[0].limit_ms
                self.figure = event.step.terms[0].name
        elif isinstance(event, CapacityFound):
            self.show_section(event.section)
            return
        self.redraw()

    def show_section(self, section: dict[str, Any]) -> None:
        """A finished search (live, or a run's section from the history)."""
        models = [m for m in section.get("models", ()) if isinstance(m, dict)]
        self.steps = {str(m["model"]): list(m.get("steps", ())) for m in models}
        self.knees = {str(m["model"]): m.get("held") for m in models}
        self.unit = str(section.get("unit", "req/s"))
        slo = section.get("slo") or [{}]
        self.limit_ms = slo[0].get("limit_ms")
        self.figure = str(slo[0].get("objective", ""))
        used = sum(int(m.get("requests", 0)) for m in models)
        bound = int(section.get("worst_case", {}).get("requests", 0)) * len(models)
        self.say(
            lambda: (
                self.tr("Done: %1 requests of at most %2.")
                .replace("%1", str(used))
                .replace("%2", str(bound))
            )
        )
        self.section = section
        self.sentence.setText(sentence_line(section, QCoreApplication.translate))
        self.redraw()

    def redraw(self) -> None:
        self.retranslate()  # the latency axis names the objective charted
        for plot in (self.goodput_plot, self.latency_plot):
            plot.clear()
        legend = self.latency_plot.getPlotItem().legend
        if legend is not None:
            legend.removeItem(self._over_mark)  # an entry of its own: clear() leaves it
        colors = model_colors([("", m) for m in self.steps])
        top = highest = 0.0
        above = False  # a step over the limit whose percentile is not known, of any model
        for (model, steps), color in zip(self.steps.items(), colors, strict=True):
            if not steps:  # a model that missed one at a time: no rate to chart (its words say)
                continue
            ordered = sorted(steps, key=lambda s: s["load"])
            xs = [s["load"] for s in ordered]
            top = max([top, *xs])
            # the offered rate times the share within the SLO: on the diagonal while every
            # request meets it (vLLM's goodput, in run.json, also counts each step's drain)
            good = [s["load"] * s.get("met", 0) / max(1, s["requests"]) for s in ordered]
            pen = pg.mkPen(color, width=2)
            self.goodput_plot.plot(xs, good, pen=pen, symbol="o", symbolBrush=color, name=model)
            seen = [(s["load"], s["objectives"][0]["observed_ms"]) for s in ordered]
            seen = [(x, y) for x, y in seen if y is not None]
            highest = max([highest, *(y for _, y in seen)])
            self.latency_plot.plot(
                [x for x, _ in seen], [y for _, y in seen], pen=pen, symbol="o",
                symbolBrush=color, name=model,
            )  # fmt: skip
            over = [s["load"] for s in ordered if over_the_limit(s)]
            if over and self.limit_ms is not None:
                above = True
                self.latency_plot.plot(
                    over, [self.limit_ms] * len(over), pen=None, symbol="t1", symbolSize=11,
                    symbolPen=pg.mkPen(color, width=2), symbolBrush=None,
                )  # fmt: skip
            knee = self.knees.get(model)
            if knee is not None and knee in xs:  # a rate that held and was measured
                for plot in (self.goodput_plot, self.latency_plot):
                    line = pg.InfiniteLine(
                        knee, angle=90, pen=pg.mkPen(color, width=1, dash=[4, 3])
                    )
                    plot.addItem(line)
        if top:
            self.goodput_plot.plot(
                [0, top], [0, top], pen=pg.mkPen("#95a5a6", width=1, dash=[2, 4])
            )
        text = QApplication.palette().text().color()  # the theme's, also mid-switch
        if self.limit_ms is not None and self.steps:
            limit = pg.InfiniteLine(
                self.limit_ms, angle=0, pen=pg.mkPen(text, width=1, dash=[6, 4]),
                label=self.tr("SLO"), labelOpts={"position": 0.03, "color": text},
            )  # fmt: skip
            self.latency_plot.addItem(limit)
            highest = max(highest, self.limit_ms)
        if highest > 0:  # from zero, as every chart here: the limit's height read at a glance
            self.latency_plot.setYRange(0, highest * 1.08, padding=0)
        if above and legend is not None:  # one entry for every model's markers
            self._over_mark.setPen(pg.mkPen(text, width=2))
            legend.addItem(self._over_mark, self.tr("over the limit; its percentile not measured"))


def over_the_limit(step: dict[str, Any]) -> bool:
    """Whether the step's first objective (the latency chart's) has no percentile but is known
    to be over its limit: the step was ended early by that objective (its slowest requests
    cut, core/load/step_watch.py), or its share within is below the percentile (some failed).
    By how much is not known: drawn at the limit, marked apart."""
    term = step["objectives"][0]
    if term.get("observed_ms") is not None:
        return False
    if step.get("ended_early") == term["objective"]:
        return True
    quantile = parse_slo(f"{term['objective']}:{term['limit_ms']:g}ms")[0].quantile
    return int(term["within"]) < int(term["judged"]) * quantile / 100


def _fit_placeholder(field: QLineEdit) -> None:
    """Wide enough for its placeholder in either language (at 1024 px one was cut short)."""
    shown = field.fontMetrics().horizontalAdvance(field.placeholderText())
    field.setMinimumWidth(min(shown + 10, field.maximumWidth()))  # + frame, margins
