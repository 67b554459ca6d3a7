"""The app's controller of a comparison: runs (and replays) into the panes.

Its one job: a run's events land in plain PaneModels, and one 30 Hz timer emits `frame` only
when something changed, and only while a run is active. What it holds for that has rooms of its
own: the built-in provider's process (builtin_provider.py), pane targets (pane_targets.py), the
history's queries (history_queries.py), a replay's plan and events (replay_run.py) and the run's
HTTP clients (run_clients.py). Widgets call its methods and listen to its signals; they never
touch the network or the database (docs/architecture.md, rule 4).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer, Signal

from workbench.core.access.providers import Provider
from workbench.core.foundation.results import RequestResult, Target
from workbench.core.history.run_history import (
    IN_MEMORY,
    RunStore,
)
from workbench.core.load.prompts import PromptBuilder
from workbench.core.models.catalog import Catalog, load_catalog
from workbench.core.planning.progress_estimate import ProgressEstimate
from workbench.core.planning.run_events import (
    Progress,
    RequestFinished,
    RequestStarted,
    RunEvent,
    RunFinished,
    RunStarted,
    TextDelta,
)
from workbench.core.planning.run_plan import RunPlan
from workbench.core.run.calibration_file import load_calibration, save_calibration
from workbench.core.run.plan import LOCAL_PROVIDER as LOCAL_PROVIDER
from workbench.ui.builtin_provider import BuiltInProvider
from workbench.ui.history_queries import HistoryQueries
from workbench.ui.panes_model import PaneModel, PaneState
from workbench.ui.replay_run import replay_run
from workbench.ui.run_clients import RunClients

if TYPE_CHECKING:  # the runner and its HTTP client load at the first run, not before the paint
    from workbench.core.run.capacity_run import CapacityRunner
    from workbench.core.run.runner import Runner
    from workbench.core.transport.clients import ClientPool

log = logging.getLogger(__name__)


YIELD_EVERY = 32  # events applied before the consumer lets other callbacks run
FRAME_MS = 33  # ~30 Hz: smooth to the eye, cheap for the loop
CLOCK_S = 0.1  # while a request waits for its first token, clocks still move at 10 Hz


class CompareController(QObject):
    frame = Signal()
    running_changed = Signal(bool)
    progress = Signal(int, int)  # done, total: `estimate` has the share done and the ETA
    request_finished = Signal(object)  # RequestResult
    run_started = Signal(object)  # RunPlan
    run_finished = Signal(object)  # RunFinished
    local_provider_ready = Signal(str)  # base URL
    capacity_event = Signal(object)  # a capacity search's CapacityStep or CapacityFound

    def __init__(
        self,
        store: RunStore | None = None,
        catalog: Catalog | None = None,
        time_scale: float = 1.0,
        parent: QObject | None = None,
        kernel_csv: str | None = None,
    ) -> None:
        super().__init__(parent)
        self.catalog = catalog or load_catalog()
        # the one source of rows for the table, sweep, summary and export; without a history
        # file (none given, or it could not open) the runs are kept in memory for the session
        self.store: RunStore | None = store if store is not None else RunStore(IN_MEMORY)
        self.records = HistoryQueries(lambda: self.store)
        self.builtin = BuiltInProvider(time_scale, kernel_csv)
        self.panes: list[PaneModel] = []
        self.providers: dict[str, Provider] = {}
        self.clients = RunClients()  # each saved provider's key, headers, proxy and TLS
        self._calibration = load_calibration()
        self._runner: Runner | CapacityRunner | None = None  # the run's, for Stop
        self._task: asyncio.Task[RunFinished | None] | None = None
        self._dirty = False
        self._framed_at = 0.0
        self._panes_take = True  # the run's requests are drawn in the panes (not a sweep's)
        self._by_request: dict[str, list[int]] = {}
        # the run's share done and ETA: the estimate the CLI shows too, fed the same events
        self.estimate = ProgressEstimate([], time.perf_counter())
        self._timer = QTimer(self)
        self._timer.setInterval(FRAME_MS)
        self._timer.timeout.connect(self._tick)

    # ---- lifecycle ----

    @property
    def local_base_url(self) -> str | None:
        """The built-in provider's base URL; None until it runs."""
        return self.builtin.base_url

    async def start_local_provider(self) -> str:
        """Start the built-in provider (once) and say so with `local_provider_ready`."""
        started = self.builtin.base_url is not None
        url = await self.builtin.start()
        if not started:
            self.local_provider_ready.emit(url)
        return url

    async def close(self) -> None:
        """Stop everything this session started; safe to call twice."""
        self.stop_all()
        if self._task is not None:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.wait_for(self._task, 5)
        self._timer.stop()
        await self.clients.aclose()
        await self.builtin.stop()
        save_calibration(self._calibration)
        if self.store is not None:
            self.store.close()
            self.store = None

    # ---- panes ----

    def set_targets(self, targets: Sequence[Target | None]) -> None:
        while len(self.panes) < len(targets):
            self.panes.append(PaneModel())
        del self.panes[len(targets) :]
        for pane, target in zip(self.panes, targets, strict=True):
            if pane.target != target:
                pane.target = target
                pane.reset()
        self._dirty = True

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    # ---- runs ----

    def start_run(
        self, plan: RunPlan, device_cost: float | None = None
    ) -> asyncio.Task[RunFinished | None]:
        """Start a run in the background; progress comes back as signals. Raises
        ProviderUnusable, with nothing sent, when a provider's key or header cannot be used.
        `device_cost`: a capacity search's own price per device-hour (bench --device-cost),
        None for the list price."""
        if self.running:
            raise RuntimeError("a run is already in progress")
        pool = self.clients.prepare(plan, self.providers)
        events = self._run_events(plan, pool, device_cost)
        self._task = asyncio.ensure_future(self._consume(events, plan))
        return self._task

    def start_replay(self, results: Sequence[RequestResult], speed: float = 1.0) -> asyncio.Task:
        """Replay recorded requests in the panes with their original timing.

        A replay is its own run ("replay-of-<run id>"), never recorded: the history already
        holds these requests, and the panes show the recorded figures, not new ones."""
        if self.running:
            raise RuntimeError("a run is already in progress")
        plan, events = replay_run(results, speed)
        self.set_targets(plan.targets)
        self._task = asyncio.ensure_future(self._consume(events, plan, replay=True))
        return self._task

    def stop_all(self) -> None:
        if self._runner is not None:
            self._runner.cancel()
        elif self._task is not None and not self._task.done():
            self._task.cancel()  # a replay has no runner

    def stop_pane(self, index: int) -> None:
        pane = self.panes[index]
        if self._runner is not None and pane.target is not None:
            self._runner.stop_target(pane.target.label)

    async def _run_events(
        self, plan: RunPlan, pool: ClientPool, device_cost: float | None = None
    ) -> AsyncIterator[RunEvent]:
        from workbench.core.run.capacity_run import CapacityFound, CapacityRunner, CapacityStep
        from workbench.core.run.runner import Runner

        builder = PromptBuilder(self._calibration)
        inner = Runner(pool, sink=self.store, keys=self.clients.key, builder=builder)
        runner: Runner | CapacityRunner = inner
        if plan.capacity is not None:  # a deployment's cost is its device time at that price
            from workbench.core.planning.device_cost import device_costs

            models = [t.model for t in plan.targets]
            costs = device_costs(self.catalog, models, own_price=device_cost)
            runner = CapacityRunner(inner, device_costs=costs)
        # Stop cancels the search itself: its inner runner, between two steps, ran the next
        # step as if nothing had been asked (a Stop at once let the whole search run)
        self._runner = runner
        try:
            async for event in runner.run(plan):
                if isinstance(event, CapacityStep | CapacityFound):  # core/run/capacity_run.py
                    self.capacity_event.emit(event)
                    continue
                yield event
        finally:
            self._runner = None

    async def _consume(
        self, events: AsyncIterator[RunEvent], plan: RunPlan, replay: bool = False
    ) -> RunFinished | None:
        self._by_request.clear()
        for pane in self.panes:
            pane.reset()
        # a sweep's requests are shown in the Sweep tab: the panes' header names one prompt
        # length, and a sweep's requests at other lengths drawn there were under a wrong label
        self._panes_take = plan.kind != "sweep"
        self.estimate = ProgressEstimate.for_plan(plan, time.perf_counter())
        log.info("run started: %s, %d targets", plan.kind, len(plan.targets))
        self.run_started.emit(plan)
        self.running_changed.emit(True)
        self._timer.start()
        final: RunFinished | None = None
        try:
            applied = 0
            async for event in events:
                self._apply(event)
                if isinstance(event, RunFinished):
                    final = event
                applied += 1
                # a burst of queued events must not starve the loop; a finished request costs
                # more (its table row, its figures), and 8 panes finish within a few ms
                if applied % YIELD_EVERY == 0 or isinstance(event, RequestFinished):
                    await asyncio.sleep(0)
        except asyncio.CancelledError:
            for pane in self.panes:
                if pane.state in (PaneState.WAITING, PaneState.STREAMING):
                    pane.state = PaneState.STOPPED
        finally:
            self._timer.stop()
            self._dirty = False
            self.frame.emit()
            self.running_changed.emit(False)
            if final is not None:
                log.info("run %s %s: %d requests", final.run_id, final.status, len(final.results))
                self.run_finished.emit(final)
            else:
                log.info("run stopped before it finished")
            if not replay:
                save_calibration(self._calibration)
        return final

    def _panes_for(self, target: Target) -> list[int]:
        return [
            i
            for i, p in enumerate(self.panes)
            if p.target == target
            or (p.target is not None and replace(p.target, base_url=target.base_url) == target)
        ]

    def _apply(self, event: RunEvent) -> None:
        self.estimate.feed(event, time.perf_counter())
        if isinstance(event, RequestStarted):
            indexes = self._panes_for(event.target) if self._panes_take else []
            self._by_request[event.request_id] = indexes
            if not event.warmup:
                for i in indexes:
                    self.panes[i].reset(event.request_id, event.t_ns)
        elif isinstance(event, TextDelta):
            for i in self._by_request.get(event.request_id, ()):
                if self.panes[i].request_id == event.request_id:
                    self.panes[i].add_text(event.text, event.reasoning, event.t_ns, event.t_send_ns)
        elif isinstance(event, RequestFinished):
            for i in self._by_request.pop(event.result.request_id, ()):
                if self.panes[i].request_id == event.result.request_id:
                    self.panes[i].finish(event.result)
            if event.result.phase != "warmup":  # calibration rows go to the results table
                self.request_finished.emit(event.result)
        elif isinstance(event, Progress):
            self.progress.emit(event.done, event.total)
        elif isinstance(event, RunStarted):
            self.progress.emit(0, event.total)
        self._dirty = True

    def _tick(self) -> None:
        now = time.monotonic()
        waiting = any(p.state is PaneState.WAITING for p in self.panes)
        if self._dirty or (waiting and now - self._framed_at >= CLOCK_S):
            self._dirty = False
            self._framed_at = now
            self.frame.emit()
