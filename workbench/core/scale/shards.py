"""One run over several client processes: how a plan is shared out, and one share's runner.

A run over N workers is made of rounds (one per prompt length, and per target in sequential
mode), so that every worker starts each cell at the same moment and a cell's concurrency is
the sum of the shares. Each worker runs the unchanged `Runner` on its share (`Shard.plan`)
and hands every finished row back as the raw `RequestResult`; the coordinator numbers the
repeats globally, writes the rows and derives the metrics (coordinator.py).

Timestamps: `perf_counter_ns` belongs to the process that took it, and every figure derive()
makes is a difference of two stamps of one row, taken in one process, so TTFT, decode and
dispatch_ms hold as they are. Only `started_at` (wall clock) is compared across rows: a
worker's wall clock minus the coordinator's (`Job.clock_offset_s`, 0 on one machine) is
subtracted from it, so the run's timeline is in the coordinator's clock.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any

from workbench.core.foundation.errors import diagnosis
from workbench.core.foundation.results import (
    ErrorClass,
    RequestResult,
    Target,
    planned_result,
    target_label,
)
from workbench.core.load.prompts import Calibration, PromptBuilder
from workbench.core.planning.run_events import RequestFinished, RunFinished
from workbench.core.planning.run_plan import RunPlan
from workbench.core.run.runner import Runner
from workbench.core.transport.clients import ClientOptions, ClientPool, Transport

# (target label, route, prompt length, phase, repeat): one planned request of a run
RequestKey = tuple[str, str | None, int, str, int]


def _share(total: int, parts: int, index: int) -> int:
    """`total` split into `parts` near-equal whole shares; the first ones take the remainder."""
    return total // parts + (1 if index < total % parts else 0)


@dataclass(frozen=True)
class Shard:
    """One worker's share of a plan and where its repeats sit among the plan's."""

    index: int
    plan: RunPlan
    measured_offset: int  # the global number of this shard's measured repeat 0
    warmup_offset: int


def shard_count(plan: RunPlan, workers: int) -> int:
    """How many workers can take a share: one concurrency level, at least one stream each."""
    if len(plan.concurrency_levels) > 1:
        return 1  # levels run in turn; a route comparison stays in one process
    if plan.arrivals is not None:  # an open-loop schedule: at least one request, one slot each
        spec = plan.arrivals
        most = min(workers, spec.expected_requests, spec.max_concurrency or workers)
        return max(1, most)
    return max(1, min(workers, plan.concurrency_levels[0]))


def split(plan: RunPlan, workers: int) -> list[Shard]:
    """The plan's shares: concurrency, repeats and warm-ups split so that each cell's requests
    sum to the plan's (`max(repeats, concurrency)` per cell)."""
    n = shard_count(plan, workers)
    shards = []
    measured = warmup = 0
    if plan.arrivals is not None:  # every n-th arrival; repeats are schedule indices already
        for i in range(n):
            share = replace(
                plan,
                arrivals=plan.arrivals.share(i, n),
                warmup=_share(plan.warmup, n, i),
                calibrate=False,
            )
            shards.append(Shard(i, share, 0, warmup))
            warmup += share.warmup
        return shards
    for i in range(n):
        share = replace(
            plan,
            # a share's request 0 is the run's request `measured`: so is its dataset row
            dataset=plan.dataset.rotated(measured) if plan.dataset is not None else None,
            concurrency_levels=(_share(plan.concurrency_levels[0], n, i),),
            # a share of 0 repeats still runs its streams once each: max(1, c_i) = c_i
            repeats=max(1, _share(plan.repeats, n, i)),
            warmup=_share(plan.warmup, n, i),
            calibrate=False,  # the coordinator calibrated once, before the first round
        )
        shards.append(Shard(i, share, measured, warmup))
        measured += share.requests_at(share.concurrency_levels[0])
        warmup += share.warmup
    return shards


def rounds(plan: RunPlan) -> Iterator[RunPlan]:
    """The plan cut where every worker must wait for the others: each prompt length, and each
    target when targets run one after another."""
    for length in plan.prompt_lengths:
        if plan.mode == "sequential":
            for target in plan.targets:
                yield replace(plan, targets=(target,), prompt_lengths=(length,))
        else:
            yield replace(plan, prompt_lengths=(length,))


