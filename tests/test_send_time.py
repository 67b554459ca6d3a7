"""TTFT counts from the moment the request's bytes leave; the client's own queue is dispatch_ms.

The servers here run on a loop of their own thread (or in their own process), so a test that
holds the client's loop does not hold the server's; perf_counter_ns is one clock per process.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import pytest
from aiohttp import web

from tests.support.loopback import ThreadedLoop, serving_in_thread
from tests.support.scripted_server import ScriptedServer, chunk
from workbench.core.foundation.results import RequestResult, Target
from workbench.core.history.csv_export import read_csv, write_csv
from workbench.core.history.run_history import RunStore
from workbench.core.load.arrivals import ArrivalSpec
from workbench.core.planning.run_events import RequestFinished, TextDelta
from workbench.core.planning.run_plan import RunPlan
from workbench.core.run.runner import Runner
from workbench.core.transport.clients import ClientPool, Transport, make_client, open_connections
from workbench.core.transport.streaming import RequestSpec, stream_chat
from workbench.local.costmodel import SimSettings
from workbench.local.process import ServerProcess
from workbench.local.server import LocalServer

REPO = Path(__file__).resolve().parent.parent
MODEL = "sim-70b-gqa"
SPEC = RequestSpec(messages=[{"role": "user", "content": "Explain GQA."}], max_tokens=4)
HOLD_S = 0.3


@pytest.fixture
def local_in_thread() -> Iterator[LocalServer]:
    """The built-in provider on its own thread's loop (fast: ~1 ms per token)."""
    with ThreadedLoop() as background:
        server = LocalServer(settings=SimSettings(time_scale=0.05))
        background.run(server.start())
        try:
            yield server
        finally:
            background.run(server.stop())


@pytest.mark.parametrize("transport", ["aiohttp", "httpx"])
async def test_a_held_loop_during_dispatch_shows_in_dispatch_ms_not_in_ttft(
    local_in_thread: LocalServer, transport: Transport
) -> None:
    """The loop is blocked (a slow callback, a repaint) after the request was due and before its
    bytes could be written: the server cannot have seen it, so the wait is the client's."""
    client = make_client(local_in_thread.base_url, None, transport)
    try:
        result = RequestResult(model=MODEL, t_intended=time.perf_counter_ns())
        sent = asyncio.create_task(stream_chat(client, result, SPEC))
        # the request's first step runs first and stops at the TCP connect; then this holds
        asyncio.get_running_loop().call_soon(time.sleep, HOLD_S)
        await sent
    finally:
        await client.close()
    assert result.ok, result.error_message
    row = read_back([result])[0]
    record = local_in_thread.emit_log.get(result.response_id or "")
    assert record is not None
    assert float(row["dispatch_ms"]) >= HOLD_S * 1000
    assert float(row["ttft_ms"]) < HOLD_S * 1000 / 2, row  # ~ the server's own TTFT
    assert result.t_send <= record.t_received_ns  # stamped before the server could see it


@pytest.mark.parametrize("transport", ["aiohttp", "httpx"])
async def test_the_send_stamp_lies_between_intent_and_the_servers_arrival(
    local_in_thread: LocalServer, transport: Transport
) -> None:
    client = make_client(local_in_thread.base_url, None, transport)
    try:
        results = [RequestResult(model=MODEL) for _ in range(6)]
        for result in results:  # one connection, reused: the stamp holds for each request
            before = time.perf_counter_ns()
            await stream_chat(client, result, SPEC)
            assert result.ok, result.error_message
            record = local_in_thread.emit_log.get(result.response_id or "")
            assert record is not None
            assert before <= result.t_intended <= result.t_send <= record.t_received_ns
            assert result.t_send < result.t_first_token
    finally:
        await client.close()


