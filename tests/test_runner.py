"""Comparisons and sweeps end to end: the runner, the openai SDK and the local provider."""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace

import pytest

from workbench.core.foundation.results import ErrorClass, Target, Timeouts
from workbench.core.history.summary import summarize
from workbench.core.load.prompts import PromptBuilder
from workbench.core.models.catalog import load_catalog
from workbench.core.planning.run_events import (
    Progress,
    RequestFinished,
    RequestStarted,
    RunFinished,
    RunStarted,
    TextDelta,
)
from workbench.core.planning.run_plan import RunPlan
from workbench.core.run.runner import Runner
from workbench.core.transport.clients import ClientPool
from workbench.local.costmodel import SimSettings
from workbench.local.server import LocalServer


def _target(server: LocalServer, model: str) -> Target:
    info = load_catalog().get(model.split("+")[0])
    return Target("local", server.base_url, model, info.attention if info else None)


async def _run(plan: RunPlan, runner: Runner | None = None) -> tuple[list, RunFinished]:
    pool = ClientPool()
    runner = runner or Runner(pool)
    runner.pool = pool
    events = []
    try:
        async for event in runner.run(plan):
            events.append(event)
    finally:
        await pool.aclose()
    assert isinstance(events[-1], RunFinished)
    return events, events[-1]


async def test_comparison_streams_every_target_and_reports_progress() -> None:
    async with LocalServer(settings=SimSettings(time_scale=0.01)) as server:
        plan = RunPlan(
            targets=(_target(server, "sim-llama-3-70b"), _target(server, "sim-deepseek-v3")),
            prompt_lengths=(1024,),
            repeats=2,
            max_tokens=16,
        )
        events, final = await _run(plan)
    assert isinstance(events[0], RunStarted) and events[0].total == 4
    assert final.status == "finished"
    measured = [r for r in final.results if not r.warmup]
    assert len(measured) == 4 and all(r.ok for r in measured)
    assert {r.model for r in measured} == {"sim-llama-3-70b", "sim-deepseek-v3"}
    deltas = [e for e in events if isinstance(e, TextDelta)]
    assert len(deltas) >= 4 * 15
    progress = [e for e in events if isinstance(e, Progress)]
    assert progress[-1].done == progress[-1].total == 4
    cells = summarize(final.results)
    assert [c.n for c in cells] == [2, 2]
    assert all(c.median("decode_tps") for c in cells)


async def test_targets_run_at_once_by_default_and_in_turn_when_sequential() -> None:
    async with LocalServer(settings=SimSettings(time_scale=0.02)) as server:
        targets = (_target(server, "sim-70b-gqa"), _target(server, "sim-70b-mla"))
        for mode in ("parallel", "sequential"):
            plan = RunPlan(
                targets=targets, prompt_lengths=(512,), max_tokens=20, mode=mode, calibrate=False
            )
            _events, final = await _run(plan)
            a, b = final.results
            overlap = min(a.t_done, b.t_done) > max(a.t_send, b.t_send)
            assert overlap == (mode == "parallel"), mode


async def test_fault_in_one_target_does_not_stop_the_others() -> None:
    faults = ["401", "404", "429", "500", "html", "html200", "drop", "malformed"]
    async with LocalServer(settings=SimSettings(time_scale=0.005)) as server:
        targets = tuple(_target(server, f"sim-70b-gqa+{f}") for f in faults)
        targets += (_target(server, "sim-70b-mla"),)
        plan = RunPlan(targets=targets, prompt_lengths=(256,), max_tokens=12, calibrate=False)
        _events, final = await _run(plan)
    by_model = {r.model: r for r in final.results}
    assert by_model["sim-70b-mla"].ok and by_model["sim-70b-mla"].completion_tokens == 12
    expected = {
        "401": ErrorClass.AUTH,
        "404": ErrorClass.NOT_FOUND,
        "429": ErrorClass.RATE_LIMIT,
        "500": ErrorClass.SERVER,
        "html": ErrorClass.HTML,
        "html200": ErrorClass.HTML,
        "drop": ErrorClass.DROPPED,
        "malformed": ErrorClass.MALFORMED,
    }
    for fault, error_class in expected.items():
        row = by_model[f"sim-70b-gqa+{fault}"]
        assert row.error_class is error_class, (fault, row.error_class, row.error_message)
        assert "Cause:" in row.error_message and "Fix:" in row.error_message


async def test_stall_and_no_usage_and_reasoning_modes() -> None:
    async with LocalServer(settings=SimSettings(time_scale=0.005)) as server:
        targets = tuple(
            replace(_target(server, f"sim-70b-gqa+{f}"), timeouts=Timeouts(stall_s=0.5))
            for f in ("stall", "no-usage", "reasoning")
        )
        plan = RunPlan(
            targets=targets,
            prompt_lengths=(256,),
            max_tokens=12,
            calibrate=False,
        )
        _events, final = await _run(plan)
    rows = {r.model.split("+")[1]: r for r in final.results}
    assert rows["stall"].error_class is ErrorClass.STALL and rows["stall"].text
    assert rows["no-usage"].ok and rows["no-usage"].usage_estimated
    assert rows["reasoning"].ok and rows["reasoning"].reasoning_text
    assert rows["reasoning"].t_first_token < rows["reasoning"].t_first_content


async def test_rate_limited_request_is_retried_as_a_new_row() -> None:
    async with LocalServer(settings=SimSettings(time_scale=0.005)) as server:
        plan = RunPlan(
            targets=(_target(server, "sim-70b-gqa+429"),),
            prompt_lengths=(256,),
            max_tokens=4,
            calibrate=False,
            retry_budget_s=2.5,
        )
        _events, final = await _run(plan)
    attempts = [r.attempt for r in final.results]
    # Retry-After is 1 s: within 2.5 s the first try and two retries, each its own row
    assert attempts == [1, 2, 3]
    assert all(r.error_class is ErrorClass.RATE_LIMIT for r in final.results)


