"""The main window: presets, prompt slider, 2-8 panes, live plots, and the run/results tabs."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QSettings, QSize, QTimer, Signal
from PySide6.QtGui import QCloseEvent, QPaintEvent, QPalette
from PySide6.QtWidgets import (
    QApplication,
    QLabel,
    QMainWindow,
    QTabWidget,
    QWidget,
)

from workbench.core.foundation.results import RequestResult
from workbench.core.planning.run_events import RunFinished
from workbench.core.planning.run_plan import RunPlan
from workbench.core.run.plan import LOCAL_PROVIDER, Choices, build_plan, shared_server
from workbench.ui.accessibility import label_fields
from workbench.ui.compare_controller import CompareController
from workbench.ui.compare_tab import CompareTab
from workbench.ui.menus import MenuBar
from workbench.ui.pane_choices import choices_for
from workbench.ui.panes_model import pane_key, pane_title, split_pane_key
from workbench.ui.quiet_progress import QuietProgressBar
from workbench.ui.reserved_tabs import ReservedTabs
from workbench.ui.retranslate import Retranslating
from workbench.ui.route_preset import route_pair
from workbench.ui.run_status import run_status_text
from workbench.ui.run_toolbar import RunToolbar
from workbench.ui.screen_fit import first_size, keep_minimum_on_screen
from workbench.ui.shown_runs import ShownRuns
from workbench.ui.theme import Theme, notice_style, recolor_charts
from workbench.ui.window_export import WindowExport
from workbench.ui.window_late import finish_start
from workbench.ui.window_panes import PaneSet
from workbench.ui.window_state import save_state

if TYPE_CHECKING:
    from workbench.ui.chart_export import ExportableChart
    from workbench.ui.live_plots import LivePlots

log = logging.getLogger(__name__)

PRESETS: dict[str, tuple[str, ...]] = {
    "real": ("sim-llama-3-70b", "sim-deepseek-v3"),
    "attention": ("sim-70b-mha", "sim-70b-gqa", "sim-70b-mla", "sim-70b-gla"),
    # the attention story: the eight twins at 1M, the Sweep tab from 1K to 1M
    "story": tuple(f"sim-70b-{v}" for v in "mha mqa gqa gta mla gla nsa moba".split()),
}
STORY_PROMPT_TOKENS = 1024 * 1024
CLOCK_REFRESH_S = 0.25


class MainWindow(Retranslating, QMainWindow):
    """Widgets call the session and listen to it; they never touch the network or the store.
    Its concerns have objects of their own: the panes and their targets (`pane_set`), the
    menus (`menus`), the exports (`exports`); the parts made after the first paint and the
    layout kept between launches are functions of it (window_late.py, window_state.py)."""

    shown = Signal()
    painted = Signal()  # once, after the first paint event: start-up work waits for it

    def __init__(
        self,
        session: CompareController,
        settings: QSettings | None = None,
        paint_first: bool = False,
    ) -> None:
        """`paint_first`: the app's cold start. The charts (pyqtgraph and numpy: ~0.4 s), the
        Sweep tab and the History's rows wait for `finish_start()`, which the app calls after
        the first paint; otherwise the window is whole when made."""
        super().__init__()
        self.session = session
        self.settings = settings or QSettings("attention-workbench", "workbench")
        first_size(self, QSize(1400, 900))  # a saved geometry replaces it (window_state.py)
        self.screen_fit = keep_minimum_on_screen(self)  # no widget pushes it off the screen
        self._local_url: str | None = None
        self._run_end: tuple[bool, str, str, int, int] | None = None  # the status line's words
        self.shown_runs = ShownRuns(session)  # run ids; every row shown is read from the history
        self.run_kind = "comparison"
        self._searching = False  # a capacity search: its total is a worst case, so no ETA
        self._clock_at = 0.0
        self._split_once = False
        self._painted_once = False
        self._refused: dict[int, str] = {}  # pane -> why Run all did not send its prompt
        app = QApplication.instance()
        assert isinstance(app, QApplication)
        self.theme = Theme(app, self.settings, self)
        self.theme.apply()  # the palette; the charts take its colours in finish_start()

        self.compare = CompareTab()
        self.prompt = self.compare.prompt
        self.replay_banner = self.compare.replay_banner
        self.tabs = QTabWidget()
        self.reserved_tabs = ReservedTabs(self.tabs)
        self.tabs.addTab(self.compare, "")  # titled by retranslate(), in the language installed
        # filled in finish_start(): capacity_tab.py the Capacity tab, build_run_tabs() the rest
        for name in ("sweep", "capacity", "results", "history", "summary"):
            self.reserved_tabs.reserve(name)
        self.setCentralWidget(self.tabs)
        self._build_toolbar()
        self._build_status_bar()
        self.pane_set = PaneSet(session, self.compare, self.preset, self.pane_count)
        self.menus = MenuBar(self)
        self.retranslate()
        self.theme.changed.connect(self.apply_palette)
        # the charts were made after theme.apply() set pyqtgraph's colours: only the banner's
        # style sheet needs the palette now (recolouring every chart would cost ~10 ms at start)
        self.replay_banner.setStyleSheet(notice_style("replayBanner", QApplication.palette()))

        session.frame.connect(self.paint)
        session.running_changed.connect(self._on_running)
        session.progress.connect(self._on_progress)
        session.request_finished.connect(self._on_request_finished)
        session.run_finished.connect(self._on_run_finished)
        session.local_provider_ready.connect(self._on_local_ready)
        self.prompt.changed.connect(self._on_prompt_changed)
        self.session.run_started.connect(self._on_run_started)
        # the summary grabs every chart: build it when it is looked at, not after every run
        self._summary_stale = False
        if not paint_first:
            finish_start(self)

    def build_run_tabs(self) -> None:
        """The Results, History and Summary tabs into their reserved places, their exports, and
        the labels tied to their fields (finish_start(): none of it is seen in the first frame,
        ~30 ms)."""
        from workbench.ui.history_view import HistoryView
        from workbench.ui.results_view import ResultsView
        from workbench.ui.summary_view import SummaryView

        label_fields(self)  # the toolbar's and the Compare tab's labels, tied to their fields
        self.results_view = ResultsView()
        self.history_view = HistoryView(self.session)
        self.summary_view = SummaryView()
        for name, view in zip(
            ("results", "history", "summary"),
            (self.results_view, self.history_view, self.summary_view),
            strict=True,
        ):
            self.reserved_tabs.place(name, view)
            label_fields(view)
        self.exports = WindowExport(self, self.results_view, self.shown_runs, self._charts)
        self.export_action.triggered.connect(self.exports.csv_dialog)
        self.export_chart_action.triggered.connect(self.exports.charts_dialog)
        self.history_view.replay_requested.connect(self.replay)
        self.history_view.open_requested.connect(self._show_results)
        self.history_view.imported.connect(self._add_imported)
        self.history_view.imported_aggregates.connect(self.summary_view.set_imported)
        self.summary_view.refresh_button.clicked.connect(self.refresh_summary)
        self.tabs.currentChanged.connect(self._on_tab_changed)

    # ---- building ----

    def _build_toolbar(self) -> None:
        bar = self.toolbar = RunToolbar(self)
        self.addToolBar(bar)
        self.preset, self.pane_count, self.mode = bar.preset, bar.pane_count, bar.mode
        self.run_action, self.stop_action = bar.run_action, bar.stop_action
        self.export_action, self.export_chart_action = bar.export_action, bar.export_chart_action
        self.preset.activated.connect(self._on_preset)
        self.run_action.triggered.connect(self.run_all)
        self.stop_action.triggered.connect(self.session.stop_all)

    def _build_status_bar(self) -> None:
        self.progress_bar = QuietProgressBar()
        self.progress_bar.setMaximumWidth(260)
        self.progress_bar.hide()
        self.eta = QLabel()
        self.eta.setObjectName("runClock")
        self.local_label = QLabel()
        status = self.statusBar()
        status.addWidget(self.local_label, 1)
        status.addPermanentWidget(self.eta)
        status.addPermanentWidget(self.progress_bar)

    @property
    def plots(self) -> LivePlots:
        assert self.compare.plots is not None, "the charts are made by finish_start()"
        return self.compare.plots

    def _charts(self) -> list[ExportableChart]:
        """Every chart the window shows (Compare and Sweep), each ready to draw."""
        self.sweep_view.flush()
        return [*self.plots.charts, *self.sweep_view.charts]

    # ---- presets (which models the panes show: window_panes.py) ----

    def apply_palette(self, palette: QPalette) -> None:
        """A theme switch: every chart (all tabs), the panes and the replay banner recolour."""
        if recolor_charts(self, palette):  # none before finish_start()
            self.sweep_view.restyle()
            self.capacity_view.restyle(palette)
        if self.compare.plots is not None:
            self.compare.plots.restyle(palette)
        self.paint()  # a failed pane's hatched bar takes the new failure colour
        self.pane_set.restyle(palette)
        self.replay_banner.setStyleSheet(notice_style("replayBanner", palette))

    def apply_preset(self, name: str) -> None:
        self.pane_set.set([f"{LOCAL_PROVIDER}|{m}" for m in PRESETS[name]])
        self.preset.setCurrentIndex(max(0, self.preset.findData(name)))
        if name == "story":
            self.prompt.set_tokens(STORY_PROMPT_TOKENS)
            if hasattr(self, "sweep_view"):  # made by finish_start(); it checks them then
                self.sweep_view.check_lengths(1024, STORY_PROMPT_TOKENS)

    def _on_preset(self) -> None:
        name = self.preset.currentData()
        if name in PRESETS:
            self.apply_preset(name)
        elif name == "gateway":
            self.apply_gateway_preset()

    def apply_gateway_preset(self) -> None:
        """Two panes, one model: the first provider that holds it as the direct route, the
        second as the gateway; run one after another (both reach the same upstream)."""
        keys = self.pane_set.keys
        current = split_pane_key(keys[0])[1] if keys else None
        pair = route_pair(self.session.providers, self.session.catalog, current)
        if pair is None:
            self.preset.setCurrentIndex(self.preset.findData("custom"))
            self.statusBar().showMessage(
                self.tr(
                    "Gateway overhead needs one model on two saved providers: add the upstream "
                    "(direct) and the gateway in front of it in the Providers tab, each with "
                    "that model in its list (%1 saved)."
                ).replace("%1", str(len(self.session.providers)))
            )
            return
        self.pane_set.set(pair)
        self.mode.setCurrentIndex(self.mode.findData("sequential"))
        self.preset.setCurrentIndex(self.preset.findData("gateway"))
        direct, gateway = (key.partition("|")[0] for key in pair)
        self.statusBar().showMessage(
            self.tr("Gateway overhead: pane 1 is direct (%1), pane 2 the gateway (%2)")
            .replace("%1", direct)
            .replace("%2", gateway)
        )

    def _on_prompt_changed(self) -> None:
        """Another prompt: figures measured with the last one leave the panes and charts."""
        if not self.session.running:
            self.pane_set.clear()
        self.pane_set.refresh_context()

    # ---- runs ----

    def build_plan(
        self,
        lengths: Sequence[int] | None = None,
        repeats: int = 1,
        kind: str = "comparison",
        levels: Sequence[int] = (1,),
    ) -> RunPlan:
        """The panes' targets (each with its provider's limits) and the window's choices."""
        targets = [p.target for p in self.session.panes if p.target is not None]
        choices = Choices(
            prompt_lengths=tuple(lengths or (self.prompt.tokens(),)),
            repeats=repeats,
            concurrency_levels=tuple(levels),
            max_tokens=self.prompt.max_tokens.value(),
            mode=self.mode.currentData(),
            language=self.prompt.language.currentData(),
            task=self.prompt.task.currentData(),
            needle_depth=self.prompt.depth.value(),
            kind=kind,  # type: ignore[arg-type]
        )
        # the built-in models' cells whose KV cache would not fit are refused before sending
        return build_plan(targets, choices, self.session.catalog)

    def _warn_shared_server(self, plan: RunPlan) -> None:
        """All at once, targets on one server measure each other's load: say so."""
        host = shared_server(plan)
        if host is not None:
            self.statusBar().showMessage(
                self.tr(
                    "Several models on one server (%1) run at once: they share its compute, so "
                    "each one's figures include the others' load. Choose One after another to "
                    "measure each alone."
                ).replace("%1", host),
                15000,
            )

    def _plan_or_say(
        self,
        lengths: Sequence[int] | None = None,
        repeats: int = 1,
        kind: str = "comparison",
        levels: Sequence[int] = (1,),
    ) -> RunPlan | None:
        """The plan, or None after the status bar says which value is out of range (a saved
        provider's timeout beyond a day, say) and where to change it."""
        try:
            return self.build_plan(lengths, repeats, kind, levels)
        except ValueError as exc:
            return self._cannot_run(str(exc))

    def run_all(self) -> asyncio.Task | None:
        if self.session.running:
            return None
        plan = self._plan_or_say()
        if plan is None:
            return None
        # a prompt over a pane's context window is refused there, not sent (as the CLI refuses it)
        panes = zip(self.pane_set.widgets, self.session.panes, strict=False)
        self._refused = {
            i: w.context_refusal for i, (w, p) in enumerate(panes) if w.context_refusal
        }
        refused = {self.session.panes[i].target for i in self._refused}
        if len(refused) == len(plan.targets):
            self._on_run_started(None)
            self.statusBar().showMessage(self.tr("Nothing sent: no pane's prompt fits its model."))
            return None
        plan = replace(plan, targets=tuple(t for t in plan.targets if t not in refused))
        self._warn_shared_server(plan)
        self.plots.expect_tokens(plan.max_tokens)
        return self._start_or_say(plan)

    def _start_or_say(self, plan: RunPlan) -> asyncio.Task | None:
        """Start the run, or None after the status bar says which provider's key or header
        cannot be used and how to fix it: nothing is sent without it (the CLI refuses too)."""
        from workbench.core.transport.provider_connection import ProviderUnusable  # keys, errors

        try:
            return self.session.start_run(plan)
        except ProviderUnusable as exc:
            return self._cannot_run(exc.phrase.render(QCoreApplication.translate))

    def _cannot_run(self, why: str) -> None:
        self.statusBar().showMessage(
            self.tr("Cannot run: %1. Change it in the Providers tab.").replace("%1", why)
        )

    def run_sweep(self, lengths: list[int], repeats: int, levels: list[int]) -> None:
        running = self.session.running
        plan = None if running else self._plan_or_say(lengths, repeats, "sweep", levels)
        if plan is not None:
            self._warn_shared_server(plan)
            self.sweep_view.order = [t.model for t in plan.targets]
            self.sweep_view.clear()
            self.plots.expect_tokens(plan.max_tokens)
            self._start_or_say(plan)

    def replay(self, results: list[RequestResult], speed: float = 1.0) -> asyncio.Task | None:
        """Play a recorded run in the panes. It is shown as a replay, its rows are the recorded
        ones (never added again), and the sweep keeps its own data."""
        measured = self.session.records.in_run_order([r for r in results if not r.warmup])
        if self.session.running or not measured:
            return None
        self.tabs.setCurrentIndex(0)
        keys = list(
            dict.fromkeys(
                pane_key(f"{r.provider}|{r.model}", None if r.protocol == "chat" else r.protocol)
                for r in measured
            )
        )
        lengths = {r.prompt_tokens_target for r in measured}
        if len(lengths) == 1:  # the header names the recorded prompt, as the pickers its models
            self.prompt.set_tokens(lengths.pop())
        self.pane_set.lay_out(keys)  # the pickers name the recorded models, not the panes' last
        self.preset.setCurrentIndex(self.preset.findData("custom"))
        task = self.session.start_replay(measured, speed)
        self.pane_set.name_plots(keys)
        self.pane_set.refresh_context()
        self.shown_runs.show([measured[0].run_id])
        self.results_view.set_results(self.results)  # the recorded run's measured rows
        self._summary_stale = True
        started = min((r.started_at for r in measured if r.started_at), default=0.0)
        self.replay_banner.setText(
            self.tr(
                "Replay of run %1, recorded %2, at %3× speed: the recorded text and times, "
                "not a new measurement."
            )
            .replace("%1", measured[0].run_id[:8])
            .replace("%2", time.strftime("%Y-%m-%d %H:%M", time.localtime(started)))
            .replace("%3", f"{speed:g}")
        )
        self.replay_banner.show()
        return task

    def _on_run_started(self, plan: RunPlan | None) -> None:
        for i, why in self._refused.items():
            self.session.panes[i].refuse(why)
        self._refused = {}
        if plan is None:  # nothing was sent
            self.paint()
            return
        self.run_kind = plan.kind
        self._searching = plan.capacity is not None
        self._clock_at = 0.0
        if plan.kind != "replay":
            self.shown_runs.current = None
            self.replay_banner.hide()

    def _on_running(self, running: bool) -> None:
        self.run_action.setEnabled(not running)
        self.stop_action.setEnabled(running)
        # a search shows no share done: its worst case would hold the bar near 0 % throughout
        self.progress_bar.setVisible(running and not self._searching)
        if running:  # a new run starts at 0: the last run's 100 % dropped to its first reading
            self.progress_bar.setValue(0)
        self.sweep_view.set_running(running)
        # a run's panes keep their models and prompt until it ends: switching them mid-run
        # would put one model's numbers under another's name, or a 4K request under "2K"
        pickers = [c for w in self.pane_set.widgets for c in (w.picker, w.protocol)]
        for widget in (self.preset, self.pane_count, self.prompt, *pickers):
            widget.setEnabled(not running)

    def _on_progress(self, _done: int, _total: int) -> None:
        self._clock_at = 0.0
        self._show_clock()

    def _show_clock(self) -> None:
        """Elapsed, share done and ETA, as the CLI shows them (`core.progress_estimate`);
        called on every frame, so they move during prefill."""
        now = time.perf_counter()
        if not self.session.running or now - self._clock_at < CLOCK_REFRESH_S:
            return
        self._clock_at = now
        reading = self.session.estimate.read(now)
        self.progress_bar.setRange(0, 1000)
        self.progress_bar.setValue(int(reading.fraction * 1000))  # down, as `percent` rounds
        elapsed = self.tr("elapsed %1 s").replace("%1", f"{reading.elapsed_s:,.1f}")
        left = (
            self.tr("ETA estimating…")
            if reading.eta_s is None
            else self.tr("ETA %1 s").replace("%1", f"{reading.eta_s:,.0f}")
        )
        # a search's share and ETA would count its worst case (most searches end far sooner)
        shown = elapsed if self._searching else f"{elapsed} · {reading.percent} % · {left}"
        self.eta.setText(shown)
        if self.run_kind == "sweep":
            self.sweep_view.set_progress(reading.done, reading.total, reading.eta_s)

    def _on_request_finished(self, result: RequestResult) -> None:
        if result.phase == "calibration":  # a row of the table, outside the plan and figures
            if self.run_kind != "replay":
                self._add_row(result)
            return
        if self.run_kind == "replay":
            return  # the recorded rows are already shown once
        self._add_row(result, current=True)
        if self.run_kind == "sweep":
            self.sweep_view.add(result)

    def _add_row(self, result: RequestResult, current: bool = False) -> None:
        """Show a row as it is recorded; the run's end reads only what the history holds beyond."""
        self.shown_runs.recorded(result, current)
        self.results_view.add(result)

    @property
    def results(self) -> list[RequestResult]:
        """The measured requests of the run the Sweep and Summary show, from the history."""
        return self.shown_runs.measured()

    def _on_run_finished(self, final: RunFinished) -> None:
        if self.run_kind == "sweep":  # its last request is no figure of the prompt shown
            self.pane_set.clear()  # (first: the paint would redraw the clock over the status)
        measured = [r for r in final.results if not r.warmup]
        failed, stopped = sum(r.failed for r in measured), sum(r.stopped for r in measured)
        self._run_end = (self.run_kind == "replay", final.run_id, final.status, failed, stopped)
        self._show_run_end()
        if self.run_kind != "replay" and final.run_id in self.shown_runs.table:
            if self.shown_runs.finished(final.run_id):  # rows the run's events did not bring
                self.results_view.set_results(self.shown_runs.table_rows())
            if self.run_kind == "sweep":
                self.sweep_view.set_results(self.results)
        self.history_view.refresh()
        self._summary_stale = True
        if self.tabs.currentWidget() is self.summary_view:
            self.refresh_summary()

    def _show_run_end(self) -> None:
        """The status line's "Run 1a2b3c4d: finished, 1 failed", again on a language switch."""
        if self._run_end is None:
            return
        replay, run_id, status, failed, stopped = self._run_end
        name = run_id[:8]
        if replay:
            original = run_id.removeprefix("replay-of-")[:8]
            name = self.tr("replay of %1").replace("%1", original)
        self.eta.setText(
            self.tr("Run %1: %2")
            .replace("%1", name)
            .replace("%2", run_status_text(status, failed, stopped))
        )

    def _on_tab_changed(self, _index: int) -> None:
        if self.tabs.currentWidget() is self.summary_view and self._summary_stale:
            self.refresh_summary()

    def refresh_summary(self) -> None:
        """Rebuild the stakeholder page from the last run (or the one opened or replayed)."""
        self._summary_stale = False
        # as the summary names them: one model through two protocols is two entries, in pane order
        order = [pane_title(p.target) for p in self.session.panes if p.target]
        rows, store = self.results, self.session.store  # with imported files' figures and dates
        from workbench.core.history.run_facts import run_facts  # capacity's modules: not at start

        runs = run_facts(store, {r.run_id for r in rows}) if store is not None else []
        self.summary_view.summarize(rows, self.run_kind, order, order[0] if order else None, runs)

    def _on_local_ready(self, url: str) -> None:
        self._local_url = url
        self.local_label.setText(
            self.tr("Built-in provider at %1 (simulated models)").replace("%1", url)
        )

    def retranslate(self) -> None:
        """The window's own texts (title, tabs, menus, status bar) in the language installed;
        every widget inside does its own on the same LanguageChange event."""
        self.setWindowTitle(self.tr("Attention Workbench"))

        def tab(name: str, reserved: str) -> QWidget | None:  # built, else its reserved place
            return getattr(self, name, self.reserved_tabs.empty.get(reserved))

        titles = [
            (self.compare, self.tr("Compare")),
            (tab("sweep_view", "sweep"), self.tr("Sweep")),
            (tab("capacity_view", "capacity"), self.tr("Capacity")),
            (tab("results_view", "results"), self.tr("Results")),
            (tab("history_view", "history"), self.tr("History")),
            (tab("summary_view", "summary"), self.tr("Summary")),
            (tab("provider_panel", "providers"), self.tr("Providers")),
            (tab("kernels_view", "kernels"), self.tr("Kernels")),
        ]
        for widget, title in titles:
            if widget is not None and self.tabs.indexOf(widget) >= 0:
                self.tabs.setTabText(self.tabs.indexOf(widget), title)
        self.menus.retranslate()
        if self.pane_set.choices:  # the pickers' "(GQA, built-in)"
            self.pane_set.set_choices(choices_for(self.session))
        self.pane_set.refresh_context()  # the panes' context notes
        self.local_label.setText(self.tr("Starting the built-in provider…"))
        if self._local_url is not None:
            self._on_local_ready(self._local_url)
        if not self.session.running:
            self._show_run_end()
        # stopped and failed marks in the new language, from the loop: a switch inside the first
        # frame's paint that changed the charts mid-paint crashed pyqtgraph's view
        QTimer.singleShot(0, self, self.paint)

    def _show_results(self, results: list[RequestResult]) -> None:
        """A run opened from the history: the Results table and the Summary show it; a sweep
        also fills the Sweep tab, a comparison leaves the sweep's data alone."""
        self.shown_runs.show(r.run_id for r in results)
        self.results_view.set_results(self.shown_runs.table_rows())
        measured = self.results
        lengths, levels = (
            {r.prompt_tokens_target for r in measured},
            {r.concurrency for r in measured},
        )
        self.run_kind = "sweep" if len(lengths) > 1 or len(levels) > 1 else "comparison"
        if self.run_kind == "sweep":
            self.sweep_view.order = []
            self.sweep_view.set_results(measured)
            self.sweep_view.flush()
        self._summary_stale = True
        self.tabs.setCurrentWidget(self.results_view)

    def _add_imported(self, results: list[RequestResult]) -> None:
        """Imported result files join what is shown, nothing is cleared: the sweep chart, the
        Results table and the Summary put them beside our own runs (read from the history)."""
        self.shown_runs.add_imported(results)
        self.results_view.set_results(self.shown_runs.table_rows())
        self.sweep_view.extend([r for r in results if r.phase == "measured"])
        self._summary_stale = True

    def paint(self) -> None:
        """A frame: the panes and charts, and the run's clock."""
        self.pane_set.paint()
        self._show_clock()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if not self._split_once:
            self._split_once = True
            self.compare.split_panes_over_charts()
        self.shown.emit()

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        if not self._painted_once:
            self._painted_once = True
            self.painted.emit()

    def closeEvent(self, event: QCloseEvent) -> None:
        save_state(self)
        self.session.stop_all()
        self.theme.detach()
        super().closeEvent(event)
