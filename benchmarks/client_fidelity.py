"""How truthful and how cheap is our client? (foundation issue, benchmark item 8; issue 14)

(a) token arrival: the client's first token and every later one against the local server's own
    emit times, at several concurrencies: p50 and p99 of (client time - server emit time) in ms.
(b) overhead: client CPU seconds per streamed token, and the highest aggregate tokens/s at
    which the p99 per-token lag stays under 5 ms.
(c) transport: the same load through the SDK's httpx client and its aiohttp client.
(d) send side (send_side.py): TTFT as the Runner measures it against the server's own TTFT
    (its arrival stamp to its first emit), our send stamp against its arrival, and dispatch_ms;
    the opening burst apart from the steady state. `--compare-with DIR` measures the code in
    DIR (e.g. `git archive main`) too, interleaved, against the same server.

The server runs in its own process (`workbench serve-local`), as a real provider would, and its
emit times come back over `GET /v1/_emit_log/{id}`. On Linux `perf_counter_ns` is
CLOCK_MONOTONIC, one clock for both processes. Results go to benchmarks/results/ with the machine.

    .venv/bin/python benchmarks/client_fidelity.py            # full run, about 4 minutes
    .venv/bin/python benchmarks/client_fidelity.py --quick    # a smoke run
    .venv/bin/python benchmarks/client_fidelity.py --soak 120 # c=256 for 2 minutes: lost tokens,
                                                              # dropped requests, RSS

Each process runs its loop as `workbench bench` does: uvloop where the code measured has it
(workbench/core/system/loop.py), asyncio's own for code from before it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parent))
from machine import machine_record, write_result
from send_side import run_child, send_level, send_table
from soak import soak, soak_markdown

from workbench.core.foundation.metrics import percentile
from workbench.core.foundation.results import RequestResult
from workbench.core.transport.clients import Transport, make_client
from workbench.core.transport.streaming import RequestSpec, stream_chat
from workbench.local.process import UNBATCHED, ServerProcess

MODEL = "sim-llama-3-70b"
LAG_LIMIT_MS = 5.0


@dataclass
class LevelResult:
    transport: str
    concurrency: int
    token_interval_ms: float
    requests: int
    errors: int
    tokens: int
    aggregate_tps: float
    first_token_lag_p50_ms: float | None
    first_token_lag_p99_ms: float | None
    lag_p50_ms: float | None
    lag_p99_ms: float | None
    cpu_us_per_token: float
    lost_tokens: int
    workers: int = 1  # client processes the level's streams were shared over


def _time_scale_for(interval_ms: float) -> float:
    """The time scale that makes MODEL's decode step at a short prompt take `interval_ms`."""
    from workbench.core.models.catalog import load_catalog
    from workbench.local.costmodel import SimSettings, SimTiming

    model = load_catalog().get(MODEL)
    assert model is not None
    base = SimTiming(model, SimSettings()).token_interval_s(200, 1) * 1000
    return interval_ms / base


async def _stream(
    base_url: str, transport: Transport, concurrency: int, tokens: int
) -> tuple[list[RequestResult], float, int, int]:
    """`concurrency` streams at once from this process: (results, CPU s, start ns, end ns)."""
    client = make_client(base_url, None, transport)
    spec = RequestSpec(
        messages=[{"role": "user", "content": "Explain KV caches briefly."}],
        max_tokens=tokens,
        first_token_timeout_s=60,
        stall_timeout_s=30,
    )
    cpu0 = time.process_time()
    start = time.perf_counter_ns()
    try:
        results = await asyncio.gather(
            *(stream_chat(client, RequestResult(model=MODEL), spec) for _ in range(concurrency))
        )
    finally:
        await client.close()
    return list(results), time.process_time() - cpu0, start, time.perf_counter_ns()


def _child_stream(
    base_url: str, transport: Transport, concurrency: int, tokens: int, start_at: float
) -> tuple[list[RequestResult], float, int, int]:
    """One worker process's share of a level, from a common wall-clock start."""
    time.sleep(max(0.0, start_at - time.time()))
    return asyncio.run(_stream(base_url, transport, concurrency, tokens))