def planned(shard: Shard) -> Iterator[RequestKey]:
    """Every request a shard owes, with global repeat numbers."""
    plan = shard.plan
    for length in plan.prompt_lengths:
        for target in plan.targets:
            for i in range(plan.warmup):
                yield (target.label, target.route, length, "warmup", shard.warmup_offset + i)
            if plan.arrivals is not None:
                for i, _offset in plan.arrivals.own():
                    yield (target.label, target.route, length, "measured", i)
                continue
            for i in range(plan.requests_at(plan.concurrency_levels[0])):
                yield (target.label, target.route, length, "measured", shard.measured_offset + i)


def key_of(result: RequestResult) -> RequestKey:
    label = target_label(result.provider, result.model, result.protocol)
    return (label, result.route, result.prompt_tokens_target or 0, result.phase, result.repeat)


def globalize(result: RequestResult, shard: Shard, concurrency: int, offset_s: float) -> None:
    """A worker's row as the one-process run would have made it: global repeat numbers, the
    cell's whole concurrency, and the wall clock in the coordinator's time."""
    if result.phase == "measured":
        result.repeat += shard.measured_offset
    elif result.phase == "warmup":
        result.repeat += shard.warmup_offset
    if shard.plan.arrivals is None:  # an open-loop row already carries the cell's cap
        result.concurrency = concurrency
    if result.started_at:
        result.started_at -= offset_s


def lost_row(
    key: RequestKey, target: Target, plan: RunPlan, run_id: str, concurrency: int, why: str
) -> RequestResult:
    """The row of a request whose worker died before it finished."""
    _label, route, length, phase, repeat = key
    lost = diagnosis(ErrorClass.WORKER_LOST, why)
    result = planned_result(target, run_id, length, repeat, phase, concurrency, plan.task)
    result.route = route
    result.error_class, result.error_message = ErrorClass.WORKER_LOST, lost.message
    return result


# ---- the worker side: the same in a local process and in a Ray actor ----


@dataclass(frozen=True)
class Job:
    """What one worker needs for one round. It holds the API keys, so it only ever travels
    in memory (a pipe to a child process, Ray's object store) and is never logged."""

    shard: Shard
    run_id: str
    calibration: dict[str, Any]  # Calibration.to_dict(): every worker builds same-sized prompts
    transport: Transport
    options: tuple[tuple[str, ClientOptions], ...]  # base URL -> headers, proxy, TLS
    keys: tuple[tuple[str | None, str | None], ...]  # route -> API key

    def __repr__(self) -> str:  # never the keys
        return f"Job(shard={self.shard.index}, run_id={self.run_id!r})"


class _FixedRun:
    """A sink that only hands the runner the coordinator's run id: rows go back, not here."""

    def __init__(self, run_id: str) -> None:
        self.run_id = run_id

    def start_run(self, kind: str, config: dict[str, Any], run_id: str | None = None) -> str:
        return self.run_id

    def record(self, result: RequestResult) -> None:
        pass

    def finish_run(self, run_id: str, status: str) -> None:
        pass


class ShardRun:
    """One round of one worker: the unchanged Runner on its share, each row to `emit`."""

    def __init__(self, job: Job, emit: Callable[[RequestResult], None]) -> None:
        self.job = job
        self.emit = emit
        self.pool = ClientPool(job.transport)
        for base_url, options in job.options:
            self.pool.configure(base_url, options)
        keys = dict(job.keys)
        builder = PromptBuilder(Calibration.from_dict(job.calibration))
        self.runner = Runner(
            self.pool,
            sink=_FixedRun(job.run_id),
            keys=lambda target: keys.get(target.route),
            builder=builder,
            keep_results=False,
        )
        self._stopped = False

    def cancel(self) -> None:
        self._stopped = True
        self.runner.cancel()

    async def run(self, start_at: float) -> tuple[str, str]:
        """Wait for the common start (this process's wall clock), run, return (status,
        message) of the runner's RunFinished."""
        delay = start_at - time.time()
        if delay > 0:
            await asyncio.sleep(delay)
        status, message = "cancelled", ""
        try:
            if self._stopped:
                return status, message
            async for event in self.runner.run(self.job.shard.plan):
                if isinstance(event, RequestFinished):
                    self.emit(event.result)
                elif isinstance(event, RunFinished):
                    status, message = event.status, event.message
        finally:
            await self.pool.aclose()
        return status, message
