"""Gateway overhead, measured (issue 13, Deliver 9): one simulated model direct from
`workbench serve-local` and through a real LiteLLM proxy in front of it, at concurrency 1, 8
and 32, with `workbench bench --compare-route`.

The built-in provider runs in its own process (as a real upstream would), LiteLLM in its own
venv (`scripts/litellm_proxy.py`), and the bench CLI in a third process, so each has its own
interpreter. The figures come from the run's rows in a scratch history
(core/history/route_compare.py), and go to benchmarks/results/gateway_overhead.{md,json} with the
machine; the chart goes beside them.

    .venv/bin/python benchmarks/gateway_overhead.py --litellm-venv /tmp/litellm-venv
    .venv/bin/python benchmarks/gateway_overhead.py --quick   # a smoke run, nothing recorded
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
from litellm_proxy import running_litellm
from machine import RESULTS, machine_record, write_result

from workbench.core.foundation.results import RequestResult
from workbench.core.history.route_compare import LevelComparison, RouteFigures, compare_routes
from workbench.core.history.run_history import RunStore
from workbench.core.transport.clients import make_client, network_baseline_ms
from workbench.local.process import UNBATCHED, ServerProcess

MODEL = "sim-70b-gqa"
ALIAS = "gw-70b-gqa"  # the gateway's own id for it, as a LiteLLM model group would be
KEY_ENV = "GATEWAY_OVERHEAD_KEY"


def _bench_argv(args: argparse.Namespace, direct: str, gateway: str, csv: Path) -> list[str]:
    argv = [sys.executable, "-m", "workbench", "bench", "--compare-route", direct, gateway]
    argv += ["--model", MODEL, "--gateway-model", ALIAS, "--gateway-key-env", KEY_ENV]
    argv += ["--concurrency", args.concurrency, "--repeats", str(args.repeats)]
    argv += ["--warmup", str(args.warmup), "--prompt-tokens", str(args.prompt_tokens)]
    argv += ["--max-tokens", str(args.max_tokens), "--csv", str(csv)]
    if not args.quick:
        argv += ["--chart", str(RESULTS / "gateway_overhead.png")]
    return argv


async def _measure(
    args: argparse.Namespace, scratch: Path
) -> tuple[list[RequestResult], dict[str, float | None], str]:
    """Start the upstream and the proxy, run the comparison: the run's rows, each route's
    `GET /models` round trip (the old baseline, for comparison) and the bench's table.

    The blocking parts run in a thread, so the loop keeps draining the upstream's output."""
    server = ServerProcess(time_scale=args.time_scale, extra=UNBATCHED)
    direct = await server.start()
    try:
        proc, models_ms = await asyncio.to_thread(_bench_through_litellm, args, direct, scratch)
    finally:
        await server.stop()
    if proc.returncode != 0:
        sys.exit(f"bench exited {proc.returncode}:\n{proc.stderr[-3000:]}")
    with RunStore(scratch / "data" / "history.sqlite3") as store:
        (run,) = store.runs(limit=1)
        return store.results(run.run_id), models_ms, proc.stdout


def _bench_through_litellm(
    args: argparse.Namespace, direct: str, scratch: Path
) -> tuple[subprocess.CompletedProcess[str], dict[str, float | None]]:
    with running_litellm(args.litellm_venv, direct, {ALIAS: MODEL}) as (gateway, key):
        env = {**os.environ, KEY_ENV: key, "WORKBENCH_DATA_DIR": str(scratch / "data")}
        proc = subprocess.run(
            _bench_argv(args, direct, gateway, scratch / "rows.csv"),
            capture_output=True,
            text=True,
            env=env,
            timeout=1800,
            check=False,
        )
        models_ms = {
            "direct": asyncio.run(_models_round_trip(direct, None)),
            "gateway": asyncio.run(_models_round_trip(gateway, key)),
        }
    return proc, models_ms


async def _models_round_trip(base_url: str, key: str | None) -> float | None:
    client = make_client(base_url, key)
    try:
        return await network_baseline_ms(client, samples=5)
    finally:
        await client.close()


def baselines(rows: list[RequestResult], models_ms: dict[str, float | None]) -> str:
    """Each route's baseline as the run measured it (chat path) beside its GET /models."""
    lines = ["\nroute | baseline (run) ms | method | GET /models ms", "---|---|---|---"]
    for route in ("direct", "gateway"):
        row = next(r for r in rows if r.route == route)
        run_ms = _fmt(row.network_baseline_ms, 2)
        lines.append(f"{route} | {run_ms} | {row.baseline_method} | {_fmt(models_ms[route], 2)}")
    return "\n".join(lines) + "\n"


def _fmt(value: float | None, digits: int = 1, sign: bool = False) -> str:
    if value is None:
        return "-"
    return f"{value:+,.{digits}f}" if sign else f"{value:,.{digits}f}"


