"""A run never loses a row: broken servers, a bug in one request, a failing store.

Real servers on loopback (the built-in provider and a scripted SSE server), the real openai
SDK, a real SQLite history held locked by a second real connection.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from pathlib import Path

import pytest

from tests.support.scripted_server import ScriptedServer, chunk
from workbench.core.foundation.metrics import derive
from workbench.core.foundation.results import ErrorClass, RequestResult, Target, Timeouts
from workbench.core.history.run_history import RunStore
from workbench.core.models.catalog import load_catalog
from workbench.core.planning.run_events import RequestFinished, RequestStarted, RunFinished
from workbench.core.planning.run_plan import MAX_REPEATS, RunPlan
from workbench.core.run.runner import Runner
from workbench.core.transport.clients import ClientPool
from workbench.local.costmodel import SimSettings
from workbench.local.server import LocalServer


def _local(server: LocalServer, model: str = "sim-70b-gqa") -> Target:
    info = load_catalog().get(model)
    return Target("local", server.base_url, model, info.attention if info else None)


def _script(usage: dict[str, object], chunk_id: object = "chatcmpl-1") -> list:
    first = chunk("Hello", role="assistant")
    first["id"] = chunk_id
    return [
        (0, first),
        (0, chunk(" world", finish="stop")),
        (0, chunk(usage=usage)),
        (0, "[DONE]"),
    ]


async def _collect(runner: Runner, plan: RunPlan) -> tuple[list, RunFinished]:
    events = [event async for event in runner.run(plan)]
    assert isinstance(events[-1], RunFinished)
    return events, events[-1]


def _finished(events: list) -> list[RequestResult]:
    return [e.result for e in events if isinstance(e, RequestFinished)]


async def test_garbled_usage_and_ids_never_cost_the_healthy_model_its_rows(
    tmp_path: Path,
) -> None:
    """A usage string, a 2**70 count and an object-valued id: every row stored, run finished."""
    scripts = {
        "string-usage": _script({"prompt_tokens": 9, "completion_tokens": "5"}),
        "huge-usage": _script({"prompt_tokens": 9, "completion_tokens": 2**70}),
        "object-id": _script({"prompt_tokens": 9, "completion_tokens": 2}, {"nested": [1]}),
    }
    pool = ClientPool()
    with RunStore(tmp_path / "history.sqlite3") as store:
        async with (
            LocalServer(settings=SimSettings(time_scale=0.005)) as local,
            ScriptedServer(scripts["string-usage"]) as s1,
            ScriptedServer(scripts["huge-usage"]) as s2,
            ScriptedServer(scripts["object-id"]) as s3,
        ):
            targets = (
                _local(local),
                Target("s1", s1.base_url, "string-usage"),
                Target("s2", s2.base_url, "huge-usage"),
                Target("s3", s3.base_url, "object-id"),
            )
            plan = RunPlan(
                targets=targets, prompt_lengths=(256,), repeats=3, max_tokens=4, calibrate=False
            )
            try:
                events, final = await _collect(Runner(pool, sink=store), plan)
            finally:
                await pool.aclose()
        stored = store.results(final.run_id)
    assert final.status == "finished", final.message
    rows = _finished(events)
    assert len(rows) == 12 and len(stored) == 12
    by_model: dict[str, list[RequestResult]] = {}
    for row in stored:
        by_model.setdefault(row.model, []).append(row)
    assert {m: len(r) for m, r in by_model.items()} == {
        "sim-70b-gqa": 3,
        "string-usage": 3,
        "huge-usage": 3,
        "object-id": 3,
    }
    assert all(r.ok for r in by_model["sim-70b-gqa"])
    live = {r.request_id: r for r in rows}
    for row in stored:  # what the runner held is what the history keeps ("5" as 5)
        assert str(row.completion_tokens) == str(live[row.request_id].completion_tokens)
        assert row.text == live[row.request_id].text
    assert all(r.text == "Hello world" for r in by_model["object-id"])


def test_values_sqlite_cannot_take_are_stored_not_lost(tmp_path: Path) -> None:
    with RunStore(tmp_path / "history.sqlite3") as store:
        run_id = store.start_run("comparison", {})
        result = RequestResult(
            model="m",
            run_id=run_id,
            completion_tokens=2**70,
            prompt_tokens=2**2000,  # beyond even a double: NULL, the row still stands
            response_id={"id": ["an", "object"]},  # type: ignore[arg-type]
            text="half a pair: \ud800 here",
            network_baseline_ms=float("nan"),
        )
        store.record(result)
        (back,) = store.results(run_id)
    assert back.completion_tokens == 2**70
    assert back.prompt_tokens is None
    assert back.response_id == '{"id": ["an", "object"]}'
    assert back.text == "half a pair: ? here"
    assert back.network_baseline_ms is None


def test_metrics_never_derive_figures_from_garbled_usage() -> None:
    t0 = 1_000_000_000
    for bad in ("5", 2**70, -3, 1.5, [1], {"n": 2}):
        result = RequestResult(
            model="m",
            t_send=t0,
            t_first_token=t0 + 10**8,
            t_last_token=t0 + 2 * 10**8,
            t_done=t0 + 3 * 10**8,
            completion_tokens=bad,  # type: ignore[arg-type]
            prompt_tokens=bad,  # type: ignore[arg-type]
            cached_tokens=bad,  # type: ignore[arg-type]
        )
        metrics = derive(result)
        assert metrics.ttft_ms == 100.0  # timing still stands
        assert metrics.decode_tps is None and metrics.prefill_tps is None, bad
        assert metrics.overall_tps is None and metrics.cost_usd is None, bad


async def test_a_failing_key_lookup_is_that_models_row_and_the_other_model_runs_on() -> None:
    """A bug or a locked keyring for one target: its rows are 'internal', redacted; B runs."""
    secret = "sk-proj-" + "Zq9" * 12

    def keys(target: Target) -> str | None:
        if target.model == "sim-70b-mla":
            raise RuntimeError(f"keyring refused the lookup of {secret}")
        return None

    pool = ClientPool()
    async with LocalServer(settings=SimSettings(time_scale=0.005)) as local:
        plan = RunPlan(
            targets=(_local(local), _local(local, "sim-70b-mla")),
            prompt_lengths=(256,),
            repeats=4,
            concurrency_levels=(2,),
            max_tokens=4,
            calibrate=False,
        )
        try:
            events, final = await _collect(Runner(pool, keys=keys), plan)
        finally:
            await pool.aclose()
    assert final.status == "finished"
    rows = _finished(events)
    healthy = [r for r in rows if r.model == "sim-70b-gqa"]
    broken = [r for r in rows if r.model == "sim-70b-mla"]
    assert len(healthy) == 4 and all(r.ok for r in healthy)
    assert len(broken) == 4
    for row in broken:
        assert row.error_class is ErrorClass.INTERNAL
        assert "RuntimeError" in row.error_message and "keyring refused" in row.error_message
        assert secret not in row.error_message


def _hold_write_lock(db: Path) -> sqlite3.Connection:
    """Another process's view: a second connection that holds the write lock until commit."""
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("BEGIN EXCLUSIVE")
    return conn


