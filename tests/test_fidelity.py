"""What the client measures agrees with what the server did (benchmarks/ has the tight figures)."""

from __future__ import annotations

import asyncio

from workbench.core.clients import make_client
from workbench.core.metrics import percentile
from workbench.core.results import RequestResult
from workbench.core.streaming import RequestSpec, stream_chat
from workbench.local.costmodel import SimSettings
from workbench.local.server import LocalServer


async def test_ttft_within_5ms_of_server_emit_time_at_concurrency_16() -> None:
    spec = RequestSpec(messages=[{"role": "user", "content": "Explain GQA."}], max_tokens=30)
    async with LocalServer(settings=SimSettings(time_scale=0.05)) as server:
        client = make_client(server.base_url, None)
        try:
            results = await asyncio.gather(*(
                stream_chat(client, RequestResult(model="sim-70b-gqa"), spec) for _ in range(16)
            ))
        finally:
            await client.close()
        errors_ms = []
        lags_ms = []
        for r in results:
            assert r.ok, r.error_message
            record = server.emit_log.get(r.response_id)
            assert record is not None and len(record.chunk_emit_ns) == len(r.event_times)
            errors_ms.append((r.t_first_token - record.t_first_token_ns) / 1e6)
            lags_ms += [(c - s) / 1e6 for c, s in zip(r.event_times, record.chunk_emit_ns,
                                                       strict=True)]
    assert min(errors_ms) >= 0  # never before the server wrote it: one clock, causality holds
    assert percentile(errors_ms, 99) < 5.0, errors_ms
    assert percentile(lags_ms, 99) < 5.0