def _warm_child(_index: int) -> int:
    return os.getpid()  # the spawned worker has imported this module (and the SDK) by now


async def _level(
    base_url: str,
    transport: Transport,
    concurrency: int,
    tokens: int,
    interval_ms: float,
    pool: ProcessPoolExecutor | None = None,
    workers: int = 1,
) -> LevelResult:
    """One level; with `pool` its streams are shared out over the pool's worker processes, as
    `workbench bench --workers N` does (perf_counter_ns is CLOCK_MONOTONIC: one clock)."""
    if pool is None:
        parts = [await _stream(base_url, transport, concurrency, tokens)]
    else:
        shares = [concurrency // workers + (i < concurrency % workers) for i in range(workers)]
        loop = asyncio.get_running_loop()
        start_at = time.time() + 0.5
        parts = await asyncio.gather(
            *(
                loop.run_in_executor(
                    pool, _child_stream, base_url, transport, share, tokens, start_at
                )
                for share in shares
                if share
            )
        )
    results = [r for part in parts for r in part[0]]
    cpu = sum(part[1] for part in parts)
    wall = (max(part[3] for part in parts) - min(part[2] for part in parts)) / 1e9
    first_lags: list[float] = []
    lags: list[float] = []
    lost = 0
    async with aiohttp.ClientSession() as http:
        for r in results:
            if not r.ok or r.response_id is None:
                continue
            root = base_url.rsplit("/v1", 1)[0]
            async with http.get(f"{root}/v1/_emit_log/{r.response_id}") as resp:
                record = await resp.json()
            emits = record["chunk_emit_ns"]
            lost += max(0, len(emits) - len(r.event_times))
            if r.t_first_token is not None and emits:
                first_lags.append((r.t_first_token - emits[0]) / 1e6)
            lags += [(c - s) / 1e6 for c, s in zip(r.event_times, emits, strict=False)]
    n_tokens = sum(len(r.event_times) for r in results)
    return LevelResult(
        transport=transport,
        concurrency=concurrency,
        token_interval_ms=interval_ms,
        requests=len(results),
        errors=sum(not r.ok for r in results),
        tokens=n_tokens,
        aggregate_tps=n_tokens / wall,
        first_token_lag_p50_ms=percentile(first_lags, 50),
        first_token_lag_p99_ms=percentile(first_lags, 99),
        lag_p50_ms=percentile(lags, 50),
        lag_p99_ms=percentile(lags, 99),
        cpu_us_per_token=cpu / max(1, n_tokens) * 1e6,
        lost_tokens=lost,
        workers=workers,
    )


def _fmt(v: float | None) -> str:
    return "-" if v is None else f"{v:.2f}"


def _table(rows: list[LevelResult]) -> str:
    head = (
        "transport | conc | interval ms | tok/s agg | first token lag p50/p99 ms | "
        "token lag p50/p99 ms | client CPU µs/token | errors | lost"
    )
    lines = [head, "|".join("---" for _ in head.split("|"))]
    for r in rows:
        who = f"{r.transport} x{r.workers}" if r.workers > 1 else r.transport
        lines.append(
            f"{who} | {r.concurrency} | {r.token_interval_ms:.0f} | {r.aggregate_tps:,.0f}"
            f" | {_fmt(r.first_token_lag_p50_ms)} / {_fmt(r.first_token_lag_p99_ms)}"
            f" | {_fmt(r.lag_p50_ms)} / {_fmt(r.lag_p99_ms)} | {r.cpu_us_per_token:.1f}"
            f" | {r.errors} | {r.lost_tokens}"
        )
    return "\n".join(lines)


async def _token_side(
    base_url: str, args: argparse.Namespace
) -> tuple[list[LevelResult], dict[str, float]]:
    rows: list[LevelResult] = []
    for transport in args.transports:
        for conc in args.concurrency:
            row = await _level(base_url, transport, conc, args.tokens, args.interval_ms)
            rows.append(row)
            print(_table([row]).splitlines()[-1], flush=True)
    # (b) capacity: raise the aggregate rate until the p99 lag passes the limit; with several
    # worker counts, once per count (`--workers 1 2`: one client process against two)
    capacity: dict[str, float] = {}
    for workers in args.workers:
        pool = _pool(workers)
        try:
            for transport in args.transports:
                best = 0.0
                for conc in args.capacity_levels:
                    passed = False
                    for _ in range(args.tries):  # a level passes when one try is under the limit
                        row = await _level(
                            base_url, transport, conc, args.tokens, args.interval_ms, pool, workers
                        )
                        rows.append(row)
                        print(_table([row]).splitlines()[-1], flush=True)
                        lag = row.lag_p99_ms
                        passed = not row.errors and lag is not None and lag <= LAG_LIMIT_MS
                        if passed:
                            best = max(best, row.aggregate_tps)
                            break
                    if not passed:
                        break
                key = transport if args.workers == [1] else f"{transport}, {workers} worker(s)"
                capacity[key] = best
        finally:
            if pool is not None:
                pool.shutdown()
    return rows, capacity


def _pool(workers: int) -> ProcessPoolExecutor | None:
    """`workers` spawned client processes, started and warm; None for this process alone."""
    if workers <= 1:
        return None
    pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))
    list(pool.map(_warm_child, range(workers)))
    return pool


