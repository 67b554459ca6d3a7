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
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from workbench.core.datasets.prompt import dataset_prompt
from workbench.core.foundation import failure_words
from workbench.core.foundation.errors import UNFIXABLE_BY_REPEAT, Diagnosis, diagnosis
from workbench.core.foundation.results import (
    ErrorClass,
    RequestResult,
    Target,
    planned_result,
)
from workbench.core.load.arrivals import ArrivalSpec
from workbench.core.load.open_loop import peak_in_flight, run_schedule
from workbench.core.load.prompts import (
    BuiltPrompt,
    Calibration,
    PromptBuilder,
    PromptSpec,
)
from workbench.core.load.send_lead import MAX_LEAD_NS
from workbench.core.load.slo import request_meets
from workbench.core.planning.memory_fit import NOT_SENT
from workbench.core.planning.run_events import (
    RequestCount,
    RequestFinished,
    RequestStarted,
    RunEvent,
    RunFinished,
    RunStarted,
)
from workbench.core.planning.run_plan import RunPlan
from workbench.core.protocols.wire import stream_request
from workbench.core.run.baseline import Baseline, measure_baseline
from workbench.core.run.calibration_checks import (
    calibration_length,
    calibration_output_tokens,
    name_failed_calibration,
    not_sent,
    prompt_count_far,
)
from workbench.core.run.request_rows import mark_internal, metrics_of, retry_wait
from workbench.core.run.run_sink import (
    STORE_RETRY_S,
    ResultSink,
    describe_exception,
    run_stopped,
    store_call,
)
from workbench.core.transport.clients import ClientPool, open_connections
from workbench.core.transport.streaming import RequestSpec

if TYPE_CHECKING:
    import openai

KeyResolver = Callable[[Target], str | None]


@dataclass
class _RunState:
    run_id: str
    plan: RunPlan
    queue: asyncio.Queue[RunEvent | None]
    keep_results: bool = True
    started_ns: int = field(default_factory=time.perf_counter_ns)
    count: RequestCount = field(default_factory=RequestCount)
    results: list[RequestResult] = field(default_factory=list)
    tasks: dict[str, set[asyncio.Task[RequestResult]]] = field(default_factory=dict)
    stopped_targets: set[str] = field(default_factory=set)
    baselines: dict[tuple[str, str], Baseline] = field(default_factory=dict)
    seed: int = 0
    failure: str | None = None  # why the run stopped early (the store failed); None while fine
    stopped_for: str | None = None  # why a consumer stopped the run (stop_because); rows still kept
    # (target label, prompt length) -> the calibration request that failed in that cell
    failed_calibrations: dict[tuple[str, int], RequestResult] = field(default_factory=dict)
    # target label -> its calibration request that failed in a way no repeat can fix
    unfixable: dict[str, RequestResult] = field(default_factory=dict)
    # target label -> how long its last answered request took, send to end (s)
    lasting_s: dict[str, float] = field(default_factory=dict)


