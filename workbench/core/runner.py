"""Comparisons and sweeps: plan, schedule, cancel, and report as one async event stream.

A comparison is a sweep with one prompt length. For each prompt length the targets run all at
once (default) or one after another; within a (length, target) cell, `max(repeats, concurrency)`
requests run with at most `concurrency` in flight. Every finished request is written to the
store before its event is emitted, so the UI may lag but the data may not be lost.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import asdict, dataclass, field
from typing import Any, Literal, Protocol

from workbench.core.clients import ClientPool, network_baseline_ms
from workbench.core.errors import diagnosis
from workbench.core.metrics import RequestMetrics, derive
from workbench.core.prompts import BuiltPrompt, Calibration, PromptBuilder, PromptSpec
from workbench.core.results import ErrorClass, RequestResult, Target
from workbench.core.streaming import RequestSpec, TextDelta, stream_chat

Mode = Literal["parallel", "sequential"]
# A calibration request needs a prompt long enough to average the text's density, not the
# full length: prefill of a long prompt costs time and money for one token of output.
CALIBRATION_MAX_TOKENS = 8192


@dataclass(frozen=True)
class RunPlan:
    """Everything a run needs except keys, which never enter a plan (plans are stored)."""

    targets: tuple[Target, ...]
    prompt_lengths: tuple[int, ...]
    repeats: int = 1
    concurrency: int = 1
    warmup: int = 0
    max_tokens: int = 256
    temperature: float = 0.0
    mode: Mode = "parallel"
    language: Literal["en", "zh"] = "en"
    task: Literal["summary", "needle"] = "summary"
    needle_depth: float = 0.5
    cache_test: bool = False  # same prompt (no nonce) every repeat: cold vs warm prefix cache
    calibrate: bool = True  # one 1-token request per target when it has no calibration yet
    measure_baseline: bool = True
    first_token_timeout_s: float | None = 300.0
    stall_timeout_s: float | None = 60.0
    total_timeout_s: float | None = None
    retry_budget_s: float = 0.0  # 429/503 with Retry-After are retried within this budget
    kind: Literal["comparison", "sweep", "replay"] = "comparison"

    def __post_init__(self) -> None:
        if not self.targets:
            raise ValueError("a run needs at least one target (provider and model)")
        if not self.prompt_lengths:
            raise ValueError("a run needs at least one prompt length")
        if not 1 <= self.concurrency <= 256:
            raise ValueError(f"concurrency must be 1..256, got {self.concurrency}")
        if self.repeats < 1:
            raise ValueError(f"repeats must be at least 1, got {self.repeats}")
        if self.max_tokens < 1:
            raise ValueError(f"max_tokens must be at least 1, got {self.max_tokens}")

    @property
    def requests_per_cell(self) -> int:
        return max(self.repeats, self.concurrency)

    @property
    def total_requests(self) -> int:
        return len(self.targets) * len(self.prompt_lengths) * (self.requests_per_cell + self.warmup)

    def to_config(self) -> dict[str, Any]:
        return asdict(self)


# ---- events: the one stream that the CLI and the GUI both consume ----


@dataclass(frozen=True)
class RunStarted:
    run_id: str
    plan: RunPlan
    total: int


@dataclass(frozen=True)
class RequestStarted:
    request_id: str
    target: Target
    prompt_tokens_target: int
    repeat: int
    warmup: bool
    t_ns: int


@dataclass(frozen=True)
class RequestFinished:
    result: RequestResult
    metrics: RequestMetrics
    target: Target


@dataclass(frozen=True)
class Progress:
    done: int
    total: int
    errors: int
    elapsed_s: float
    eta_s: float | None


@dataclass(frozen=True)
class RunFinished:
    run_id: str
    status: Literal["finished", "cancelled", "failed"]
    results: tuple[RequestResult, ...]
    message: str = ""


RunEvent = RunStarted | RequestStarted | TextDelta | RequestFinished | Progress | RunFinished


class ResultSink(Protocol):
    def start_run(self, kind: str, config: dict[str, Any], run_id: str | None = None) -> str: ...
    def record(self, result: RequestResult) -> None: ...
    def finish_run(self, run_id: str, status: str) -> None: ...


KeyResolver = Callable[[Target], str | None]


@dataclass
class _RunState:
    run_id: str
    plan: RunPlan
    queue: asyncio.Queue[RunEvent | None]
    started_ns: int = field(default_factory=time.perf_counter_ns)
    done: int = 0
    errors: int = 0
    results: list[RequestResult] = field(default_factory=list)
    tasks: dict[str, set[asyncio.Task[None]]] = field(default_factory=dict)
    stopped_targets: set[str] = field(default_factory=set)
    baselines: dict[str, float | None] = field(default_factory=dict)
    seed: int = 0


class Runner:
    """Runs plans; one run at a time per Runner. Consume `run()` to drive it."""

    def __init__(
        self,
        pool: ClientPool,
        sink: ResultSink | None = None,
        keys: KeyResolver | None = None,
        builder: PromptBuilder | None = None,
    ) -> None:
        self.pool = pool
        self.sink = sink
        self.keys = keys or (lambda _target: None)
        self.builder = builder or PromptBuilder()
        if self.builder.calibration is None:
            self.builder.calibration = Calibration()
        self.calibration: Calibration = self.builder.calibration
        self._state: _RunState | None = None
        self._cancelled = False

    # ---- control ----

    def cancel(self) -> None:
        """Stop issuing requests and cancel those in flight; each becomes a 'cancelled' row."""
        self._cancelled = True
        if self._state:
            for tasks in self._state.tasks.values():
                for task in tasks:
                    task.cancel()

    def stop_target(self, label: str) -> None:
        """Stop one pane: cancel its requests in flight and skip the rest of its cells."""
        if self._state:
            self._state.stopped_targets.add(label)
            for task in self._state.tasks.get(label, ()):
                task.cancel()

    @property
    def running(self) -> bool:
        return self._state is not None

    # ---- the stream ----

    async def run(self, plan: RunPlan) -> AsyncIterator[RunEvent]:
        """Run `plan`, yielding events until RunFinished. Closing the iterator cancels the run."""
        if self._state is not None:
            raise RuntimeError("this runner is already running a plan")
        self._cancelled = False
        run_id = (
            self.sink.start_run(plan.kind, plan.to_config())
            if self.sink
            else f"run-{int(time.time() * 1000):x}"
        )
        state = _RunState(run_id, plan, asyncio.Queue())
        self._state = state
        producer = asyncio.create_task(self._produce(state))
        status: Literal["finished", "cancelled", "failed"] = "finished"
        message = ""
        try:
            yield RunStarted(run_id, plan, plan.total_requests)
            while True:
                event = await state.queue.get()
                if event is None:
                    break
                yield event
        finally:
            # also reached when the consumer closes the stream early: that cancels the run
            if not producer.done():
                self.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await producer
            self._state = None
            if self._cancelled:
                status = "cancelled"
            elif not producer.cancelled() and producer.exception() is not None:
                status, message = "failed", repr(producer.exception())
            if self.sink:
                self.sink.finish_run(run_id, status)
        yield RunFinished(run_id, status, tuple(state.results), message)

    async def _produce(self, state: _RunState) -> None:
        try:
            plan = state.plan
            if plan.measure_baseline:
                await self._measure_baselines(state)
            for length in plan.prompt_lengths:
                if self._cancelled:
                    break
                cells = [self._run_cell(state, target, length) for target in plan.targets]
                if plan.mode == "parallel":
                    await asyncio.gather(*cells)
                else:
                    for cell in cells:
                        await cell
        finally:
            state.queue.put_nowait(None)

    async def _measure_baselines(self, state: _RunState) -> None:
        for target in state.plan.targets:
            if target.base_url not in state.baselines and not self._cancelled:
                client = self.pool.get(target.base_url, self.keys(target))
                state.baselines[target.base_url] = await network_baseline_ms(client)

    async def _run_cell(self, state: _RunState, target: Target, length: int) -> None:
        plan = state.plan
        key = self._calibration_key(target)
        if plan.calibrate and self.calibration.ratio(key, plan.language) is None:
            await self._request(
                state,
                target,
                min(length, CALIBRATION_MAX_TOKENS),
                repeat=-1,
                warmup=True,
                calibration=True,
            )
        for i in range(plan.warmup):
            await self._request(state, target, length, repeat=i, warmup=True)
        semaphore = asyncio.Semaphore(plan.concurrency)

        async def one(repeat: int) -> None:
            async with semaphore:
                await self._request(state, target, length, repeat=repeat, warmup=False)

        await asyncio.gather(*(one(r) for r in range(plan.requests_per_cell)))

    @staticmethod
    def _calibration_key(target: Target) -> str:
        return Calibration.key_for(target.provider, target.model)

    def _build_prompt(self, target: Target, length: int) -> BuiltPrompt:
        state = self._state
        assert state is not None
        plan = state.plan
        spec = PromptSpec(
            target_tokens=length,
            language=plan.language,
            task=plan.task,
            needle_depth=plan.needle_depth,
            nonce=not plan.cache_test,
            # one document for the whole run: the nonce busts caches, and every length then
            # reads the same text, so one calibration holds across lengths
            seed=state.seed,
        )
        return self.builder.build(spec, calibration_key=self._calibration_key(target))

    async def _request(
        self,
        state: _RunState,
        target: Target,
        length: int,
        repeat: int,
        warmup: bool,
        calibration: bool = False,
    ) -> None:
        if self._cancelled or target.label in state.stopped_targets:
            return
        plan = state.plan
        prompt = self._build_prompt(target, length)
        attempt = 1
        retry_deadline = time.monotonic() + plan.retry_budget_s
        while True:
            result = RequestResult(
                model=target.model,
                provider=target.provider,
                base_url=target.base_url,
                attention=target.attention,
                run_id=state.run_id,
                prompt_tokens_target=length,
                repeat=repeat,
                concurrency=plan.concurrency,
                attempt=attempt,
                warmup=warmup,
                task="calibration" if calibration else prompt.task_label,
                network_baseline_ms=state.baselines.get(target.base_url),
                prices=target.prices,
            )
            spec = RequestSpec(
                messages=prompt.messages,
                max_tokens=1 if calibration else plan.max_tokens,
                temperature=plan.temperature,
                first_token_timeout_s=plan.first_token_timeout_s,
                stall_timeout_s=plan.stall_timeout_s,
                total_timeout_s=plan.total_timeout_s,
                estimated_prompt_tokens=prompt.estimated_tokens,
            )
            await self._execute(state, target, result, spec, prompt, calibration)
            wait = self._retry_wait(result, retry_deadline)
            if wait is None or self._cancelled:
                return
            await asyncio.sleep(wait)
            attempt += 1

    @staticmethod
    def _retry_wait(result: RequestResult, deadline: float) -> float | None:
        """Seconds to wait before a retry of a 429/503, or None when no retry is due."""
        if result.error_class not in (ErrorClass.RATE_LIMIT, ErrorClass.SERVER):
            return None
        if result.http_status not in (429, 503) or result.retry_after_s is None:
            return None
        if time.monotonic() + result.retry_after_s > deadline:
            return None
        return result.retry_after_s

    async def _execute(
        self,
        state: _RunState,
        target: Target,
        result: RequestResult,
        spec: RequestSpec,
        prompt: BuiltPrompt,
        calibration: bool,
    ) -> None:
        client = self.pool.get(target.base_url, self.keys(target))
        state.queue.put_nowait(
            RequestStarted(
                result.request_id,
                target,
                result.prompt_tokens_target or 0,
                result.repeat,
                result.warmup,
                time.perf_counter_ns(),
            )
        )
        task = asyncio.current_task()
        assert task is not None
        # run the request in its own task so Stop can cancel it without cancelling the cell
        inner = asyncio.create_task(stream_chat(client, result, spec, state.queue.put_nowait))
        state.tasks.setdefault(target.label, set()).add(inner)
        try:
            await inner
        except asyncio.CancelledError:
            if not inner.done():
                inner.cancel()
            if result.error_class is None:  # cancelled before it even started
                cancelled = diagnosis(ErrorClass.CANCELLED, "stopped by the user")
                result.error_class, result.error_message = ErrorClass.CANCELLED, cancelled.message
        except Exception as exc:  # a bug of ours must still leave a row, never a gap
            if result.error_class is None:
                result.error_class = ErrorClass.INTERNAL
                result.error_message = f"internal error: {exc!r}"
        finally:
            state.tasks[target.label].discard(inner)
        if result.ok and prompt.needle_answer is not None:
            result.needle_found = self.builder.check_answer(prompt, result.text)
        if calibration and result.prompt_tokens and not result.usage_estimated:
            self.calibration.observe_prompt(
                self._calibration_key(target), prompt, result.prompt_tokens
            )
        if self.sink:
            self.sink.record(result)
        state.results.append(result)
        state.queue.put_nowait(RequestFinished(result, derive(result), target))
        if calibration:
            return  # calibration requests are not part of the plan's count
        state.done += 1
        if not result.ok:
            state.errors += 1
        elapsed = (time.perf_counter_ns() - state.started_ns) / 1e9
        total = state.plan.total_requests
        eta = elapsed / state.done * max(0, total - state.done) if state.done else None
        state.queue.put_nowait(Progress(state.done, total, state.errors, elapsed, eta))