def _rounds(concurrency: int, asked: int | None) -> int:
    """Requests per worker: enough for a p99 at c=1, a few rounds of steady state above."""
    return asked or max(3, 12 // max(1, concurrency.bit_length() - 1))


async def _send_side(base_url: str, args: argparse.Namespace) -> list[dict[str, Any]]:
    repo = Path(__file__).resolve().parent.parent
    codes = [(args.compare_label, Path(args.compare_with))] if args.compare_with else []
    codes.append((f"this ({machine_record()['commit']})", repo))
    rows: list[dict[str, Any]] = []
    for conc in args.send_concurrency:
        for label, root in codes:  # interleaved: the machine's load hits both alike
            row = await run_child(
                root, base_url, MODEL, conc, args.send_tokens, _rounds(conc, args.rounds)
            )
            row["code"] = label
            rows.append(row)
            print(send_table([row]).splitlines()[-1], flush=True)
    return rows


async def _soak(args: argparse.Namespace) -> int:
    server = ServerProcess(time_scale=_time_scale_for(args.interval_ms), extra=UNBATCHED)
    base_url = await server.start()
    try:
        row = await soak(base_url, MODEL, args.soak_concurrency, args.soak_tokens, args.soak)
    finally:
        await server.stop()
    md = soak_markdown(row, args.soak_tokens, args.interval_ms)
    md += f"\nLoad average at the end: {os.getloadavg()[0]:.2f}.\n"
    print(md)
    write_result(
        "client_fidelity_soak",
        command=" ".join([Path(sys.executable).name, *sys.argv]),
        markdown=md,
        data={"soak": row, "machine": machine_record()},
        quick=args.quick,
    )
    return 0 if row["dropped_requests"] == 0 and row["lost_tokens"] == 0 else 3


def _run_loop(main: Any) -> Any:
    """As `workbench bench` runs its loop: uvloop where core/system/loop.py has it."""
    try:
        from workbench.core.system.loop import run
    except ImportError:  # code from before it (a --compare-with tree): asyncio's loop
        return asyncio.run(main)
    return run(main)


async def _main(args: argparse.Namespace) -> int:
    if args.soak:
        return await _soak(args)
    server = ServerProcess(time_scale=_time_scale_for(args.interval_ms), extra=UNBATCHED)
    base_url = await server.start()
    try:
        rows, capacity = ([], {}) if args.skip_token_side else await _token_side(base_url, args)
        send_rows = [] if args.skip_send_side else await _send_side(base_url, args)
    finally:
        await server.stop()
    table = _table(rows)
    summary = "\n".join(
        f"- {t}: highest aggregate rate with p99 token lag <= {LAG_LIMIT_MS} ms: {v:,.0f} tok/s"
        for t, v in capacity.items()
    )
    send_md = (
        ""
        if not send_rows
        else (
            f"## Send side: TTFT against the server's own (arrival to first emit)\n\n"
            f"{args.interval_ms:g} ms per token, {args.send_tokens} tokens per request, a "
            f"~256-token prompt, the Runner with the aiohttp transport; the opening burst is each "
            f"level's first `concurrency` requests, the steady state the rest. Load average at the "
            f"end: {os.getloadavg()[0]:.2f}.\n\n{send_table(send_rows)}\n"
        )
    )
    load = f"Load average at the end: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores."
    token_md = f"## Token arrival\n\n{table}\n\n{summary}\n\n{load}\n\n" if rows else ""
    print("\n" + token_md + send_md)
    write_result(
        "client_fidelity" if args.workers == [1] else "client_fidelity_workers",
        command=" ".join([Path(sys.executable).name, *sys.argv]),
        markdown=token_md + send_md,
        data={
            "rows": [r.__dict__ for r in rows],
            "capacity_tps": capacity,
            "send_side": send_rows,
            "machine": machine_record(),
        },
        quick=args.quick,
    )
    return 0


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--transports", nargs="+", default=["httpx", "aiohttp"])
    p.add_argument("--concurrency", type=int, nargs="+", default=[1, 16, 64, 256])
    p.add_argument(
        "--capacity-levels", type=int, nargs="+", default=[32, 64, 128, 192, 256, 384, 512]
    )
    p.add_argument("--tokens", type=int, default=100, help="tokens per request")
    p.add_argument("--interval-ms", type=float, default=20.0, help="server's per-token interval")
    p.add_argument("--send-concurrency", type=int, nargs="+", default=[1, 8, 64, 256])
    p.add_argument("--send-tokens", type=int, default=64, help="tokens per send-side request")
    p.add_argument("--rounds", type=int, default=None, help="send-side requests per worker")
    p.add_argument("--compare-with", metavar="DIR", help="also measure the code in DIR")
    p.add_argument("--compare-label", default="before", help="what DIR's code is called")
    p.add_argument("--skip-token-side", action="store_true", help="only the send side")
    p.add_argument("--soak", type=float, metavar="SECONDS", help="only a long run at high c")
    p.add_argument("--soak-concurrency", type=int, default=256)
    p.add_argument("--soak-tokens", type=int, default=256, help="tokens per soak request")
    p.add_argument(
        "--tries",
        type=int,
        default=1,
        help="capacity ramp: tries per level before it counts as over the lag limit (a shared "
        "machine's load spikes are not the client's cost)",
    )
    p.add_argument("--skip-send-side", action="store_true", help="only the token side")
    p.add_argument(
        "--workers",
        type=int,
        nargs="+",
        default=[1],
        help="client processes for the capacity ramp, e.g. `1 2` (recorded apart, as "
        "client_fidelity_workers)",
    )
    p.add_argument("--send-level", type=int, help=argparse.SUPPRESS)  # a child's one level
    p.add_argument("--base-url", help=argparse.SUPPRESS)
    p.add_argument(
        "--quick", action="store_true", help="a short smoke run, not recorded as a result"
    )
    args = p.parse_args()
    if args.send_level:
        row = _run_loop(
            send_level(args.base_url, MODEL, args.send_level, args.send_tokens, args.rounds)
        )
        print(json.dumps(row))
        return 0
    if args.quick:
        args.concurrency, args.capacity_levels, args.tokens = [1, 16], [32], 30
        args.send_concurrency, args.send_tokens = [1, 8], 16
    return _run_loop(_main(args))


if __name__ == "__main__":
    raise SystemExit(main())