async def test_dispatch_plus_ttft_is_the_wall_time_from_the_intended_start(
    local_in_thread: LocalServer,
) -> None:
    """What the CSV says adds up to what a stopwatch started at the intended start reads at the
    first text, for every row of a run with concurrency."""
    pool = ClientPool()
    target = Target("local", local_in_thread.base_url, MODEL)
    plan = RunPlan(
        targets=(target,), prompt_lengths=(256,), repeats=12, concurrency_levels=(4,), max_tokens=4
    )
    first_text: dict[str, int] = {}
    rows: list[RequestResult] = []
    try:
        async for event in Runner(pool).run(plan):
            if isinstance(event, TextDelta):
                first_text.setdefault(event.request_id, event.t_ns)
            elif isinstance(event, RequestFinished) and not event.result.warmup:
                rows.append(event.result)
    finally:
        await pool.aclose()
    assert len(rows) == 12 and all(r.ok for r in rows)
    for result, row in zip(rows, read_back(rows), strict=True):
        stopwatch_ms = (first_text[result.request_id] - result.t_intended) / 1e6
        assert float(row["dispatch_ms"]) >= 0 and float(row["ttft_ms"]) > 0
        # each column is rounded to 1 µs when written
        assert float(row["dispatch_ms"]) + float(row["ttft_ms"]) == pytest.approx(
            stopwatch_ms, abs=0.002
        )
        assert row["response_id"] == result.response_id and row["response_id"]


def read_back(results: list[RequestResult]) -> list[dict[str, str]]:
    """The rows as a user reads them from the CSV."""
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "rows.csv"
        write_csv(path, results)
        return read_csv(path)


async def _hold(seconds: float, release: threading.Event | None) -> None:
    """A server's pause of `seconds`, cut short once the test has measured and sets `release`
    (the server thread would otherwise keep the test until the pause is over)."""
    end = time.perf_counter() + seconds
    while time.perf_counter() < end and not (release is not None and release.is_set()):
        await asyncio.sleep(min(0.01, max(0.0, end - time.perf_counter())))


def _port_recorder(
    models_wait_s: float = 0.05, done_gap_s: float = 0.0, release: threading.Event | None = None
) -> tuple[web.Application, dict[str, list[int]]]:
    """A chat server that notes the client port of every request: a new port is a new
    connection. `done_gap_s`: how long after [DONE] the body ends (its last chunk), or until
    `release` is set."""
    seen: dict[str, list[int]] = {"models": [], "chat": []}

    def port(request: web.Request) -> int:
        assert request.transport is not None
        return int(request.transport.get_extra_info("peername")[1])

    async def models(request: web.Request) -> web.Response:
        seen["models"].append(port(request))
        await asyncio.sleep(models_wait_s)  # > 0: answered together, a connection each
        return web.json_response({"object": "list", "data": [{"id": "m", "object": "model"}]})

    async def chat(request: web.Request) -> web.StreamResponse:
        seen["chat"].append(port(request))
        await request.read()
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        for delta in ({"content": "hi"}, {}):
            chunk = {"id": "chatcmpl-p", "choices": [{"index": 0, "delta": delta}]}
            if not delta:
                chunk["choices"][0]["finish_reason"] = "stop"
            await response.write(f"data: {json.dumps(chunk)}\n\n".encode())
            await asyncio.sleep(0.02)  # the server paces its stream: behaviour, not a wait
        await response.write(b"data: [DONE]\n\n")
        await _hold(done_gap_s, release)  # the body's last chunk comes when this returns
        return response

    app = web.Application()
    app.router.add_get("/v1/models", models)
    app.router.add_post("/v1/chat/completions", chat)
    return app, seen


async def test_an_opening_burst_finds_its_connections_already_open() -> None:
    app, seen = _port_recorder()
    pool = ClientPool()
    with serving_in_thread(app) as base_url:
        plan = RunPlan(
            targets=(Target("p", base_url, "m"),),
            prompt_lengths=(128,),
            repeats=8,
            concurrency_levels=(8,),
            max_tokens=4,
            calibrate=False,
            measure_baseline=False,
        )
        try:
            async for _event in Runner(pool).run(plan):
                pass
        finally:
            await pool.aclose()
    assert len(seen["chat"]) == 8
    assert len(set(seen["models"])) == 8  # opened before the run, all at once
    assert set(seen["chat"]) <= set(seen["models"])  # no request waited for a TCP handshake


async def test_warming_opens_as_many_connections_as_asked_from_a_server_that_answers_at_once() -> (
    None
):
    app, seen = _port_recorder(models_wait_s=0.0)
    with serving_in_thread(app) as base_url:
        client = make_client(base_url, None, "aiohttp")
        try:
            assert await open_connections(client, 6) == 6
        finally:
            await client.close()
    assert len(set(seen["models"])) == 6  # each GET kept its connection until all had one