async def test_a_locked_history_is_waited_for_without_freezing_the_measurements(
    tmp_path: Path,
) -> None:
    """Locked for 2.5 s mid-run: every row is stored afterwards, and the event loop (which
    timestamps every token) never stalls for the lock (it used to, for up to 5 s)."""
    db = tmp_path / "history.sqlite3"
    pool = ClientPool()
    gaps: list[float] = []
    stop = asyncio.Event()

    async def ticker() -> None:
        last = time.perf_counter()
        while not stop.is_set():
            await asyncio.sleep(0.02)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

    with RunStore(db) as store:
        async with LocalServer(settings=SimSettings(time_scale=0.01)) as local:
            plan = RunPlan(
                targets=(_local(local),),
                prompt_lengths=(256,),
                repeats=30,
                concurrency_levels=(3,),
                max_tokens=4,
                calibrate=False,
            )
            runner = Runner(pool, sink=store)
            events = []
            lock: sqlite3.Connection | None = None
            tick = asyncio.create_task(ticker())
            try:
                async for event in runner.run(plan):
                    events.append(event)
                    if isinstance(event, RequestFinished) and lock is None:
                        lock = _hold_write_lock(db)
                        asyncio.get_running_loop().call_later(2.5, lock.commit)
            finally:
                stop.set()
                await tick
                await pool.aclose()
                if lock is not None:
                    lock.close()
        final = events[-1]
        stored = store.results(final.run_id)
    assert final.status == "finished", final.message
    assert len(stored) == 30 == len(_finished(events))
    assert max(gaps) < 1.2, f"the loop froze for {max(gaps):.2f} s while the store was locked"