async def test_cancel_stops_streams_quickly_and_marks_rows() -> None:
    async with LocalServer(settings=SimSettings(time_scale=0.5)) as server:
        plan = RunPlan(
            targets=(_target(server, "sim-70b-gqa"), _target(server, "sim-70b-mla")),
            prompt_lengths=(256,),
            max_tokens=2000,
            calibrate=False,
        )
        pool = ClientPool()
        runner = Runner(pool)
        cancelled_at = None
        final = None
        try:
            async for event in runner.run(plan):
                if isinstance(event, TextDelta) and cancelled_at is None:
                    cancelled_at = time.perf_counter()
                    runner.cancel()
                if isinstance(event, RunFinished):
                    final = event
        finally:
            await pool.aclose()
    assert final is not None and final.status == "cancelled"
    assert time.perf_counter() - cancelled_at < 1.0
    assert all(r.error_class is ErrorClass.CANCELLED for r in final.results)


async def test_stop_one_target_lets_the_other_finish() -> None:
    async with LocalServer(settings=SimSettings(time_scale=0.05)) as server:
        slow, other = _target(server, "sim-70b-mha"), _target(server, "sim-70b-gla")
        plan = RunPlan(targets=(slow, other), prompt_lengths=(256,), max_tokens=40, calibrate=False)
        pool = ClientPool()
        runner = Runner(pool)
        final = None
        try:
            async for event in runner.run(plan):
                if isinstance(event, RequestStarted) and event.target == slow:
                    runner.stop_target(slow.label)
                if isinstance(event, RunFinished):
                    final = event
        finally:
            await pool.aclose()
    rows = {r.model: r for r in final.results}
    assert final.status == "finished"
    assert rows["sim-70b-gla"].ok and rows["sim-70b-gla"].completion_tokens == 40
    assert rows["sim-70b-mha"].error_class is ErrorClass.CANCELLED


async def test_concurrency_caps_requests_in_flight() -> None:
    async with LocalServer(settings=SimSettings(time_scale=0.01)) as server:
        plan = RunPlan(
            targets=(_target(server, "sim-70b-gqa"),),
            prompt_lengths=(256,),
            repeats=6,
            concurrency_levels=(3,),
            max_tokens=10,
            calibrate=False,
        )
        _events, final = await _run(plan)
    spans = sorted((r.t_send, r.t_done) for r in final.results)
    peak = max(sum(1 for s, e in spans if s <= t < e) for t, _ in spans)
    assert peak == 3 and len(spans) == 6


@pytest.mark.parametrize("language", ["en", "zh"])
async def test_calibration_brings_prompt_within_two_percent(language: str) -> None:
    lengths = (1024, 4096, 32768, 128000)  # 128K that leaves room for output in a 128K window
    async with LocalServer(settings=SimSettings(time_scale=0.0001)) as server:
        plan = RunPlan(
            targets=(_target(server, "sim-70b-gqa"),),
            prompt_lengths=lengths,
            max_tokens=2,
            language=language,
            measure_baseline=False,
        )
        runner = Runner(ClientPool(), builder=PromptBuilder())
        _events, final = await _run(plan, runner)
    calibrations = [r for r in final.results if r.task == "calibration"]
    assert len(calibrations) == 1  # one calibration request, then every length is on target
    for r in final.results:
        if r.task != "calibration":
            error = (r.prompt_tokens - r.prompt_tokens_target) / r.prompt_tokens_target
            assert abs(error) <= 0.02, (r.prompt_tokens_target, r.prompt_tokens)


async def test_needle_answer_is_checked() -> None:
    async with LocalServer(settings=SimSettings(time_scale=0.001)) as server:
        plan = RunPlan(
            targets=(_target(server, "sim-70b-gla"),),
            prompt_lengths=(4096,),
            max_tokens=24,
            task="needle",
            needle_depth=0.3,
            calibrate=False,
        )
        _events, final = await _run(plan)
    (row,) = final.results
    assert row.task == "needle@0.30" and row.needle_found is True


async def test_closing_the_event_stream_cancels_the_run() -> None:
    async with LocalServer(settings=SimSettings(time_scale=0.5)) as server:
        plan = RunPlan(
            targets=(_target(server, "sim-70b-gqa"),),
            prompt_lengths=(256,),
            max_tokens=2000,
            calibrate=False,
        )
        pool = ClientPool()
        runner = Runner(pool)
        stream = runner.run(plan)
        async for event in stream:
            if isinstance(event, TextDelta):
                break
        await stream.aclose()
        await pool.aclose()
    assert not runner.running
    await asyncio.sleep(0)


def test_plan_rejects_bad_values_with_clear_messages() -> None:
    t = Target("local", "http://127.0.0.1:1/v1", "m")
    with pytest.raises(ValueError, match=r"concurrency must be 1\.\.256"):
        RunPlan(targets=(t,), prompt_lengths=(1024,), concurrency_levels=(300,))
    with pytest.raises(ValueError, match="at least one target"):
        RunPlan(targets=(), prompt_lengths=(1024,))


async def test_finished_requests_are_in_the_event_before_the_run_ends() -> None:
    async with LocalServer(settings=SimSettings(time_scale=0.01)) as server:
        plan = RunPlan(
            targets=(_target(server, "sim-70b-gqa"),),
            prompt_lengths=(256,),
            repeats=3,
            max_tokens=5,
            calibrate=False,
        )
        events, _final = await _run(plan)
    finished = [e for e in events if isinstance(e, RequestFinished)]
    assert len(finished) == 3 and all(e.metrics.ttft_ms for e in finished)
