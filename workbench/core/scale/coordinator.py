"""One run over several workers (processes here, or Ray actors): the coordinator.

It calibrates once (in this process, with the unchanged Runner in calibration-only mode) and
hands the calibration to every worker, so all build same-sized prompts. Then, round by round
(shards.rounds), it gives each worker its share and one common start, takes the raw rows back
as they finish, numbers them as one run, derives the metrics with the unchanged metrics module,
writes the history and emits the Runner's own events: the CSV, the history and the printed
table see one run with one run id. Rows a dead worker still owed become `worker_lost` rows; the
other workers finish their shares.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal, Protocol

from workbench.core.foundation.redaction import redact_and_cut
from workbench.core.foundation.results import ErrorClass, RequestResult, Target, target_label
from workbench.core.load.prompts import PromptBuilder
from workbench.core.planning.run_events import (
    Progress,
    RequestCount,
    RequestFinished,
    RunEvent,
    RunFinished,
    RunStarted,
)
from workbench.core.planning.run_plan import RunPlan
from workbench.core.run.calibration_checks import name_failed_calibration
from workbench.core.run.request_rows import metrics_of
from workbench.core.run.run_sink import STORE_RETRY_S, ResultSink, run_stopped, store_call
from workbench.core.run.runner import KeyResolver, Runner
from workbench.core.scale.shards import (
    Job,
    RequestKey,
    globalize,
    key_of,
    lost_row,
    planned,
    rounds,
    split,
)
from workbench.core.transport.clients import ClientOptions, ClientPool, Transport

# the common start is this far after the last worker said it was ready: enough for the "go"
# to reach every worker (a pipe, or a Ray call across nodes) before it is due
START_LEAD_S = 0.2
Message = tuple[Any, ...]


class Workers(Protocol):
    """Where the shares run: worker_process.ProcessWorkers or cluster.RayWorkers."""

    count: int
    messages: asyncio.Queue[tuple[int, Message]]

    def describe(self, shares: Sequence[int]) -> str: ...
    def offset_s(self, index: int) -> float: ...
    async def start(self, jobs: Sequence[Job]) -> None: ...
    def go(self, start_at: float) -> None: ...
    def ended(self, index: int, lost: str | None = None) -> None: ...
    def cancel(self) -> None: ...
    async def close(self) -> None: ...


class _SameRun:
    """The calibration runner's sink: the coordinator's run id, rows to the real history."""

    def __init__(self, run_id: str, sink: ResultSink | None) -> None:
        self.run_id, self.sink = run_id, sink

    def start_run(self, kind: str, config: dict[str, Any], run_id: str | None = None) -> str:
        return self.run_id

    def record(self, result: RequestResult) -> None:
        if self.sink is not None:
            self.sink.record(result)

    def finish_run(self, run_id: str, status: str) -> None:
        pass


@dataclass
class _Tally:
    run_id: str
    plan: RunPlan
    started_ns: int = field(default_factory=time.perf_counter_ns)
    count: RequestCount = field(default_factory=RequestCount)
    failure: str | None = None
    results: list[RequestResult] = field(default_factory=list)
    # (target label, prompt length) -> its calibration request that failed, as the Runner keeps
    failed_calibrations: dict[tuple[str, int], RequestResult] = field(default_factory=dict)


class ShardedRunner:
    """The Runner's `run(plan)` / `cancel()` over several workers; rows arrive as raw results.

    `options` and `keys` are what each worker's client pool needs (base URL -> options, route
    -> key); `pool` serves the calibration requests made here.
    """

    def __init__(
        self,
        workers: Workers,
        pool: ClientPool,
        *,
        sink: ResultSink | None,
        keys: KeyResolver,
        builder: PromptBuilder,
        transport: Transport,
        options: dict[str, ClientOptions],
        route_keys: dict[str | None, str | None],
        keep_results: bool = True,
        store_retry_s: float = STORE_RETRY_S,
    ) -> None:
        self.workers = workers
        self.sink = sink
        self.keep_results = keep_results
        self.store_retry_s = store_retry_s
        self.calibration = builder.calibration
        self._calibrator = Runner(
            pool, None, keys, builder, keep_results=False, calibrate_only=True
        )
        self._job_parts = (transport, tuple(options.items()), tuple(route_keys.items()))
        self._cancelled = False
        self._stop_reason: str | None = None  # stop_because's cause, for the rows and the end

    def cancel(self) -> None:
        """Stop every worker: requests in flight become 'cancelled' rows, which still come back."""
        self._cancelled = True
        self._calibrator.cancel()
        self.workers.cancel()

    def stop_because(self, reason: str) -> None:
        """Stop every worker for a cause beyond any request; the run ends failed with it."""
        self._stop_reason = reason
        self.cancel()

    async def run(self, plan: RunPlan) -> AsyncIterator[RunEvent]:
        self._cancelled = False
        self._stop_reason = None
        run_id = (
            self.sink.start_run(plan.kind, plan.to_config())
            if self.sink
            else f"run-{int(time.time() * 1000):x}"
        )
        tally = _Tally(run_id, plan)
        yield RunStarted(run_id, plan, plan.total_requests)
        try:
            skipped: set[str] = set()
            async for event in self._calibrate(tally, skipped):
                yield event
            targets = tuple(t for t in plan.targets if t.label not in skipped)
            if targets and not self._halted(tally):
                for part in rounds(replace(plan, targets=targets)):
                    if self._halted(tally):
                        break
                    async for event in self._round(tally, part):
                        yield event
        except Exception as exc:  # a bug of ours ends the run failed, with its rows kept
            text = redact_and_cut(f"{type(exc).__name__}: {exc}", 500)
            tally.failure = tally.failure or f"internal error: {text}"
        finally:
            self.workers.cancel()  # only workers still in a round: a consumer that left early
            await self.workers.close()
        tally.failure = tally.failure or self._stop_reason
        status: Literal["finished", "cancelled", "failed"] = "finished"
        if tally.failure is not None:
            status = "failed"
        elif self._cancelled:
            status = "cancelled"
        message = tally.failure or ""
        sink = self.sink
        if sink is not None:
            problem = await self._store(tally, lambda: sink.finish_run(run_id, status))
            if problem:
                note = f"the run's end could not be recorded: {problem}"
                status, message = "failed", f"{message}; {note}" if message else note
        yield RunFinished(run_id, status, tuple(tally.results), message)

    def _halted(self, tally: _Tally) -> bool:
        return self._cancelled or tally.failure is not None

    async def _calibrate(self, tally: _Tally, skipped: set[str]) -> AsyncIterator[RunEvent]:
        """Each target's calibration, here and once; a target it rules out (a wrong key or
        model id) gets its 'not sent' rows here and no share in the rounds."""
        if not tally.plan.calibrate:
            return
        self._calibrator.sink = _SameRun(tally.run_id, self.sink)
        self._calibrator.store_retry_s = self.store_retry_s
        async for event in self._calibrator.run(tally.plan):
            if isinstance(event, RequestFinished):
                result = event.result
                if result.phase != "calibration":
                    skipped.add(event.target.label)
                elif not result.ok and result.error_class is not ErrorClass.CANCELLED:
                    cell = (event.target.label, result.prompt_tokens_target or 0)
                    tally.failed_calibrations[cell] = result
                async for out in self._emit(tally, event):
                    yield out
            elif isinstance(event, RunFinished):
                if event.status == "failed":
                    tally.failure = event.message
            elif not isinstance(event, (Progress, RunStarted)):
                yield event

    async def _emit(self, tally: _Tally, event: RequestFinished) -> AsyncIterator[RunEvent]:
        """A stored row to the consumers, and the run's progress."""
        if self.keep_results:
            tally.results.append(event.result)
        yield event
        if event.result.phase == "calibration":
            return
        tally.count.take(event.result)
        elapsed = (time.perf_counter_ns() - tally.started_ns) / 1e9
        yield tally.count.progress(tally.plan.total_requests, elapsed)

    async def _round(self, tally: _Tally, part: RunPlan) -> AsyncIterator[RunEvent]:
        """One round: every worker's share from one common start; rows as they finish."""
        shards = {s.index: s for s in split(part, self.workers.count)}
        transport, options, keys = self._job_parts
        calibration = self.calibration.to_dict() if self.calibration else {}
        jobs = [
            Job(s, tally.run_id, calibration, transport, options, keys) for s in shards.values()
        ]
        await self.workers.start(jobs)
        self.workers.go(time.time() + START_LEAD_S)
        seen: dict[int, set[RequestKey]] = {i: set() for i in shards}
        targets = {(t.label, t.route): t for t in part.targets}
        pending = set(shards)
        while pending:
            index, message = await self.workers.messages.get()
            if index not in pending:
                continue  # news of a worker from an earlier round
            if message[0] == "row":
                result: RequestResult = message[1]
                globalize(
                    result, shards[index], part.concurrency_levels[0], self.workers.offset_s(index)
                )
                seen[index].add(key_of(result))
                target = targets[
                    (target_label(result.provider, result.model, result.protocol), result.route)
                ]
                async for event in self._row(tally, result, target):
                    yield event
            elif message[0] == "end":
                pending.discard(index)
                self.workers.ended(index)
                if message[1] == "failed" and tally.failure is None:
                    tally.failure = message[2]
            elif message[0] == "lost":
                pending.discard(index)
                self.workers.ended(index, lost=message[1])
                owed = [k for k in planned(shards[index]) if k not in seen[index]]
                async for event in self._lost(tally, part, owed, targets, message[1]):
                    yield event

    async def _lost(
        self,
        tally: _Tally,
        part: RunPlan,
        owed: list[RequestKey],
        targets: dict[tuple[str, str | None], Target],
        why: str,
    ) -> AsyncIterator[RunEvent]:
        if self._cancelled:
            return  # a stopped run has no rows for requests it never sent
        for key in owed:
            target = targets[(key[0], key[1])]
            row = lost_row(key, target, part, tally.run_id, part.concurrency_levels[0], why)
            async for event in self._row(tally, row, target):
                yield event

    async def _row(
        self, tally: _Tally, result: RequestResult, target: Target
    ) -> AsyncIterator[RunEvent]:
        failed = tally.failed_calibrations.get((target.label, result.prompt_tokens_target or 0))
        if failed is not None:  # as the Runner names it in one process
            name_failed_calibration(result, failed)
        if self._stop_reason is not None and result.error_class is ErrorClass.CANCELLED:
            result.error_message = run_stopped(self._stop_reason)  # a worker's SIGTERM's row
        metrics = metrics_of(result)  # the unchanged metrics module, as one process
        if self.sink is not None and tally.failure is None:
            sink = self.sink
            problem = await self._store(tally, lambda: sink.record(result))
            if problem and tally.failure is None:
                tally.failure = problem
                self.workers.cancel()
        async for event in self._emit(tally, RequestFinished(result, metrics, target)):
            yield event

    async def _store(self, tally: _Tally, call: Callable[[], object]) -> str | None:
        """A store call with the Runner's retries of a locked database (one try once failed)."""
        return await store_call(call, 0.0 if tally.failure is not None else self.store_retry_s)