async def test_a_store_that_stays_locked_fails_the_run_loudly_and_every_sent_request_has_a_row(
    tmp_path: Path,
) -> None:
    db = tmp_path / "history.sqlite3"
    pool = ClientPool()
    with RunStore(db) as store:
        async with LocalServer(settings=SimSettings(time_scale=0.02)) as local:
            plan = RunPlan(
                targets=(_local(local), _local(local, "sim-70b-mla")),
                prompt_lengths=(256,),
                repeats=200,
                concurrency_levels=(4,),
                max_tokens=6,
                calibrate=False,
            )
            runner = Runner(pool, sink=store, store_retry_s=0.5)
            events = []
            lock: sqlite3.Connection | None = None
            try:
                async with asyncio.timeout(60):
                    async for event in runner.run(plan):
                        events.append(event)
                        if isinstance(event, RequestFinished) and lock is None:
                            lock = _hold_write_lock(db)
            finally:
                await pool.aclose()
                if lock is not None:
                    lock.rollback()
                    lock.close()
    final = events[-1]
    assert final.status == "failed"
    assert str(db) in final.message and "locked by another process" in final.message
    assert "WORKBENCH_DATA_DIR" in final.message
    started = {e.request_id for e in events if isinstance(e, RequestStarted)}
    finished = [r.request_id for r in _finished(events)]
    assert sorted(finished) == sorted(started)  # each sent request: exactly one row
    assert len(finished) < 400  # it stopped instead of sending the rest
    cancelled = [r for r in _finished(events) if r.error_class is ErrorClass.CANCELLED]
    assert all("the run stopped" in r.error_message for r in cancelled)


async def test_requests_are_made_lazily_so_memory_does_not_grow_with_repeats() -> None:
    """The largest allowed plan holds only `concurrency` requests (tasks) at a time."""
    pool = ClientPool()
    async with LocalServer(settings=SimSettings(time_scale=0.001)) as local:
        plan = RunPlan(
            targets=(_local(local),),
            prompt_lengths=(128,),
            repeats=MAX_REPEATS,
            concurrency_levels=(4,),
            max_tokens=2,
            calibrate=False,
            measure_baseline=False,
        )
        runner = Runner(pool, keep_results=False)
        most_tasks = finished = 0
        try:
            async for event in runner.run(plan):
                most_tasks = max(most_tasks, len(asyncio.all_tasks()))
                if isinstance(event, RequestFinished):
                    finished += 1
                    if finished == 40:
                        runner.cancel()
                elif isinstance(event, RunFinished):
                    final = event
        finally:
            await pool.aclose()
    assert final.status == "cancelled" and final.results == ()
    # 4 workers, their 4 requests, the producer and cell, the server's connection handlers
    assert most_tasks < 40, most_tasks


def test_plan_limits_name_the_value_and_the_range() -> None:
    t = Target("local", "http://127.0.0.1:1/v1", "m")
    cases = {
        "repeats must be 1..100000": {"repeats": MAX_REPEATS + 1},
        "warmup must be 0..": {"warmup": -3},
        "prompt length must be 128..1048576": {"prompt_lengths": (127,)},
        "needle_depth must be 0..1": {"needle_depth": float("nan")},
        "temperature must be 0..2": {"temperature": float("inf")},
        # a request's limits are its target's (the one home of its timeouts)
        "local/m: stall timeout must be more than 0": {
            "targets": (
                Target("local", "http://127.0.0.1:1/v1", "m", timeouts=Timeouts(stall_s=-1.0)),
            )
        },
        "retry_budget_s must be 0..": {"retry_budget_s": float("nan")},
        "max_tokens must be 1..": {"max_tokens": 0},
    }
    for message, change in cases.items():
        fields = {"targets": (t,), "prompt_lengths": (1024,), **change}
        with pytest.raises(ValueError, match=message.replace(".", r"\.")):
            RunPlan(**fields)  # type: ignore[arg-type]
