"""The twins' capacity under serve-local's continuous batching (issue 29, "the simulator meets
load"; docs/local-provider.md, "Batching").

1. From the model: for each 70B twin at a 32K prompt, the batch its KV budget holds (B) and
   the rate it sustains (`batching.saturation_rate`) at 256, 1K and 4K output tokens.
2. Measured: a closed loop of B + 4 clients (the queue never empties, so the batch stays full)
   against a real `workbench serve-local`, its throughput read from the server's step log in
   the server's scaled time (prompts prefilled per second over the middle half of the run),
   beside the formula's.

    .venv/bin/python benchmarks/batching_capacity.py            # recorded
    .venv/bin/python benchmarks/batching_capacity.py --quick    # one small case, not recorded
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parent))
from machine import machine_record, write_result

from workbench.core.models.catalog import load_catalog
from workbench.local.batching import batch_limit, saturation_rate
from workbench.local.costmodel import SimSettings, SimTiming
from workbench.local.process import ServerProcess
from workbench.local.tokenizer import count_prompt_tokens, count_tokens

TWINS = ("mha", "mqa", "gqa", "gta", "mla", "gla", "nsa", "moba")
OUTPUTS = (256, 1024, 4096)
PROMPT = 32_768
TIME_SCALE = 0.002
# (twin, prompt tokens, output tokens): small enough for a 2-core machine
CASES = (("mha", 8192, 64), ("mha", 2048, 512), ("gqa", 32_768, 256))


def timing(kind: str, time_scale: float = 1.0) -> SimTiming:
    model = load_catalog().get(f"sim-70b-{kind}")
    assert model is not None
    return SimTiming(model, SimSettings(time_scale=time_scale))


def messages_of(tokens: int) -> list[dict[str, str]]:
    sentence = "Every decoded token reads the whole KV cache of every layer once. "
    return [{"role": "user", "content": sentence * (tokens // count_tokens(sentence))}]


def formula_table() -> tuple[str, list[dict[str, Any]]]:
    rows = []
    lines = [
        f"twin | B at {PROMPT // 1024}K + 256 | "
        + " | ".join(f"req/s at {o} out" for o in OUTPUTS),
        "---|---|" + "---|" * len(OUTPUTS),
    ]
    for kind in TWINS:
        t = timing(kind)
        rates = [saturation_rate(t, PROMPT, o) for o in OUTPUTS]
        b = batch_limit(t, PROMPT + 256)
        rows.append({"twin": kind, "batch": b, "rates": dict(zip(OUTPUTS, rates, strict=True))})
        lines.append(f"{kind} | {b} | " + " | ".join(f"{r:.3f}" for r in rates))
    return "\n".join(lines), rows


async def measured(kind: str, prompt: int, out: int, rounds: int) -> dict[str, Any]:
    model_id = f"sim-70b-{kind}"
    messages = messages_of(prompt)
    p = count_prompt_tokens(messages)
    t = timing(kind, TIME_SCALE)
    b = batch_limit(t, p + out)
    server = ServerProcess(time_scale=TIME_SCALE)
    base_url = await server.start()
    body = {"model": model_id, "messages": messages, "max_tokens": out}
    try:
        connector = aiohttp.TCPConnector(limit=0)
        async with aiohttp.ClientSession(connector=connector) as http:

            async def client() -> None:
                for _ in range(rounds):
                    async with http.post(f"{base_url}/chat/completions", json=body) as r:
                        assert r.status == 200, await r.text()
                        await r.read()

            await asyncio.gather(*(client() for _ in range(b + 4)))
            async with http.get(f"{base_url}/_emit_log/_steps/{model_id}") as r:
                steps = (await r.json())["steps"]
    finally:
        await server.stop()
    first, last = steps[0]["t_start_ns"], steps[-1]["t_end_ns"]
    lo, hi = first + (last - first) // 4, last - (last - first) // 4
    middle = [s for s in steps if lo <= s["t_start_ns"] < hi]
    span_s = (middle[-1]["t_end_ns"] - middle[0]["t_start_ns"]) / 1e9
    # a closed loop of equal requests moves in waves: count both halves of a request's work
    prefilled = sum(s["prefill_tokens"] for s in middle) / p / span_s
    decoded = sum(s["decoding"] for s in middle) / (out - 1) / span_s
    return {
        "twin": kind,
        "prompt": p,
        "output": out,
        "batch": b,
        "held": max(s["batch"] for s in steps),
        "formula_per_scaled_s": saturation_rate(t, p, out),
        "prefilled_per_scaled_s": prefilled,
        "decoded_per_scaled_s": decoded,
    }


def _measured_table(results: list[dict[str, Any]]) -> str:
    lines = [
        "twin | prompt | output | B (formula) | batch held | req/s formula | "
        "req/s by prompts prefilled | req/s by tokens decoded",
        "---|---|---|---|---|---|---|---",
    ]
    for x in results:
        f = x["formula_per_scaled_s"] * TIME_SCALE
        pre, dec = (x[k] * TIME_SCALE for k in ("prefilled_per_scaled_s", "decoded_per_scaled_s"))
        lines.append(
            f"{x['twin']} | {x['prompt']} | {x['output']} | {x['batch']} | {x['held']} | "
            f"{f:.4f} | {pre:.4f} ({(pre - f) / f:+.1%}) | {dec:.4f} ({(dec - f) / f:+.1%})"
        )
    return "\n".join(lines)


async def _main(args: argparse.Namespace) -> int:
    formula, rows = formula_table()
    cases = CASES[:1] if args.quick else CASES
    results = [await measured(k, p, o, args.rounds) for k, p, o in cases]
    table = _measured_table(results)
    text = (
        f"From the model (unscaled requests/s; 8×H200, TP 2 × PP 4, {PROMPT // 1024}K prompts):"
        f"\n\n{formula}\n\nMeasured on serve-local at --time-scale {TIME_SCALE} (closed loop "
        f"of B + 4 clients, {args.rounds} requests each; the server's step log over the middle "
        f"half of the run, in unscaled requests/s; equal requests in a closed loop move in "
        f"waves, so the prompts prefilled and the tokens decoded in a window differ a little):"
        f"\n\n{table}\n"
    )
    print(text)
    command = "python benchmarks/batching_capacity.py " + " ".join(sys.argv[1:])
    data = {"machine": machine_record(), "formula": rows, "measured": results}
    write_result("batching_capacity", command.strip(), text, data, quick=args.quick)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="one small case, not recorded")
    parser.add_argument("--rounds", type=int, default=4, help="requests per client (default 4)")
    return asyncio.run(_main(parser.parse_args()))


if __name__ == "__main__":
    raise SystemExit(main())
