"""The send side of client fidelity: our TTFT against the server's own, through the Runner.

The server's TTFT is its arrival stamp to its first emit (`EmitRecord.t_received_ns` and
`chunk_emit_ns[0]`); ours is `t_first_token - t_send`. Their difference is the TTFT error,
split into the send side (our send stamp to the server's arrival) and the token side (first
emit to our first token). Requests run as a run does: `concurrency` workers, each starting its
next request when the last ends; the first `concurrency` requests (the opening burst) are
reported apart from the rest (the steady state).

Each level runs in a child process (`python benchmarks/client_fidelity.py --send-level C ...`)
whose PYTHONPATH picks the code measured, so the code before a change and after it can be
measured in one run, against one server, levels interleaved.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import aiohttp

from workbench.core.foundation.metrics import percentile

PROMPT_TOKENS = 256  # the issue's ~253-token prompt
CHILD_TIMEOUT_S = 600.0


def _p(values: list[float], q: float) -> float | None:
    return percentile(values, q) if values else None


async def _emit_records(base_url: str, ids: list[str]) -> dict[str, dict[str, Any]]:
    root = base_url.rsplit("/v1", 1)[0]
    limit = asyncio.Semaphore(16)
    records: dict[str, dict[str, Any]] = {}

    async def one(http: aiohttp.ClientSession, rid: str) -> None:
        async with limit, http.get(f"{root}/v1/_emit_log/{rid}") as resp:
            if resp.status == 200:
                records[rid] = await resp.json()

    async with aiohttp.ClientSession() as http:
        await asyncio.gather(*(one(http, rid) for rid in ids))
    return records


async def send_level(
    base_url: str, model: str, concurrency: int, tokens: int, rounds: int
) -> dict[str, Any]:
    """One level, in this process with whatever workbench PYTHONPATH gave it: a dict row."""
    from workbench.core.foundation.results import RequestResult, Target, Timeouts
    from workbench.core.planning.run_events import RequestFinished
    from workbench.core.planning.run_plan import RunPlan
    from workbench.core.run.runner import Runner
    from workbench.core.transport.clients import ClientPool, warm_up

    plan = RunPlan(
        targets=(Target("local", base_url, model, timeouts=Timeouts(60, 30)),),
        prompt_lengths=(PROMPT_TOKENS,),
        repeats=concurrency * rounds,
        concurrency_levels=(concurrency,),
        max_tokens=tokens,
        calibrate=False,
    )
    pool = ClientPool()
    rows: list[RequestResult] = []
    warm_up()  # importing the SDK (~1.5 s of CPU) is no part of the cost per token
    cpu0, wall0 = time.process_time(), time.perf_counter()
    try:
        async for event in Runner(pool, keep_results=False).run(plan):
            if isinstance(event, RequestFinished):
                rows.append(event.result)
    finally:
        await pool.aclose()
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    records = await _emit_records(base_url, [r.response_id for r in rows if r.response_id])
    rows.sort(key=lambda r: r.t_send or 0)
    out: dict[str, list[float]] = {
        k: []
        for k in (
            "err_open",
            "err_steady",
            "send_open",
            "send_steady",
            "server_ttft",
            "dispatch_open",
            "dispatch_steady",
            "lag",
        )
    }
    lost = 0
    for i, r in enumerate(rows):
        record = records.get(r.response_id or "")
        if not r.ok or record is None or not record["chunk_emit_ns"]:
            continue
        emits = record["chunk_emit_ns"]
        phase = "open" if i < concurrency else "steady"
        server_ttft = (emits[0] - record["t_received_ns"]) / 1e6
        out["server_ttft"].append(server_ttft)
        out[f"err_{phase}"].append((r.t_first_token - r.t_send) / 1e6 - server_ttft)
        out[f"send_{phase}"].append((record["t_received_ns"] - r.t_send) / 1e6)
        intended = getattr(r, "t_intended", None)  # absent before dispatch_ms existed
        if intended is not None:
            out[f"dispatch_{phase}"].append((r.t_send - intended) / 1e6)
        lost += max(0, len(emits) - len(r.event_times))
        out["lag"] += [(c - s) / 1e6 for c, s in zip(r.event_times, emits, strict=False)]
    tokens_seen = sum(len(r.event_times) for r in rows)
    row: dict[str, Any] = {
        "concurrency": concurrency,
        "requests": len(rows),
        "errors": sum(not r.ok for r in rows),
        "lost_tokens": lost,
        "aggregate_tps": tokens_seen / wall,
        "cpu_us_per_token": cpu / max(1, tokens_seen) * 1e6,
    }
    for key, values in out.items():
        row[f"{key}_p50_ms"] = _p(values, 50)
        row[f"{key}_p99_ms"] = _p(values, 99)
    return row


async def run_child(
    code_root: Path, base_url: str, model: str, concurrency: int, tokens: int, rounds: int
) -> dict[str, Any]:
    """`send_level` in a child process whose `workbench` comes from `code_root`."""
    # that tree's own copy of this benchmark when it has one: it imports that tree's modules
    # by their names then (core's folders moved in session 36)
    own = code_root / "benchmarks" / "client_fidelity.py"
    script = own if own.is_file() else Path(__file__).resolve().parent / "client_fidelity.py"
    env = dict(os.environ, PYTHONPATH=str(code_root))
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        str(script),
        "--send-level",
        str(concurrency),
        "--base-url",
        base_url,
        "--send-tokens",
        str(tokens),
        "--rounds",
        str(rounds),
        cwd=code_root,
        env=env,
        stdout=asyncio.subprocess.PIPE,
    )
    out, _ = await asyncio.wait_for(proc.communicate(), CHILD_TIMEOUT_S)
    if proc.returncode != 0:
        raise RuntimeError(f"the level c={concurrency} under {code_root} failed")
    return json.loads(out.decode().strip().splitlines()[-1])


def _f(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _pair(row: dict[str, Any], key: str) -> str:
    return f"{_f(row[f'{key}_p50_ms'])} / {_f(row[f'{key}_p99_ms'])}"


def send_table(rows: list[dict[str, Any]]) -> str:
    head = (
        "code | conc | requests | TTFT error p50/p99 ms, steady | opening burst | "
        "send → arrival p50/p99 ms, steady | opening burst | dispatch_ms p50/p99, steady | "
        "opening burst | server TTFT p50 ms | token lag p50/p99 ms | tok/s | CPU µs/token | "
        "errors | lost"
    )
    lines = [head, "|".join("---" for _ in head.split("|"))]
    for r in rows:
        lines.append(
            f"{r['code']} | {r['concurrency']} | {r['requests']} | {_pair(r, 'err_steady')} | "
            f"{_pair(r, 'err_open')} | {_pair(r, 'send_steady')} | {_pair(r, 'send_open')} | "
            f"{_pair(r, 'dispatch_steady')} | {_pair(r, 'dispatch_open')} | "
            f"{_f(r['server_ttft_p50_ms'])} | {_pair(r, 'lag')} | {r['aggregate_tps']:,.0f} | "
            f"{r['cpu_us_per_token']:.0f} | {r['errors']} | {r['lost_tokens']}"
        )
    return "\n".join(lines)
