"""Does serve-local pace its three protocols alike? (issue 17, deliver 4)

The same model, prompt and length through `/v1/chat/completions`, `/v1/responses` and
`/v1/messages`, each at concurrency C (all three protocols at once, interleaved), against
`workbench serve-local` in its own process at time scale 1. Per protocol:

- server TTFT (the emit log's arrival stamp to its first emit) and mean emit interval: they come
  from the one cost-model schedule, so they should agree across protocols;
- client lag: the moment a raw aiohttp reader here sees each text event minus the server's emit
  time of it (perf_counter_ns is CLOCK_MONOTONIC on Linux: one clock for both processes);
- bytes per text event: what each protocol's wire costs.

    .venv/bin/python benchmarks/protocol_pacing.py            # about 30 s
    .venv/bin/python benchmarks/protocol_pacing.py --quick    # a smoke run, nothing recorded
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parent))
from machine import machine_record, write_result

from workbench.core.foundation.metrics import percentile
from workbench.local.process import UNBATCHED, ServerProcess

MODEL = "sim-70b-gqa"
PROMPT = "Explain, in detail, why long prompts slow decoding down. " * 40
PROTOCOLS = ("chat", "responses", "anthropic")
TEXT_EVENT = {
    "chat": "chat.completion.chunk",
    "responses": "response.output_text.delta",
    "anthropic": "content_block_delta",
}


def request(protocol: str, max_tokens: int) -> tuple[str, dict[str, Any], dict[str, str]]:
    messages = [{"role": "user", "content": PROMPT}]
    if protocol == "anthropic":
        body = {"model": MODEL, "max_tokens": max_tokens, "messages": messages}
        return "/messages", body, {"anthropic-version": "2023-06-01"}
    if protocol == "responses":
        return "/responses", {"model": MODEL, "max_output_tokens": max_tokens, "input": PROMPT}, {}
    return "/chat/completions", {"model": MODEL, "max_tokens": max_tokens, "messages": messages}, {}


async def one(
    http: aiohttp.ClientSession, base_url: str, protocol: str, max_tokens: int
) -> dict[str, Any]:
    """One streamed request: its id, and when each text event arrived here (ns) and its size."""
    path, body, headers = request(protocol, max_tokens)
    arrivals: list[int] = []
    sizes: list[int] = []
    answer_id = ""
    async with http.post(base_url + path, json={**body, "stream": True}, headers=headers) as resp:
        resp.raise_for_status()
        async for line in resp.content:
            if not line.startswith(b"data: ") or line.startswith(b"data: [DONE]"):
                continue
            now = time.perf_counter_ns()
            data = json.loads(line[6:])
            kind = data.get("type", data.get("object"))
            if not answer_id:
                answer_id = data.get("id") or (data.get("response") or data["message"])["id"]
            text = (
                data["choices"][0]["delta"].get("content")
                if kind == TEXT_EVENT["chat"] and data["choices"]
                else None
            )
            if kind == TEXT_EVENT[protocol] and (protocol != "chat" or text):
                arrivals.append(now)
                sizes.append(len(line))
    return {"protocol": protocol, "id": answer_id, "arrivals": arrivals, "sizes": sizes}


async def level(base_url: str, concurrency: int, rounds: int, max_tokens: int) -> dict[str, Any]:
    rows: list[dict[str, Any]] = []
    async with aiohttp.ClientSession() as http:
        for _ in range(rounds):
            jobs = [PROTOCOLS[i % 3] for i in range(3 * concurrency)]
            rows += await asyncio.gather(*(one(http, base_url, p, max_tokens) for p in jobs))
        for row in rows:
            async with http.get(f"{base_url}/_emit_log/{row['id']}") as resp:
                row["record"] = await resp.json()
    return {p: summarize([r for r in rows if r["protocol"] == p]) for p in PROTOCOLS}


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    ttft, interval, lag, sizes = [], [], [], []
    for row in rows:
        emits = row["record"]["chunk_emit_ns"]
        assert len(emits) == len(row["arrivals"]), "every emitted token arrived"
        ttft.append((emits[0] - row["record"]["t_received_ns"]) / 1e6)
        interval.append((emits[-1] - emits[0]) / (len(emits) - 1) / 1e6)
        lag += [(a - e) / 1e6 for a, e in zip(row["arrivals"], emits, strict=True)]
        sizes += row["sizes"]
    return {
        "n": len(rows),
        "server_ttft_ms_p50": percentile(ttft, 50),
        "emit_interval_ms_mean": sum(interval) / len(interval),
        "client_lag_ms_p50": percentile(lag, 50),
        "client_lag_ms_p99": percentile(lag, 99),
        "bytes_per_text_event": sum(sizes) / len(sizes),
    }


def markdown(results: dict[str, Any], args: argparse.Namespace) -> str:
    lines = [
        "conc | protocol | n | server TTFT p50 ms | emit interval ms | client lag p50 ms "
        "| client lag p99 ms | bytes/text event",
        "---|---|---|---|---|---|---|---",
    ]
    for conc, per in results.items():
        for protocol, s in per.items():
            lines.append(
                f"{conc} | {protocol} | {s['n']} | {s['server_ttft_ms_p50']:.2f} | "
                f"{s['emit_interval_ms_mean']:.2f} | {s['client_lag_ms_p50']:.3f} | "
                f"{s['client_lag_ms_p99']:.3f} | {s['bytes_per_text_event']:.0f}"
            )
    lines.append(
        f"\nModel {MODEL}, prompt {len(PROMPT)} characters, max tokens {args.max_tokens}, "
        f"{args.rounds} rounds of C requests per protocol, the three protocols at once; "
        "serve-local in its own process at time scale 1; the client is raw aiohttp here."
    )
    return "\n".join(lines) + "\n"


async def main(args: argparse.Namespace) -> dict[str, Any]:
    server = ServerProcess(time_scale=1.0, extra=UNBATCHED)
    base_url = await server.start()
    try:
        await level(base_url, 1, 1, 4)  # warm-up: imports, first connections
        return {c: await level(base_url, c, args.rounds, args.max_tokens) for c in args.conc}
    finally:
        await server.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--conc", type=int, nargs="+", default=[1, 8])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--max-tokens", type=int, default=64)
    args = parser.parse_args()
    if args.quick:
        args.conc, args.rounds, args.max_tokens = [2], 1, 16
    load_before = os.getloadavg()[0]
    results = asyncio.run(main(args))
    text = markdown(results, args)
    text += f"\nLoad average (1 min) before/after: {load_before:.1f} / {os.getloadavg()[0]:.1f}.\n"
    print(text)
    command = "python benchmarks/protocol_pacing.py" + (" --quick" if args.quick else "")
    data = {"machine": machine_record(), "results": results}
    write_result("protocol_pacing", command, text, data, quick=args.quick)
