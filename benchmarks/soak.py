"""A long run at high concurrency: every token arrives, every request ends, memory stays flat.

`client_fidelity.py --soak SECONDS` keeps `--soak-concurrency` streams going through
`stream_chat` for that long (each starting a new request as its last ends), then checks every
request
against the server's emit log: a token the server wrote that the client never recorded is lost,
a request that did not succeed is dropped. The client's RSS is sampled every second; "flat"
compares the last quarter of the run with the second quarter (after connections, buffers and
caches have grown to their working size).
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from send_side import _emit_records

SAMPLE_S = 1.0


def _rss_mib() -> float | None:
    """This process's resident memory (Linux /proc; None elsewhere)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


async def _sample(samples: list[tuple[float, float]], start: float) -> None:
    while True:
        rss = _rss_mib()
        if rss is not None:
            samples.append((time.perf_counter() - start, rss))
        await asyncio.sleep(SAMPLE_S)


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


async def soak(
    base_url: str, model: str, concurrency: int, tokens: int, seconds: float
) -> dict[str, Any]:
    """One long level; a dict row with lost tokens, dropped requests and the RSS samples.

    `concurrency` workers each start a request as their last one ends, until `seconds` have
    passed; the requests in flight then finish (nothing is cancelled)."""
    from workbench.core.foundation.results import RequestResult
    from workbench.core.transport.clients import ClientPool
    from workbench.core.transport.streaming import RequestSpec, stream_chat

    spec = RequestSpec(
        [{"role": "user", "content": "Explain KV caches in detail."}],
        max_tokens=tokens,
        first_token_timeout_s=60,
        stall_timeout_s=30,
    )
    pool = ClientPool()
    client = pool.get(base_url, None)
    rows: list[tuple[str | None, int, bool, str | None]] = []  # small: memory is measured
    samples: list[tuple[float, float]] = []
    start = time.perf_counter()
    deadline = start + seconds

    async def worker() -> None:
        while time.perf_counter() < deadline:
            r = await stream_chat(client, RequestResult(model=model), spec)
            rows.append((r.response_id, len(r.event_times), r.ok, r.error_class))

    cpu0 = time.process_time()
    sampler = asyncio.ensure_future(_sample(samples, start))
    try:
        await asyncio.gather(*(worker() for _ in range(concurrency)))
    finally:
        sampler.cancel()
        await pool.aclose()
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu0
    records = await _emit_records(base_url, [rid for rid, *_ in rows if rid])
    lost = missing = 0
    for rid, events, ok, _ in rows:
        record = records.get(rid or "")
        if record is None:
            missing += 1
        elif ok:
            lost += max(0, len(record["chunk_emit_ns"]) - events)
    quarter = wall / 4
    second = [m for t, m in samples if quarter <= t < 2 * quarter]
    last = [m for t, m in samples if t >= 3 * quarter]
    tokens_seen = sum(events for _, events, _, _ in rows)
    return {
        "concurrency": concurrency,
        "seconds": wall,
        "requests": len(rows),
        "dropped_requests": sum(not ok for _, _, ok, _ in rows),
        "error_classes": sorted({str(e) for *_, e in rows if e}),
        "lost_tokens": lost,
        "rows_without_emit_record": missing,
        "tokens": tokens_seen,
        "aggregate_tps": tokens_seen / wall,
        "cpu_us_per_token": cpu / max(1, tokens_seen) * 1e6,
        "rss_mib_second_quarter": _mean(second),
        "rss_mib_last_quarter": _mean(last),
        "rss_mib_max": max((m for _, m in samples), default=None),
        "rss_samples": samples,
    }


def soak_markdown(row: dict[str, Any], tokens: int, interval_ms: float) -> str:
    def f(v: float | None) -> str:
        return "-" if v is None else f"{v:.1f}"

    return (
        f"## Soak: c={row['concurrency']} for {row['seconds']:.0f} s\n\n"
        f"`stream_chat` on one pooled client, {tokens} tokens per request at "
        f"{interval_ms:g} ms per token, every request checked against the server's emit log.\n\n"
        "requests | dropped | lost tokens | rows without emit record | tokens | "
        "tok/s | CPU µs/token | RSS MiB, 2nd quarter → last quarter (max)\n"
        "---|---|---|---|---|---|---|---\n"
        f"{row['requests']} | {row['dropped_requests']} | "
        f"{row['lost_tokens']} | {row['rows_without_emit_record']} | {row['tokens']:,} | "
        f"{row['aggregate_tps']:,.0f} | {row['cpu_us_per_token']:.0f} | "
        f"{f(row['rss_mib_second_quarter'])} → {f(row['rss_mib_last_quarter'])} "
        f"({f(row['rss_mib_max'])})\n"
    )
