"""What the client measures agrees with what the server did (benchmarks/ has the tight figures).

The server runs in its own process, as a real provider does; on Linux perf_counter_ns is
CLOCK_MONOTONIC, one clock for both processes, so client and server times compare directly.
"""

from __future__ import annotations

import asyncio
import sys

import aiohttp
import pytest

from workbench.core.foundation.metrics import percentile
from workbench.core.foundation.results import RequestResult
from workbench.core.transport.clients import make_client
from workbench.core.transport.streaming import RequestSpec, stream_chat
from workbench.local.process import UNBATCHED, ServerProcess

# Elsewhere perf_counter's reference point is not promised to be shared between processes.
pytestmark = [
    pytest.mark.hardware("a Linux host (one CLOCK_MONOTONIC for all processes)"),
    pytest.mark.skipif(sys.platform != "linux", reason="one monotonic clock per host"),
]


async def _round(server_url: str, spec: RequestSpec) -> tuple[list[float], list[float]]:
    client = make_client(server_url, None)
    try:
        # one warm-up request first: the first ever request pays one-off imports and setup
        await stream_chat(client, RequestResult(model="sim-70b-gqa"), spec)
        results = await asyncio.gather(
            *(stream_chat(client, RequestResult(model="sim-70b-gqa"), spec) for _ in range(16))
        )
    finally:
        await client.close()
    errors_ms, lags_ms = [], []
    async with aiohttp.ClientSession() as http:
        for r in results:
            assert r.ok, r.error_message
            async with http.get(f"{server_url}/_emit_log/{r.response_id}") as resp:
                emits = (await resp.json())["chunk_emit_ns"]
            assert len(emits) == len(r.event_times)  # no token lost or invented
            errors_ms.append((r.t_first_token - emits[0]) / 1e6)
            lags_ms += [(c - s) / 1e6 for c, s in zip(r.event_times, emits, strict=True)]
    assert min(errors_ms) >= 0  # never before the server wrote it
    return errors_ms, lags_ms


async def test_ttft_within_5ms_of_server_emit_time_at_concurrency_16() -> None:
    """p99 within 5 ms; up to three rounds, because another process on a 2-core machine can
    steal the CPU for longer than that at any moment (benchmarks/ measure on a quiet one)."""
    spec = RequestSpec(messages=[{"role": "user", "content": "Explain GQA."}], max_tokens=30)
    # real time (~17 ms per token): 16 streams are ~900 tok/s, a load this machine carries
    # (benchmarks/results/client_fidelity.md has the capacity curve)
    # unbatched: a batch writes all 16 streams' tokens at one instant, and reading 16 at once
    # makes the last late by the reading of the others, which is not what this test measures
    server = ServerProcess(time_scale=1.0, extra=UNBATCHED)
    server_url = await server.start()
    rounds = []
    try:
        for _ in range(3):
            errors_ms, lags_ms = await _round(server_url, spec)
            rounds.append((percentile(errors_ms, 99), percentile(lags_ms, 99)))
            if rounds[-1][0] < 5.0 and rounds[-1][1] < 5.0:
                break
    finally:
        await server.stop()
    assert rounds[-1][0] < 5.0 and rounds[-1][1] < 5.0, rounds