async def test_warming_keeps_the_connections_that_answered_when_one_never_does() -> None:
    """The third GET /models is never answered: warming ends at its time limit with the other
    three connections answered and kept."""
    asked: list[int] = []
    measured = threading.Event()

    async def models(_request: web.Request) -> web.Response:
        asked.append(1)
        if len(asked) == 3:
            await _hold(3, measured)  # past the 1 s warming allows
        return web.json_response({"object": "list", "data": []})

    app = web.Application()
    app.router.add_get("/v1/models", models)
    with serving_in_thread(app) as base_url:
        client = make_client(base_url, None, "aiohttp")
        try:
            began = time.perf_counter()
            answered = await open_connections(client, 4, timeout_s=1.0)
            took_s = time.perf_counter() - began
        finally:
            measured.set()
            await client.close()
    assert answered == 3
    assert took_s < 2.0


async def test_a_stream_ended_by_done_keeps_its_connection_for_the_next_request() -> None:
    """The body's last chunk comes 5 ms after [DONE]: the connection is still handed back
    open, so the next request reuses it instead of opening a new one."""
    app, seen = _port_recorder(done_gap_s=0.005)
    with serving_in_thread(app) as base_url:
        client = make_client(base_url, None, "aiohttp")
        try:
            for _ in range(4):
                result = RequestResult(model="m")
                await stream_chat(client, result, SPEC)
                assert result.ok, result.error_message
        finally:
            await client.close()
    assert len(seen["chat"]) == 4
    assert len(set(seen["chat"])) == 1, seen["chat"]


async def test_a_body_that_stays_open_after_done_is_waited_for_only_briefly() -> None:
    """The rest of a body after [DONE] is read for at most DRAIN_S: a server that holds its
    body open for 2 s more does not hold the request (nor its e2e)."""
    measured = threading.Event()
    app, _seen = _port_recorder(done_gap_s=2.0, release=measured)
    with serving_in_thread(app) as base_url:
        client = make_client(base_url, None, "aiohttp")
        try:
            result = RequestResult(model="m")
            began = time.perf_counter()
            await stream_chat(client, result, SPEC)
            took_s = time.perf_counter() - began
        finally:
            measured.set()
            await client.close()
    assert result.ok, result.error_message
    assert took_s < 1.0
    assert result.t_done is not None and result.t_send is not None
    assert (result.t_done - result.t_send) / 1e9 < took_s  # e2e ends at [DONE], not after


async def test_an_open_loop_cell_finds_its_connections_already_open() -> None:
    """Before its schedule, an open-loop cell opens as many connections as its requests in
    flight at their peak (here its cap, 4): no request of the schedule opens one."""
    app, seen = _port_recorder()
    pool = ClientPool()
    with serving_in_thread(app) as base_url:
        plan = RunPlan(
            targets=(Target("p", base_url, "m"),),
            prompt_lengths=(128,),
            max_tokens=4,
            warmup=1,
            calibrate=False,
            measure_baseline=False,
            arrivals=ArrivalSpec(rate=100, process="constant", max_requests=12, max_concurrency=4),
        )
        try:
            async for _event in Runner(pool).run(plan):
                pass
        finally:
            await pool.aclose()
    assert len(seen["chat"]) == 13  # the warm-up and the schedule's 12
    assert len(set(seen["models"])) == 4
    assert set(seen["chat"][1:]) <= set(seen["models"]), seen


