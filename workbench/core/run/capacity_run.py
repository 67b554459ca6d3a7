"""A plan with `capacity` run as one run: each target's search, step by step, as one stream.

`CapacityRunner` wraps a Runner. Each step of a search (core/load/capacity.py) is an ordinary cell
the Runner runs (one target, one rate or concurrency); their events pass through as one run's,
with one RunStarted counting the search's worst case (so the progress and its ETA know the
schedule), one Progress count across the steps, a `CapacityFloor` after each model's floor
(its requests one at a time, which may end its search), a `CapacityStep` after each step (a
confirming step's judged on its load's requests together), and a
`CapacityFound` with run.json's `capacity` section before the one RunFinished. The history
holds every step's rows in one run and keeps the section in its config; the steps share the
run's one network baseline per target, and a cancel between two steps starts no other. The
CLI and the app both run a search through here.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from workbench.core.foundation.metrics import RequestMetrics, derive
from workbench.core.foundation.results import RequestResult
from workbench.core.history.run_history import RunStore
from workbench.core.load.capacity import FLOOR_REQUESTS, Search, Step, judge
from workbench.core.load.capacity_report import floor_json, model_json, section
from workbench.core.load.slo import goodput
from workbench.core.load.step_watch import StepWatch, decided_note
from workbench.core.planning.run_events import (
    Progress,
    RequestCount,
    RequestFinished,
    RequestStarted,
    RunEvent,
    RunFinished,
    RunStarted,
    TextDelta,
)
from workbench.core.planning.run_plan import RunPlan
from workbench.core.run.baseline import Baseline
from workbench.core.run.runner import Runner


@dataclass(frozen=True)
class CapacityStep:
    """One step of a model's search has finished (for a live chart)."""

    model: str
    step: Step


@dataclass(frozen=True)
class CapacityFound:
    """The search's answer: run.json's `capacity` section (core/load/capacity_report.py)."""

    section: dict[str, Any]


@dataclass(frozen=True)
class CapacityFloor:
    """A model's floor has been measured (its requests one at a time): run.json's `floor`
    of its answer, and the load its sweep starts at (None: the search ends here)."""

    model: str
    floor: dict[str, Any]
    start: float | None


CapacityEvent = RunEvent | CapacityStep | CapacityFloor | CapacityFound
WATCH_S = 0.25  # how often a step's waiting requests are looked at between events


def step_plan(plan: RunPlan, index: int, load: float) -> RunPlan:
    """The cell of one step: target `index` at `load` (a rate, or requests in flight)."""
    rule = plan.capacity
    assert rule is not None
    one = replace(
        plan,
        targets=(plan.targets[index],),
        capacity=None,
        concurrency_levels=plan.concurrency_levels[:1],  # a step is one cell at one level
    )
    if rule.by == "concurrency":
        return replace(one, arrivals=None, concurrency_levels=(int(load),), repeats=rule.requests)
    assert plan.arrivals is not None  # the rate steps' template
    return replace(
        one, arrivals=replace(plan.arrivals, rate=load, max_requests=rule.requests, offsets=None)
    )


def floor_plan(plan: RunPlan, index: int) -> RunPlan:
    """The floor's cell: target `index`, `FLOOR_REQUESTS` requests one at a time."""
    one = replace(plan, targets=(plan.targets[index],), capacity=None, arrivals=None)
    return replace(one, concurrency_levels=(1,), repeats=FLOOR_REQUESTS)


class OneRun:
    """The store as the runner's sink, keeping every step in one run that ends once."""

    def __init__(self, store: RunStore) -> None:
        self.store = store
        self.run_id: str | None = None

    def start_run(self, kind: str, config: dict[str, Any], run_id: str | None = None) -> str:
        if self.run_id is None:
            self.run_id = self.store.start_run(kind, config, run_id)  # type: ignore[arg-type]
        return self.run_id

    def record(self, result: RequestResult) -> None:
        self.store.record(result)

    def finish_run(self, run_id: str, status: str) -> None:
        """Each step's end: the run ends with the search (`CapacityRunner.run`)."""