def _route_cells(f: RouteFigures) -> list[str]:
    return [
        f"{f.n}/{f.errors}",
        _fmt(f.ttft_median_ms),
        _fmt(f.ttft_p90_ms),
        _fmt(f.decode_tps_median),
        _fmt(f.e2e_median_ms, 0),
        _fmt(f.e2e_p90_ms, 0),
    ]


def markdown(levels: list[LevelComparison], args: argparse.Namespace) -> str:
    head = (
        "conc | route | n/err | TTFT med ms | TTFT p90 ms | decode tok/s | e2e med ms | e2e p90 ms"
    )
    lines = [head, "---|---|---|---|---|---|---|---"]
    for c in levels:
        lines.append(" | ".join([str(c.concurrency), "direct", *_route_cells(c.direct)]))
        lines.append(" | ".join([str(c.concurrency), "LiteLLM", *_route_cells(c.gateway)]))
        pct = c.decode_tps_change_pct
        decode = _fmt(c.decode_tps_change, sign=True) + (f" ({pct:+.1f}%)" if pct else "")
        added = [
            _fmt(c.added_ttft_median_ms, sign=True),
            _fmt(c.added_ttft_p90_ms, sign=True),
            decode,
            _fmt(c.added_e2e_median_ms, 0, sign=True),
            _fmt(c.added_e2e_p90_ms, 0, sign=True),
        ]
        lines.append(" | ".join([f"**{c.concurrency}**", "**added**", "", *added]))
    setup = (
        f"\nModel {MODEL} (LiteLLM alias {ALIAS}), prompt {args.prompt_tokens} tokens, "
        f"max_tokens {args.max_tokens}, {args.repeats} requests per level and route (at least "
        f"the concurrency), {args.warmup} warm-up; serve-local time scale {args.time_scale:g}. "
        "Added = LiteLLM minus direct, of the per-route median (p90).\n"
    )
    return "\n".join(lines) + "\n" + setup


def _as_dict(c: LevelComparison) -> dict[str, Any]:
    return {
        "concurrency": c.concurrency,
        "direct": vars(c.direct),
        "gateway": vars(c.gateway),
        "added_ttft_median_ms": c.added_ttft_median_ms,
        "added_ttft_p90_ms": c.added_ttft_p90_ms,
        "decode_tps_change": c.decode_tps_change,
        "decode_tps_change_pct": c.decode_tps_change_pct,
        "added_e2e_median_ms": c.added_e2e_median_ms,
        "added_e2e_p90_ms": c.added_e2e_p90_ms,
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--litellm-venv", default=".venv-litellm", help="a venv with litellm[proxy]")
    p.add_argument("--concurrency", default="1,8,32")
    p.add_argument("--repeats", type=int, default=24)
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--prompt-tokens", type=int, default=1024)
    p.add_argument("--max-tokens", type=int, default=64)
    p.add_argument("--time-scale", type=float, default=1.0)
    p.add_argument("--quick", action="store_true", help="c=1,4, few requests; record nothing")
    args = p.parse_args()
    if args.quick:
        args.concurrency, args.repeats, args.warmup, args.max_tokens = "1,4", 4, 0, 16
    started, load_before = time.monotonic(), os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="gateway-overhead-") as scratch:
        rows, models_ms, table = asyncio.run(_measure(args, Path(scratch)))
    load_after = os.getloadavg()
    levels = compare_routes(rows)
    print(table)
    load = f"Load average (1 min) before/after: {load_before[0]:.1f} / {load_after[0]:.1f}.\n"
    text = markdown(levels, args) + baselines(rows, models_ms) + "\n" + load
    print(text)
    command = "python benchmarks/gateway_overhead.py " + " ".join(sys.argv[1:])
    data = {
        "figures": [_as_dict(c) for c in levels],
        "setup": {k: v for k, v in vars(args).items() if k != "litellm_venv"},
        "litellm": _litellm_version(Path(args.litellm_venv)),
        "baseline_ms": {
            route: {
                "run": next(r.network_baseline_ms for r in rows if r.route == route),
                "method": next(r.baseline_method for r in rows if r.route == route),
                "models_get": models_ms[route],
            }
            for route in ("direct", "gateway")
        },
        "load_average_1min": [load_before[0], load_after[0]],
        "seconds": round(time.monotonic() - started, 1),
        "machine": machine_record(),
    }
    write_result("gateway_overhead", command.strip(), text, data, quick=args.quick)
    return 0


def _litellm_version(venv: Path) -> str | None:
    found = sorted((venv / "lib").glob("python*/site-packages/litellm-*.dist-info"))
    return found[-1].name.removeprefix("litellm-").removesuffix(".dist-info") if found else None


if __name__ == "__main__":
    sys.exit(main())