async def test_an_opening_burst_does_not_starve_a_stream_already_running() -> None:
    """While 128 requests due at once go out (connections opened ahead, one request prepared
    per turn of the loop), a stream that was already running keeps getting its tokens on time:
    measured against the server's own emit times. Unpaced, the burst held the loop ~250 ms."""
    server = ServerProcess(time_scale=0.3)
    base_url = await server.start()
    pool = ClientPool()
    client = make_client(base_url, None)
    running = RequestResult(model=MODEL)
    long_spec = RequestSpec(messages=[{"role": "user", "content": "Go on."}], max_tokens=300)
    plan = RunPlan(
        targets=(Target("local", base_url, MODEL),),
        prompt_lengths=(256,),
        repeats=128,
        concurrency_levels=(128,),
        max_tokens=4,
        calibrate=False,
    )
    try:
        streaming = asyncio.create_task(stream_chat(client, running, long_spec))
        async with asyncio.timeout(30):  # until it is streaming (~5 ms per token)
            while len(running.event_times) < 10:
                await asyncio.sleep(0.01)
        burst_start = time.perf_counter_ns()
        rows = [e.result async for e in Runner(pool).run(plan) if isinstance(e, RequestFinished)]
        burst_end = time.perf_counter_ns()
        await streaming
        async with aiohttp.ClientSession() as http:
            async with http.get(f"{base_url}/_emit_log/{running.response_id}") as answer:
                emits = (await answer.json())["chunk_emit_ns"]
    finally:
        await client.close()
        await pool.aclose()
        await server.stop()
    assert running.ok and len(rows) == 128 and all(r.ok for r in rows)
    assert len(emits) == len(running.event_times)
    lags_ms = [
        (got - emitted) / 1e6
        for got, emitted in zip(running.event_times, emits, strict=True)
        if burst_start <= emitted <= burst_end
    ]
    assert len(lags_ms) > 20  # the burst overlapped the stream
    # the median token's lag while the burst goes out: paced 5-14 ms here (the worst 30-130 ms
    # on 2 shared cores); unpaced 34-63 ms (the worst 180-380 ms)
    median = sorted(lags_ms)[len(lags_ms) // 2]
    assert median < 20, f"the running stream's tokens waited {median:.0f} ms (median)"


def test_the_first_measured_request_finds_the_sdk_warm(tmp_path: Path) -> None:
    """In a fresh process (the SDK's lazy modules are imported once per process), the modules
    the first streamed request would import are already loaded when it is dispatched."""
    script = textwrap.dedent(
        """
        import asyncio, sys
        from workbench.core.transport.clients import ClientPool
        from workbench.core.foundation.results import Target
        from workbench.core.planning.run_events import RequestStarted
        from workbench.core.planning.run_plan import RunPlan
        from workbench.core.run.runner import Runner

        LAZY = "openai.resources.chat.completions.completions"

        async def main() -> None:
            target = Target("closed", "http://127.0.0.1:9/v1", "m")
            plan = RunPlan(targets=(target,), prompt_lengths=(128,), calibrate=False,
                           measure_baseline=False, max_tokens=4)
            pool = ClientPool()
            try:
                async for event in Runner(pool).run(plan):
                    if isinstance(event, RequestStarted):
                        print("warm" if LAZY in sys.modules else "cold", flush=True)
            finally:
                await pool.aclose()

        asyncio.run(main())
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", script],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split() == ["warm"]


async def test_a_numeric_completion_id_is_left_out_and_the_first_string_id_kept() -> None:
    """The row's response_id names the completion in the server's logs: only a string does."""
    first = chunk("Hel")
    first["id"] = 12345
    script = [(0.0, first), (0.0, chunk("lo", finish="stop")), (0.0, "[DONE]")]
    async with ScriptedServer(script) as server:
        client = make_client(server.base_url, None)
        try:
            result = await stream_chat(client, RequestResult(model="m"), SPEC)
        finally:
            await client.close()
    assert result.ok and result.text == "Hello"
    assert read_back([result])[0]["response_id"] == "chatcmpl-test"


def test_an_older_history_gains_the_new_columns_and_keeps_its_rows(tmp_path: Path) -> None:
    db = tmp_path / "history.sqlite3"
    t0 = 5_000_000_000
    with RunStore(db) as store:
        run_id = store.start_run("comparison", {})
        store.record(RequestResult(model="old", run_id=run_id, t_send=t0, t_done=t0 + 10**9))
    conn = sqlite3.connect(db)  # as the app before dispatch_ms left it
    for column in ("t_intended", "dispatch_ms"):
        conn.execute(f"ALTER TABLE requests DROP COLUMN {column}")
    conn.commit()
    conn.close()
    with RunStore(db) as store:
        new = RequestResult(model="new", run_id=run_id, t_intended=t0, t_send=t0 + 2_500_000)
        store.record(new)
        old_row, new_row = store.results(run_id)
        assert old_row.model == "old" and old_row.t_intended is None and old_row.t_done
        assert new_row == new
        dispatch = store.query("SELECT model, dispatch_ms FROM requests ORDER BY model")
    assert dispatch == [("new", 2.5), ("old", None)]
