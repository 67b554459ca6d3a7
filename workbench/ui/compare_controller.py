"""The app's controller: owns the built-in provider, the runner and the history store.

Widgets call its methods and listen to its signals; they never touch the network or the
database (docs/architecture.md, rule 4). Runner events land in plain PaneModels; one 30 Hz timer
emits `frame` only when something changed, and only while a run is active.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer, Signal

from workbench.core.calibration_file import load_calibration, save_calibration
from workbench.core.catalog import Catalog, load_catalog
from workbench.core.imported_figures import ImportedFigures, imported_figures
from workbench.core.plan import LOCAL_PROVIDER as LOCAL_PROVIDER
from workbench.core.plan import local_target, saved_target
from workbench.core.progress_estimate import ProgressEstimate
from workbench.core.prompts import PromptBuilder
from workbench.core.providers import Protocol, Provider
from workbench.core.replay import replay_events
from workbench.core.reported_figures import reported
from workbench.core.results import RequestResult, Target
from workbench.core.run_events import (
    Progress,
    RequestFinished,
    RequestStarted,
    RunEvent,
    RunFinished,
    RunStarted,
    TextDelta,
)
from workbench.core.run_history import (
    IN_MEMORY,
    RunStore,
    StoreError,
)
from workbench.core.run_plan import RunPlan
from workbench.core.secrets import KeyUnavailable, redact, resolve_headers
from workbench.ui.panes_model import PaneModel, PaneState, split_pane_key

if TYPE_CHECKING:  # the runner and its HTTP client load at the first run, not before the paint
    from workbench.core.clients import ClientPool
    from workbench.core.runner import Runner

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class HistoryRow:
    run_id: str
    when: str
    kind: str
    status: str
    requests: int  # measured requests, counted as `RunStore.runs` counts them for the CLI too
    errors: int  # failed, not counting those the user stopped
    models: list[str]
    prompt_lengths: list[int]
    calibration: int = 0  # short requests that measured each model's tokenizer
    warmup: int = 0
    created_at: float = 0.0
    imported_from: str | None = None  # the tool whose result file the run was imported from
    stopped: int = 0  # of `requests`, stopped by the user: not failures
    file_ttft_ms: float | None = None  # an imported run's median TTFT, as its file states it


def _imported_from(config: dict[str, object]) -> str | None:
    source = config.get("imported")
    tool = source.get("tool") if isinstance(source, dict) else None
    return tool if isinstance(tool, str) else None


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
        self.time_scale = time_scale
        self.kernel_csv = kernel_csv  # measured attention latencies for the built-in provider
        self.panes: list[PaneModel] = []
        self.local_base_url: str | None = None
        self.keys: Callable[[Target], str | None] = lambda _t: None
        self.providers: dict[str, Provider] = {}
        self._server = None
        self._pool: ClientPool | None = None  # made at the first run
        self._calibration = load_calibration()
        self._runner: Runner | None = None
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

    async def start_local_provider(self) -> str:
        """Start the built-in provider: a real HTTP server on 127.0.0.1, in its own process."""
        if self._server is None:
            from workbench.local.process import ServerProcess

            extra = ("--kernel-csv", self.kernel_csv) if self.kernel_csv else ()
            server = ServerProcess(time_scale=self.time_scale, extra=extra)
            self.local_base_url = await server.start()
            self._server = server
            self.local_provider_ready.emit(self.local_base_url)
        assert self.local_base_url is not None
        return self.local_base_url

    async def close(self) -> None:
        """Stop everything this session started; safe to call twice."""
        self.stop_all()
        if self._task is not None:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.wait_for(self._task, 5)
        self._timer.stop()
        if self._pool is not None:
            await self._pool.aclose()
        if self._server is not None:
            await self._server.stop()
            self._server = None
        save_calibration(self._calibration)
        if self.store is not None:
            self.store.close()
            self.store = None

    # ---- panes ----

    def local_target(self, model_id: str, protocol: Protocol | None = None) -> Target:
        """A Target on the built-in provider, with the catalog's attention and prices;
        `protocol` None: chat completions (it speaks all three)."""
        return local_target(self.catalog, self.local_base_url, model_id, protocol)

    def set_targets(self, targets: Sequence[Target | None]) -> None:
        while len(self.panes) < len(targets):
            self.panes.append(PaneModel())
        del self.panes[len(targets) :]
        for pane, target in zip(self.panes, targets, strict=True):
            if pane.target != target:
                pane.target = target
                pane.reset()
        self._dirty = True

    def provider_target(
        self, provider: str, model: str, protocol: Protocol | None = None
    ) -> Target | None:
        """A Target on a saved provider (`protocol` None: the provider's own), or None when
        the provider is unknown."""
        entry = self.providers.get(provider)
        return None if entry is None else saved_target(self.catalog, entry, model, protocol)

    def target_for(self, key: str) -> Target | None:
        """The Target of a pane key ('provider|model', or with '|protocol' after it)."""
        provider, model, protocol = split_pane_key(key)
        if provider == LOCAL_PROVIDER:
            return self.local_target(model, protocol)
        return self.provider_target(provider, model, protocol)

    # ---- history ----

    def history(self, limit: int = 100) -> list[HistoryRow]:
        if self.store is None:
            return []
        rows = []
        for run in self.store.runs(limit):
            targets = [t for t in run.config.get("targets", ()) if isinstance(t, dict)]
            lengths = [int(n) for n in run.config.get("prompt_lengths", ()) if isinstance(n, int)]
            when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(run.created_at))
            rows.append(
                HistoryRow(
                    run.run_id, when, run.kind, run.status, run.requests, run.errors,
                    [str(t.get("model", "?")) for t in targets], lengths, run.calibration,
                    run.warmup, run.created_at, _imported_from(run.config), run.stopped,
                    self._file_ttft(run.run_id) if _imported_from(run.config) else None,
                )
            )  # fmt: skip
        return rows

    def _file_ttft(self, run_id: str) -> float | None:
        stored = self.store.aggregates(run_id) if self.store is not None else {}
        return reported(stored)[0].get("median_ttft_ms")

    def load_run(self, run_id: str, skip: int = 0) -> list[RequestResult]:
        """A run's rows as the history holds them; `skip`: leave out the first that many."""
        return [] if self.store is None else self.store.results(run_id, skip)

    def delete_run(self, run_id: str) -> None:
        """Remove a run from the history; one still running is refused (StoreError)."""
        if self.store is None:
            return
        if self.store.run(run_id).status == "running":
            raise StoreError(f"run {run_id} is still running: stop it first, then delete it")
        self.store.delete_run(run_id)

    def request_ids(self, run_id: str) -> list[str]:
        return [] if self.store is None else self.store.request_ids(run_id)

    def imported_figures(self, run_id: str) -> ImportedFigures | None:
        """An imported run's own aggregates in our terms (None: not imported, or none kept)."""
        if self.store is None:
            return None
        return imported_figures(
            run_id, self.store.run(run_id).config, self.store.aggregates(run_id)
        )

    def rows(self, run_ids: Sequence[str]) -> list[RequestResult]:
        """The rows of these runs as the history holds them, run by run (warm-ups left out:
        they are never rows of a table or a CSV)."""
        return [r for run_id in run_ids for r in self.load_run(run_id) if r.phase != "warmup"]

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    # ---- runs ----

    def start_run(self, plan: RunPlan) -> asyncio.Task[RunFinished | None]:
        """Start a run in the background; progress comes back as signals."""
        if self.running:
            raise RuntimeError("a run is already in progress")
        self._task = asyncio.ensure_future(self._consume(self._run_events(plan), plan))
        return self._task

    def start_replay(self, results: Sequence[RequestResult], speed: float = 1.0) -> asyncio.Task:
        """Replay recorded requests in the panes with their original timing.

        A replay is its own run ("replay-of-<run id>"), never recorded: the history already
        holds these requests, and the panes show the recorded figures, not new ones."""
        if self.running:
            raise RuntimeError("a run is already in progress")
        targets = []
        for r in results:
            t = Target(r.provider, r.base_url, r.model, r.attention, r.prices, protocol=r.protocol)
            if r.warmup:
                continue
            if t not in targets:
                targets.append(t)
        self.set_targets(targets)
        plan = RunPlan(
            targets=tuple(targets),
            prompt_lengths=tuple(dict.fromkeys(r.prompt_tokens_target or 1 for r in results)),
            kind="replay",
        )
        run_id = f"replay-of-{results[0].run_id}"
        events = replay_events(results, speed=speed, run_id=run_id)
        self._task = asyncio.ensure_future(self._consume(events, plan, replay=True))
        return self._task

    def in_run_order(self, results: Sequence[RequestResult]) -> list[RequestResult]:
        """A run's rows (which come in the order they finished) in the order of its targets,
        as the run laid its panes out; the rows' own order where the history has no plan."""
        order: dict[tuple[str, str, str], int] = {}
        try:
            config = self.store.run(results[0].run_id).config if self.store and results else {}
        except StoreError:
            config = {}  # a run the history no longer holds
        for t in config.get("targets", ()):
            if isinstance(t, dict):
                key = (str(t.get("provider")), str(t.get("model")), str(t.get("protocol", "chat")))
                order.setdefault(key, len(order))
        return sorted(results, key=lambda r: order.get((r.provider, r.model, r.protocol), 0))

    def stop_all(self) -> None:
        if self._runner is not None:
            self._runner.cancel()
        elif self._task is not None and not self._task.done():
            self._task.cancel()  # a replay has no runner

    def stop_pane(self, index: int) -> None:
        pane = self.panes[index]
        if self._runner is not None and pane.target is not None:
            self._runner.stop_target(pane.target.label)

    async def _run_events(self, plan: RunPlan) -> AsyncIterator[RunEvent]:
        from workbench.core.clients import ClientPool
        from workbench.core.runner import Runner

        builder = PromptBuilder(self._calibration)
        if self._pool is None:
            self._pool = ClientPool()
        self._configure_clients(self._pool, plan)
        self._runner = Runner(self._pool, sink=self.store, keys=self.keys, builder=builder)
        try:
            async for event in self._runner.run(plan):
                yield event
        finally:
            self._runner = None

    def _configure_clients(self, pool: ClientPool, plan: RunPlan) -> None:
        """A saved provider's headers, proxy and TLS for its requests, as the CLI applies them."""
        from workbench.core.clients import ClientOptions

        for name in {t.provider for t in plan.targets}:
            provider = self.providers.get(name)
            if provider is None:
                continue
            try:
                headers = resolve_headers(provider)
            except KeyUnavailable as exc:  # its requests go without them, and fail as they will
                log.warning("%s", redact(str(exc)))
                headers = {}
            pool.configure(provider.base_url, ClientOptions.for_provider(provider, headers))

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
