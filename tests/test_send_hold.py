"""An open-loop request is built ahead and its bytes leave at its scheduled moment, not before.

Against the built-in provider on a loop of its own thread, which stamps each request's arrival
(`t_received_ns`, perf_counter_ns: one clock with the client's). No test here bounds a
lateness: the machine may be loaded; what is checked is that nothing arrives early, that
nothing is held outside an open-loop schedule, and that Stop during a hold sends nothing.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Iterator

import pytest

from tests.support.loopback import ThreadedLoop
from workbench.core.foundation.results import ErrorClass, RequestResult, Target
from workbench.core.load import send_lead
from workbench.core.load.arrivals import ArrivalSpec
from workbench.core.load.open_loop import _between_dues
from workbench.core.load.send_lead import SendLead, held_until_due
from workbench.core.planning.run_events import RequestFinished, RequestStarted, RunFinished
from workbench.core.planning.run_plan import RunPlan
from workbench.core.run.runner import Runner
from workbench.core.transport.clients import ClientPool, Transport, make_client
from workbench.core.transport.streaming import RequestSpec, stream_chat
from workbench.local.costmodel import SimSettings
from workbench.local.server import LocalServer

MODEL = "sim-70b-gqa"
SPEC = RequestSpec(messages=[{"role": "user", "content": "Explain GQA."}], max_tokens=4)
AHEAD_NS = 10**9  # due this far ahead, a request is built first, even on a loaded machine
TRANSPORTS = ["aiohttp", "httpx"]


@pytest.fixture
def server() -> Iterator[LocalServer]:
    with ThreadedLoop() as background:
        local = LocalServer(settings=SimSettings(time_scale=0.05))
        background.run(local.start())
        try:
            yield local
        finally:
            background.run(local.stop())


def arrival(server: LocalServer, result: RequestResult) -> int:
    record = server.emit_log.get(result.response_id or "")
    assert record is not None, result.error_message
    return record.t_received_ns


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_request_due_ahead_reaches_the_server_at_its_due_moment(
    server: LocalServer, transport: Transport
) -> None:
    client = make_client(server.base_url, None, transport)
    ready: list[int] = []
    try:
        for _ in range(3):  # a fresh connection, then a pooled one
            ready.clear()
            due = time.perf_counter_ns() + AHEAD_NS
            result = RequestResult(model=MODEL, t_intended=due)
            with held_until_due(ready.append):
                await stream_chat(client, result, SPEC)
            assert result.ok, result.error_message
            assert len(ready) == 1 and ready[0] < due  # built ahead, then held
            assert due <= result.t_send <= arrival(server, result)
            assert result.t_send < result.t_first_token
    finally:
        await client.close()


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_request_outside_a_schedule_is_never_held(
    server: LocalServer, transport: Transport
) -> None:
    """The doctor, a baseline, a closed loop: even a due moment ahead does not hold it."""
    client = make_client(server.base_url, None, transport)
    try:
        due = time.perf_counter_ns() + AHEAD_NS
        result = RequestResult(model=MODEL, t_intended=due)
        await stream_chat(client, result, SPEC)
    finally:
        await client.close()
    assert result.ok, result.error_message
    assert arrival(server, result) < due


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_request_cancelled_while_held_sends_nothing_and_the_client_still_works(
    server: LocalServer, transport: Transport
) -> None:
    client = make_client(server.base_url, None, transport)
    held = asyncio.Event()
    try:
        due = time.perf_counter_ns() + 10 * AHEAD_NS
        result = RequestResult(model=MODEL, t_intended=due)
        with held_until_due(lambda _ns: held.set()):
            task = asyncio.create_task(stream_chat(client, result, SPEC))
        await asyncio.wait_for(held.wait(), 30)
        await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert result.error_class is ErrorClass.CANCELLED
        assert len(server.emit_log) == 0  # not a byte of it reached the server
        after = await stream_chat(client, RequestResult(model=MODEL), SPEC)
        assert after.ok, after.error_message
    finally:
        await client.close()
    assert len(server.emit_log) == 1


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("cap", [None, 2])
async def test_an_open_loop_run_sends_no_request_before_its_scheduled_moment(
    server: LocalServer, transport: Transport, cap: int | None
) -> None:
    spec = ArrivalSpec(rate=40, process="constant", max_requests=16, max_concurrency=cap)
    plan = RunPlan(
        targets=(Target("local", server.base_url, MODEL),),
        prompt_lengths=(256,),
        max_tokens=4,
        arrivals=spec,
        calibrate=False,
        measure_baseline=False,
    )
    pool = ClientPool(transport)
    try:
        rows = [e.result async for e in Runner(pool).run(plan) if isinstance(e, RequestFinished)]
    finally:
        await pool.aclose()
    assert len(rows) == 16 and all(r.ok for r in rows), [r.error_message for r in rows]
    for row in rows:
        assert row.t_intended is not None and row.t_send is not None
        assert row.t_intended <= row.t_send <= arrival(server, row)
    # the schedule's gaps hold at the server: arrivals are the due moments, in order
    by_due = sorted(rows, key=lambda r: r.t_intended or 0)
    assert [arrival(server, r) for r in by_due] == sorted(arrival(server, r) for r in rows)


async def test_stop_during_a_hold_sends_nothing_and_the_run_ends_cancelled(
    server: LocalServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a lead long enough to press Stop inside the first request's hold (30 s), and the next
    # request 10 s later, so that only the first one has started
    monkeypatch.setattr(send_lead, "FIRST_LEAD_NS", 30 * 10**9)
    spec = ArrivalSpec(rate=0.1, process="constant", max_requests=3)
    plan = RunPlan(
        targets=(Target("local", server.base_url, MODEL),),
        prompt_lengths=(256,),
        max_tokens=4,
        arrivals=spec,
        calibrate=False,
        measure_baseline=False,
    )
    pool = ClientPool()
    runner = Runner(pool)
    rows: list[RequestResult] = []
    finished: RunFinished | None = None
    try:
        async for event in runner.run(plan):
            if isinstance(event, RequestStarted):
                await asyncio.sleep(0.2)  # it is built by now, and held
                runner.cancel()
            elif isinstance(event, RequestFinished):
                rows.append(event.result)
            elif isinstance(event, RunFinished):
                finished = event
    finally:
        await pool.aclose()
    assert finished is not None and finished.status == "cancelled"
    assert len(server.emit_log) == 0
    assert rows and all(r.error_class is ErrorClass.CANCELLED for r in rows)


def test_the_lead_follows_the_builds_within_its_bounds() -> None:
    lead = SendLead()
    assert lead.ns == send_lead.FIRST_LEAD_NS
    for took in [1_000_000] * 56 + [3_000_000] * 8:  # a trace's prompts: some 3x longer
        lead.built(took)
    assert lead.ns == 4_500_000  # the recent builds' high percentile, with its margin
    # and a long build (their p90, not the median of 1 ms): what must fit between two dues
    assert lead.long_build_ns == 3_000_000
    for _ in range(200):  # more than the window keeps: the slow builds are forgotten
        lead.built(1_000)
    assert lead.ns == send_lead.MIN_LEAD_NS
    for _ in range(8):
        lead.built(10**9)  # a stalled loop: the lead grows, but never past its bound
    assert lead.ns == send_lead.MAX_LEAD_NS


async def test_a_build_starts_after_a_held_request_falls_due_unless_that_makes_it_late() -> None:
    """A build takes the loop for its length: one that would cover a held request's due moment
    starts right after it instead, when its own request can still be on time."""
    build_ns, gap_ns = 10**9, AHEAD_NS
    now = time.perf_counter_ns()
    held = deque([now + gap_ns])
    await _between_dues(held, build_ns, now + 10 * build_ns, lambda: False)
    assert time.perf_counter_ns() >= now + gap_ns and not held  # waited for the held one

    now = time.perf_counter_ns()
    held = deque([now + gap_ns])
    await _between_dues(held, build_ns, now + build_ns, lambda: False)
    assert time.perf_counter_ns() < now + gap_ns  # waiting would make it late: built at once

    now = time.perf_counter_ns()
    held = deque([now + 2 * build_ns])
    await _between_dues(held, build_ns, now + 10 * build_ns, lambda: False)
    assert time.perf_counter_ns() < now + 2 * build_ns  # the build ends before it: at once