class Runner:
    """Runs plans; one run at a time per Runner. Consume `run()` to drive it.

    Requests are made lazily: a cell holds at most `concurrency` requests in flight and never
    creates the rest before they are due, so memory does not grow with `repeats`. With
    `keep_results=False` the final `RunFinished.results` is empty and consumers take rows
    from `RequestFinished` events, as the CLI does (memory stays flat over long runs).
    """

    def __init__(
        self,
        pool: ClientPool,
        sink: ResultSink | None = None,
        keys: KeyResolver | None = None,
        builder: PromptBuilder | None = None,
        *,
        keep_results: bool = True,
        store_retry_s: float = STORE_RETRY_S,
        calibrate_only: bool = False,
    ) -> None:
        self.pool = pool
        self.sink = sink
        self.keys = keys or (lambda _target: None)
        self.builder = builder or PromptBuilder()
        if self.builder.calibration is None:
            self.builder.calibration = Calibration()
        self.calibration: Calibration = self.builder.calibration
        self.keep_results = keep_results
        self.store_retry_s = store_retry_s
        # only each cell's calibration (and the rows of cells it rules out): the coordinator
        # of a run over several worker processes calibrates once, then shares the result
        self.calibrate_only = calibrate_only
        self._state: _RunState | None = None
        self._cancelled = False
        self._cancel_note: str | None = None

    # ---- control ----

    def cancel(self, note: str | None = None) -> None:
        """Stop issuing requests and cancel those in flight; each becomes a 'cancelled' row
        (saying `note`, when given, instead of "stopped by the user")."""
        self._cancelled = True
        self._cancel_note = note
        self._cancel_in_flight()

    def stop_because(self, reason: str) -> None:
        """Stop the run for a cause beyond any request (a full disk): requests in flight become
        `cancelled: the run stopped (reason)` rows, still stored; the run ends failed."""
        if self._state:
            self._state.stopped_for = self._state.stopped_for or reason
        self.cancel()

    def stop_target(self, label: str) -> None:
        """Stop one pane: cancel its requests in flight and skip the rest of its cells."""
        if self._state:
            self._state.stopped_targets.add(label)
            for task in self._state.tasks.get(label, ()):
                task.cancel()

    @property
    def running(self) -> bool:
        return self._state is not None

    def _cancel_in_flight(self) -> None:
        if self._state:
            for tasks in self._state.tasks.values():
                for task in tasks:
                    task.cancel()

    def _halted(self, state: _RunState, target: Target) -> bool:
        return self._cancelled or state.failure is not None or target.label in state.stopped_targets

    def _fail_run(self, state: _RunState, message: str) -> None:
        """Stop the run because something beyond one request broke (the store)."""
        if state.failure is None:
            state.failure = message
        self._cancel_in_flight()

    # ---- the stream ----

    async def run(
        self, plan: RunPlan, baselines: dict[tuple[str, str], Baseline] | None = None
    ) -> AsyncIterator[RunEvent]:
        """Run `plan`, yielding events until RunFinished; closing the iterator cancels the run.
        `sink.start_run` errors propagate before anything is sent; after that, a RunFinished says
        how the run ended. `baselines`: the network baselines by (base URL, model) this run
        already has and adds to (a capacity search's steps share one run's)."""
        if self._state is not None:
            raise RuntimeError("this runner is already running a plan")
        self._cancelled = False
        self._cancel_note = None
        run_id = (
            self.sink.start_run(plan.kind, plan.to_config())
            if self.sink
            else f"run-{int(time.time() * 1000):x}"
        )
        state = _RunState(run_id, plan, asyncio.Queue(), keep_results=self.keep_results)
        state.baselines = state.baselines if baselines is None else baselines
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
            if state.failure is not None or state.stopped_for is not None:
                status, message = "failed", state.failure or state.stopped_for or ""
            elif not producer.cancelled() and (error := producer.exception()) is not None:
                status, message = "failed", f"internal error: {describe_exception(error)}"
            elif self._cancelled:
                status = "cancelled"
            sink = self.sink
            if sink is not None:
                ending = status
                problem = await self._store_call(state, lambda: sink.finish_run(run_id, ending))
                if problem:  # the rows are in the events; the history may lack the end
                    note = f"the run's end could not be recorded: {problem}"
                    status, message = "failed", f"{message}; {note}" if message else note
        yield RunFinished(run_id, status, tuple(state.results), message)

    async def _produce(self, state: _RunState) -> None:
        try:
            plan = state.plan
            for target in plan.targets:  # the clients (and the SDK's lazy parts) before any row
                self._client_ahead(target)
            for level in plan.concurrency_levels:
                for length in plan.prompt_lengths:
                    if self._cancelled or state.failure is not None:
                        return
                    if plan.mode == "parallel":
                        # a bug in one cell cancels the others instead of leaving them orphaned
                        async with asyncio.TaskGroup() as group:
                            for target in plan.targets:
                                group.create_task(self._run_cell(state, target, length, level))
                    else:
                        for target in plan.targets:
                            await self._run_cell(state, target, length, level)
        finally:
            state.queue.put_nowait(None)

    async def _ensure_baseline(self, state: _RunState, target: Target) -> None:
        """One baseline per (base URL, model): a gateway may route each model differently.
        Its requests are neither rows nor part of the plan's count. Measured after the target's
        calibration, so that the first request a target sees is a row: a broken gateway route
        refuses the first request and puts the route in cooldown, and that first refusal is the
        cause the user needs."""
        key = (target.base_url, target.model)
        if not state.plan.measure_baseline or key in state.baselines or self._cancelled:
            return
        try:
            client = self.pool.get(target.base_url, self.keys(target))
            baseline = await measure_baseline(
                client, target.model, protocol=target.protocol, auth=target.auth
            )
        except Exception:  # no baseline is an empty column, not a failed run
            baseline = Baseline()
        state.baselines[key] = baseline

    def _client_ahead(self, target: Target) -> openai.AsyncOpenAI | None:
        """The target's client before its requests; None when its key cannot be had (each of
        its requests then becomes a row that says why)."""
        try:
            return self.pool.get(target.base_url, self.keys(target))
        except Exception:
            return None

    async def _run_cell(
        self, state: _RunState, target: Target, length: int, concurrency: int
    ) -> None:
        plan = state.plan
        key = self._calibration_key(target)
        if target.label in state.unfixable:  # refused at an earlier length: no length fixes it
            await self._not_sent(state, target, length, concurrency, state.unfixable[target.label])
            return
        too_big = plan.refusal(target, length)
        if too_big is not None:  # its KV cache would not fit: nothing is sent, the rows say why
            if not self.calibrate_only:  # a calibration round leaves them to the measuring one
                why = diagnosis(ErrorClass.OUT_OF_MEMORY, f"{NOT_SENT}{too_big}")
                await self._not_sent(state, target, length, concurrency, why=why)
            return
        if plan.calibrate and self.calibration.ratio(key, plan.language) is None:
            calibration = await self._request(
                state,
                target,
                calibration_length(plan.prompt_lengths),
                repeat=-1,
                phase="calibration",
                concurrency=concurrency,
            )
            if calibration is not None and not calibration.ok:
                if calibration.error_class is not ErrorClass.CANCELLED:
                    state.failed_calibrations[(target.label, length)] = calibration
                if calibration.error_class in UNFIXABLE_BY_REPEAT:
                    state.unfixable[target.label] = calibration
                    await self._not_sent(state, target, length, concurrency, calibration)
                    return
        if self.calibrate_only:
            return
        await self._ensure_baseline(state, target)
        for i in range(plan.warmup):
            if self._halted(state, target):
                return
            await self._request(state, target, length, i, "warmup", concurrency)
        if plan.arrivals is not None:
            await self._open_ahead(state, target, plan.arrivals)
            await run_schedule(
                plan.arrivals,
                lambda: self._halted(state, target),
                lambda index: self._build_prompt(state, target, length, index),
                lambda index, cap, due_ns, offset_s, prompt: self._request(
                    state, target, length, index, "measured", cap, due_ns, offset_s, prompt
                ),
            )
            return
        burst = min(concurrency, plan.requests_at(concurrency))
        client = self._client_ahead(target)
        if plan.warm_connections and burst > 1 and client is not None:
            # right before the burst: a connection idle for 5 s (a long calibration) is closed
            await open_connections(client, burst)
        if self._halted(state, target):
            return
        repeats = iter(range(plan.requests_at(concurrency)))
        opening = time.perf_counter_ns()  # the whole opening burst is due now

        async def worker(intended: int | None) -> None:
            # workers share one iterator: each repeat is taken once, and a request exists only
            # while it is in flight; a worker's later requests are due when it takes them
            for repeat in repeats:
                if self._halted(state, target):
                    return
                await self._request(
                    state, target, length, repeat, "measured", concurrency, intended=intended
                )
                intended = None

        async with asyncio.TaskGroup() as group:
            for _ in range(burst):
                group.create_task(worker(opening))
                # paced: one request is prepared per turn of the loop, between which the
                # streams already running read their tokens; the wait shows in dispatch_ms
                await asyncio.sleep(0)

    async def _open_ahead(self, state: _RunState, target: Target, spec: ArrivalSpec) -> None:
        """An open-loop cell's connections, opened before its schedule: as many as its requests
        in flight at their peak, each lasting a lead plus the target's last request. A
        connection opened during the schedule took ~1-2 ms of the loop from requests due."""
        client = self._client_ahead(target)
        if not state.plan.warm_connections or client is None or self._halted(state, target):
            return
        lasting_s = state.lasting_s.get(target.label, 0.0) + MAX_LEAD_NS / 1e9
        count = peak_in_flight(spec, lasting_s)
        if count > 1:
            await open_connections(client, count)

    async def _not_sent(
        self,
        state: _RunState,
        target: Target,
        length: int,
        concurrency: int,
        calibration: RequestResult | None = None,
        why: Diagnosis | None = None,
    ) -> None:
        """The cell's planned requests as rows that say why they were not sent: its calibration
        request failed with a class no repeat can fix (a wrong key, model id or path), or `why`
        (its KV cache would not fit)."""
        plan = state.plan
        planned = [(i, "warmup") for i in range(plan.warmup)]
        planned += [(i, "measured") for i in range(plan.requests_at(concurrency))]
        for repeat, phase in planned:
            if self._halted(state, target):
                return
            result = self._new_result(state, target, length, repeat, phase, 1, concurrency)
            result.task = plan.task
            said = why
            if said is None:
                assert calibration is not None and calibration.error_class is not None
                said = not_sent(calibration.error_class, calibration.error_message or "", phase)
            result.error_class, result.error_message = said.error_class, said.message
            state.queue.put_nowait(
                RequestStarted(
                    result.request_id, target, length, repeat, result.warmup, time.perf_counter_ns()
                )
            )
            await self._finish(state, target, result, None, phase)

    def _new_result(
        self,
        state: _RunState,
        target: Target,
        length: int,
        repeat: int,
        phase: str,
        attempt: int,
        concurrency: int,
    ) -> RequestResult:
        plan = state.plan
        baseline = state.baselines.get((target.base_url, target.model), Baseline())
        task = "calibration" if phase == "calibration" else plan.task
        result = planned_result(target, state.run_id, length, repeat, phase, concurrency, task)
        result.attempt = attempt
        result.network_baseline_ms, result.baseline_method = baseline.ms, baseline.method
        arrivals = plan.arrivals
        if arrivals is not None and arrivals.offsets is None:  # a trace has no one rate
            result.offered_rate = arrivals.rate
        return result

    @staticmethod
    def _calibration_key(target: Target) -> str:
        return Calibration.key_for(target.provider, target.model)

    def _build_prompt(
        self, state: _RunState, target: Target, length: int, index: int = -1
    ) -> BuiltPrompt:
        plan = state.plan
        if plan.dataset is not None and index >= 0:  # --dataset: the file's request
            return dataset_prompt(plan.dataset, index)
        spec = PromptSpec(
            target_tokens=plan.prompt_size(length, index),  # request `index`'s draw of a spread
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
        phase: str,
        concurrency: int,
        intended: int | None = None,
        scheduled_s: float | None = None,
        prompt: BuiltPrompt | None = None,
    ) -> RequestResult | None:
        """One planned request and its retries; each attempt ends as exactly one row. Returns
        the last attempt's row (None when the run had stopped before it). `intended` is when
        the request was due (its cell's opening burst, or its place in an open-loop schedule,
        `scheduled_s` from the cell's start); by default, now. `prompt`: built ahead."""
        if self._halted(state, target):
            return None
        plan = state.plan
        calibration = phase == "calibration"
        attempt = 1
        retry_deadline = time.monotonic() + plan.retry_budget_s
        while True:
            result = self._new_result(state, target, length, repeat, phase, attempt, concurrency)
            result.t_intended = intended or time.perf_counter_ns()
            result.scheduled_s = scheduled_s
            outer_cancelled = False
            try:
                index = -1 if calibration else repeat
                prompt = prompt or self._build_prompt(state, target, length, index)
                if not calibration:
                    result.task = prompt.task_label
                outer_cancelled = await self._send(state, target, result, prompt, calibration)
            except Exception as exc:  # a bug of ours must still leave a row, never a gap
                mark_internal(result, exc)
            await self._finish(state, target, result, prompt, phase)
            if outer_cancelled:
                raise asyncio.CancelledError  # the whole cell is being torn down
            wait = retry_wait(result, retry_deadline)
            if wait is None or self._halted(state, target):
                return result
            await asyncio.sleep(wait)
            attempt += 1
            intended = scheduled_s = None  # a retry is due when its wait ends

    async def _send(
        self,
        state: _RunState,
        target: Target,
        result: RequestResult,
        prompt: BuiltPrompt,
        calibration: bool,
    ) -> bool:
        """Stream one request into `result`; True when this task itself was cancelled."""
        plan = state.plan
        max_tokens = plan.output_size(result.repeat)
        if calibration:
            max_tokens = calibration_output_tokens(max_tokens)
        limits = target.timeouts
        spec = RequestSpec(
            messages=prompt.messages,
            max_tokens=max_tokens,
            temperature=plan.temperature,
            first_token_timeout_s=limits.first_token_s,
            stall_timeout_s=limits.stall_s,
            total_timeout_s=limits.total_s,
            estimated_prompt_tokens=prompt.estimated_tokens,
            protocol=target.protocol,
            auth=target.auth,
        )
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
        inner = asyncio.create_task(stream_request(client, result, spec, state.queue.put_nowait))
        state.tasks.setdefault(target.label, set()).add(inner)
        try:
            await inner
        except asyncio.CancelledError:
            if not inner.done():
                inner.cancel()
            if result.error_class is None:  # cancelled before it even started
                cancelled = diagnosis(
                    ErrorClass.CANCELLED, failure_words.words(failure_words.STOPPED_BY_USER)
                )
                result.error_class, result.error_message = ErrorClass.CANCELLED, cancelled.message
            why = state.failure or state.stopped_for
            if why is not None and result.error_class is ErrorClass.CANCELLED:
                result.error_message = run_stopped(why)
            elif self._cancel_note and result.error_class is ErrorClass.CANCELLED:
                result.error_message = self._cancel_note
            return task.cancelling() > 0
        finally:
            state.tasks[target.label].discard(inner)
        return False

    async def _finish(
        self,
        state: _RunState,
        target: Target,
        result: RequestResult,
        prompt: BuiltPrompt | None,
        phase: str,
    ) -> None:
        """Check the answer, store the row, then tell the consumers: every attempt, once."""
        try:
            if result.ok and prompt is not None and prompt.needle_answer is not None:
                result.needle_found = self.builder.check_answer(prompt, result.text)
            if phase == "calibration":
                trusted = not (result.usage_estimated or result.usage_suspect)
                if prompt is not None and result.prompt_tokens and trusted:
                    self.calibration.observe_prompt(
                        self._calibration_key(target), prompt, result.prompt_tokens
                    )
            else:
                key = self._calibration_key(target)
                longest = self.calibration.longest(key, state.plan.language)
                if prompt is not None and prompt_count_far(result, prompt, longest):
                    result.usage_suspect = True
                length = result.prompt_tokens_target or 0
                failed = state.failed_calibrations.get((target.label, length))
                if failed is not None:
                    name_failed_calibration(result, failed)
        except Exception as exc:
            mark_internal(result, exc)
        if result.ok and result.t_send is not None and result.t_done is not None:
            state.lasting_s[target.label] = (result.t_done - result.t_send) / 1e9
        metrics = metrics_of(result)
        result.slo_met = request_meets(result, metrics, state.plan.slo)
        await self._record(state, result)
        if state.keep_results:
            state.results.append(result)
        state.queue.put_nowait(RequestFinished(result, metrics, target))
        if phase == "calibration":
            return  # calibration requests are not part of the plan's count
        state.count.take(result)
        elapsed = (time.perf_counter_ns() - state.started_ns) / 1e9
        state.queue.put_nowait(state.count.progress(state.plan.total_requests, elapsed))

    async def _record(self, state: _RunState, result: RequestResult) -> None:
        """Store one row; the row still reaches the consumers (and the CSV) when the store
        cannot take it, and the run then fails."""
        if self.sink is None or state.failure is not None:
            return
        sink = self.sink
        problem = await self._store_call(state, lambda: sink.record(result))
        if problem and state.failure is None:
            self._fail_run(state, problem)

    async def _store_call(self, state: _RunState, call: Callable[[], object]) -> str | None:
        """Run one store call with `store_call`'s retries (a single try once the store has
        failed the run). None on success, else the problem in words."""
        patience = 0.0 if state.failure is not None else self.store_retry_s
        return await store_call(call, patience)