class CapacityRunner:
    """Runs a plan with `capacity` through `runner`; `cancel` ends the search and its step."""

    def __init__(
        self,
        runner: Runner,
        more_devices: Mapping[str, str] | None = None,
        device_costs: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> None:
        """`more_devices`: per model, the flag that serves it on more devices (the built-in
        provider's --tp), named when its requests miss even one at a time; `device_costs`: per
        model with a deployment, its devices and their price per device-hour
        (core/planning/device_cost.py), its cost per 1,000 requests's basis."""
        self.runner = runner
        self.more_devices = dict(more_devices or {})
        self.device_costs = dict(device_costs or {})
        self.count, self._started = RequestCount(), time.perf_counter()
        self._cancelled = False
        self._stopped: set[str] = set()  # targets whose pane's Stop ended their own search
        # one network baseline per target for the whole search, as for any run: measured
        # again before each step, its 4 requests were neither planned nor counted
        self._baselines: dict[tuple[str, str], Baseline] = {}

    def cancel(self) -> None:
        self._cancelled = True
        self.runner.cancel()

    def stop_target(self, label: str) -> None:
        """End one target's search with its bracket so far (a pane's Stop); the next target's
        search goes on. (Its step ended, and the next step of the same search began.)"""
        self._stopped.add(label)
        self.runner.stop_target(label)

    def _decide(self, watch: StepWatch, where: str, decided: list[str]) -> None:
        """End the step once its outcome is known (core/load/step_watch.py)."""
        if decided or self._cancelled:
            return
        missed = watch.decided(time.perf_counter_ns())
        if missed is not None:
            decided.append(missed)
            self.runner.cancel(decided_note(where, missed))

    async def _watch(self, watch: StepWatch, where: str, decided: list[str]) -> None:
        """Between events too: a queue far past the knee sends none for minutes."""
        while not decided:
            await asyncio.sleep(WATCH_S)
            self._decide(watch, where, decided)

    @property
    def running(self) -> bool:
        return self.runner.running

    async def _step(
        self, plan: RunPlan, cell: RunPlan, planned: int, where: str, out: _StepOut
    ) -> AsyncIterator[CapacityEvent]:
        """Run one step's cell, passing its events on; what it measured goes to `out`."""
        if self._cancelled:  # stopped between steps: the runner's next run would forget it
            out.status = "cancelled"
            return
        watch = StepWatch(plan.slo, planned)
        ticker = asyncio.create_task(self._watch(watch, where, out.decided))
        try:
            async for event in self.runner.run(cell, self._baselines):
                if isinstance(event, RunFinished):
                    out.status, out.message = event.status, event.message
                    continue
                if isinstance(event, RunStarted | Progress):
                    continue  # the search's own, below
                yield event
                _follow(watch, event)
                if isinstance(event, RequestFinished) and event.result.phase == "measured":
                    out.rows.append(event.result)
                    self.count.take(event.result)
                    total = max(plan.total_requests, self.count.done)
                    yield self.count.progress(total, time.perf_counter() - self._started)
                    self._decide(watch, where, out.decided)
        finally:
            ticker.cancel()
        if out.decided and out.status == "cancelled" and not self._cancelled:
            out.status, out.message = "finished", ""  # the step ended early, not the search
        if self._cancelled and out.status == "finished":
            out.status = "cancelled"

    async def _floor(
        self, plan: RunPlan, index: int, search: Search, out: _StepOut
    ) -> AsyncIterator[CapacityEvent]:
        """The search's first step: `FLOOR_REQUESTS` requests one at a time."""
        async for event in self._step(
            plan, floor_plan(plan, index), FLOOR_REQUESTS, "one request at a time", out
        ):
            yield event
        if out.status != "finished" or plan.targets[index].label in self._stopped:
            return
        measured = [(r, derive(r)) for r in out.rows]
        lone = [m.e2e_ms for r, m in measured if r.ok and m.e2e_ms is not None]
        ended = out.decided[0] if out.decided else None
        search.take_floor(
            judge(1, measured, plan.slo, None, ended, one_at_a_time=True), _mean_s(lone)
        )
        start = None if search.status == "floor" else search.rule.start
        yield CapacityFloor(plan.targets[index].model, floor_json(search) or {}, start)

    async def run(self, plan: RunPlan) -> AsyncIterator[CapacityEvent]:
        rule = plan.capacity
        if rule is None or not plan.slo:
            raise ValueError("a capacity search needs a plan with `capacity` and an SLO")
        self._cancelled = False
        self._stopped = set()
        store = self.runner.sink
        sink = OneRun(store) if isinstance(store, RunStore) else None
        run_id = (
            sink.start_run(plan.kind, plan.to_config())
            if sink is not None
            else f"run-{int(time.time() * 1000):x}"
        )
        self.runner.sink = sink if sink is not None else store
        status: Any = "finished"
        message = ""
        answers: list[dict[str, Any]] = []
        self.count, self._started = RequestCount(), time.perf_counter()
        self._baselines = {}
        try:
            yield RunStarted(run_id, plan, plan.total_requests)
            for index, target in enumerate(plan.targets):
                search = Search(rule)
                if status == "finished" and target.label not in self._stopped:
                    out = _StepOut()
                    async for event in self._floor(plan, index, search, out):
                        yield event
                    status, message = out.status, out.message
                pooled: tuple[list[tuple[RequestResult, RequestMetrics]], float] = ([], 0.0)
                while (
                    status == "finished"
                    and target.label not in self._stopped
                    and (load := search.next_load()) is not None
                ):
                    out = _StepOut()
                    where = f"{load:g} req/s" if rule.by == "rate" else f"{load:g} requests at once"
                    async for event in self._step(
                        plan, step_plan(plan, index, load), rule.requests, where, out
                    ):
                        yield event
                    status, message = out.status, out.message
                    if status != "finished" or target.label in self._stopped:
                        break  # a pane's Stop cut this step short: its rows are not judged
                    measured = [(r, derive(r)) for r in out.rows]
                    found = goodput(measured)
                    span = found.duration_s if found else 0.0
                    if search.steps and search.steps[-1].load == load:  # a confirming step
                        measured, span = pooled[0] + measured, pooled[1] + span
                    pooled = (measured, span)
                    ended = out.decided[0] if out.decided else None
                    step = judge(load, measured, plan.slo, span or None, ended)
                    search.take(step)
                    yield CapacityStep(target.model, step)
                if status != "finished" or target.label in self._stopped:
                    search.stop()
                more = self.more_devices.get(target.model)
                device = self.device_costs.get(target.model)
                answers.append(model_json(target.model, search, more, device))
            found_section = section(rule, plan.slo, plan.prompt_lengths[0], answers)
            if sink is not None:
                sink.store.annotate(run_id, "capacity", found_section)
            yield CapacityFound(found_section)
        except BaseException:  # closed early, or a bug: the run does not end as finished
            status = "cancelled" if self._cancelled else "failed"
            raise
        finally:
            self.runner.sink = store
            if sink is not None:
                sink.store.finish_run(run_id, status)
        yield RunFinished(run_id, status, (), message)


def _mean_s(values_ms: list[float]) -> float | None:
    return sum(values_ms) / len(values_ms) / 1000 if values_ms else None


@dataclass
class _StepOut:
    """What one step's run measured and how it ended."""

    rows: list[RequestResult] = field(default_factory=list)
    decided: list[str] = field(default_factory=list)  # the objective that ended it early
    status: Any = "finished"
    message: str = ""


def _follow(watch: StepWatch, event: CapacityEvent) -> None:
    """Tell the step's watch what a runner event says about its measured requests."""
    if isinstance(event, RequestStarted) and not event.warmup and event.repeat >= 0:
        watch.started(event.request_id, event.t_ns)
    elif isinstance(event, TextDelta):
        watch.answered(event.request_id)
    elif isinstance(event, RequestFinished) and event.result.phase == "measured":
        watch.finished(event.result, event.metrics)
