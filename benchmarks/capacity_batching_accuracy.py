"""Does `bench --capacity` find what a dense sweep finds on serve-local WITH continuous
batching? (issue 29, goal "capacity found vs truth", on the simulator the goal names)

One `workbench serve-local --time-scale 0.2` (batching on, docs/local-provider.md "Batching")
serves two twins, sim-70b-mha and sim-70b-mla, at 4K prompts and 32 output tokens. Both sides
go through `workbench bench` subprocesses, the path a user takes:

- the search: `bench --capacity --slo ttft_p90:400ms` over 1..32 req/s;
- the dense sweep: one `bench --rate R --max-requests N` run per rate, 5..11 req/s by 0.25,
  N the search's requests per step. Each rate is read two ways: its SLO attainment (the share
  of requests within every objective's limit, the figure a dashboard shows) and the search's
  own rule (core/capacity.wilson on the rows). The dense answer is the rate where the sweep
  first crosses the target going up: the last rate before the first that misses.

Beside them, the batch's saturation rate from the model (`batching.saturation_rate`, no
latency target), scaled. Goal: the search within 10 % of the dense sweep, in at most a third of
its requests.

    .venv/bin/python benchmarks/capacity_batching_accuracy.py            # both arrivals
    .venv/bin/python benchmarks/capacity_batching_accuracy.py --quick    # constant, by 0.5
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from machine import machine_record, write_result

from workbench.core.load.capacity import step_requests, wilson
from workbench.core.load.slo import FIGURES, Objective, parse_slo
from workbench.core.models.catalog import load_catalog
from workbench.local.batching import saturation_rate
from workbench.local.costmodel import SimSettings, SimTiming
from workbench.local.process import ServerProcess

TIME_SCALE = 0.2
MODELS = ("sim-70b-mha", "sim-70b-mla")
PROMPT, OUTPUT = 4096, 32
SLO = "ttft_p90:400ms"
RANGE = "1:32"
COMMON = ["--prompt-tokens", "4K", "--max-tokens", str(OUTPUT), "--slo", SLO, "--no-store", "-q"]


def _bench(url: str, argv: list[str], out: Path) -> dict[str, Any]:
    """One `workbench bench` subprocess against the server; its run.json."""
    proc = subprocess.run(
        [sys.executable, "-m", "workbench", "bench", "--base-url", url, *argv,
         "--output", str(out), "--force"],
        capture_output=True, text=True, timeout=1800, check=False,
    )  # fmt: skip
    if proc.returncode not in (0, 3):
        raise SystemExit(f"bench failed ({proc.returncode}): {proc.stderr[-2000:]}")
    document: dict[str, Any] = json.loads((out / "run.json").read_text())
    return document


def judge_rows(path: Path, objectives: tuple[Objective, ...]) -> dict[str, Any]:
    """One rate's measured rows: attainment per objective, and the search's verdict."""
    with path.open(newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["phase"] == "measured"]
    shares, holds = [], True
    for o in objectives:
        column = FIGURES[o.figure]
        within = sum(
            1 for r in rows if not r["error_class"] and r[column] and float(r[column]) <= o.limit_ms
        )
        shares.append(within / len(rows) if rows else 0.0)
        holds = holds and wilson(within, len(rows))[0] >= o.quantile / 100
    attained = all(s >= o.quantile / 100 for s, o in zip(shares, objectives, strict=True))
    met = sum(1 for r in rows if r["slo_met"] == "true")
    return {"requests": len(rows), "shares": shares, "attained": attained, "holds": holds,
            "slo_met_share": met / len(rows) if rows else 0.0}  # fmt: skip


def crossing(points: list[tuple[float, bool]]) -> float | None:
    """The last rate before the first one (going up) that misses; None if the first misses."""
    last = None
    for rate, ok in sorted(points):
        if not ok:
            return last
        last = rate
    return last


def formula(model: str) -> float:
    found = load_catalog().get(model)
    assert found is not None
    return saturation_rate(SimTiming(found, SimSettings(time_scale=TIME_SCALE)), PROMPT, OUTPUT)


def measure(url: str, model: str, arrivals: str, rates: list[float], work: Path) -> dict[str, Any]:
    objectives = parse_slo(SLO)
    base = ["--model", model, *COMMON, "--arrivals", arrivals]
    started = time.monotonic()
    search = _bench(url, [*base, "--capacity", "--capacity-range", RANGE], work / "search")
    (answer,) = search["capacity"]["models"]
    search_s = time.monotonic() - started
    n = step_requests(objectives)
    seen: list[tuple[float, dict[str, Any]]] = []
    started = time.monotonic()
    for rate in rates:
        out = work / f"dense-{rate:g}"
        _bench(url, [*base, "--rate", f"{rate:g}", "--max-requests", str(n)], out)
        seen.append((rate, judge_rows(out / "results.csv", objectives)))
    dense_s = time.monotonic() - started
    dense_requests = sum(j["requests"] for _r, j in seen)
    by_attainment = crossing([(r, j["attained"]) for r, j in seen])
    by_rule = crossing([(r, j["holds"]) for r, j in seen])
    error = None
    if by_attainment is not None and answer["capacity"] is not None:
        error = answer["capacity"] / by_attainment - 1
    return {
        "model": model,
        "arrivals": arrivals,
        "saturation_req_s": round(formula(model), 2),
        "search": answer["capacity"],
        "search_plus_minus": answer["plus_minus"],
        "search_requests": answer["requests"],
        "search_steps": len(answer["steps"]),
        "search_s": round(search_s, 1),
        "dense_by_attainment": by_attainment,
        "dense_by_rule": by_rule,
        "dense_rates": len(rates),
        "dense_requests": dense_requests,
        "dense_s": round(dense_s, 1),
        "dense": [{"rate": r, **j} for r, j in seen],
        "error": error,
        "share_of_requests": answer["requests"] / dense_requests,
        "goal_met": error is not None
        and abs(error) <= 0.10
        and answer["requests"] * 3 <= dense_requests,
    }


async def serve() -> ServerProcess:
    server = ServerProcess(TIME_SCALE)
    await server.start()
    return server


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="constant only, 5..11 by 0.5")
    args = parser.parse_args()
    step = 0.5 if args.quick else 0.25
    rates = [5 + step * i for i in range(int(6 / step) + 1)]
    kinds = ["constant"] if args.quick else ["constant", "poisson"]
    loop = asyncio.new_event_loop()
    server = loop.run_until_complete(serve())
    assert server.base_url is not None
    try:
        with tempfile.TemporaryDirectory() as tmp:
            found = [
                measure(server.base_url, model, kind, rates, Path(tmp) / f"{model}-{kind}")
                for kind in kinds
                for model in MODELS
            ]
    finally:
        loop.run_until_complete(server.stop())
        loop.close()
    lines = [
        "model | arrivals | saturation req/s (model) | search req/s | search requests (steps) "
        "| dense: attainment crosses 90 % at | dense: search's rule | dense requests (rates) "
        "| error | requests share | goal",
        "---|---|---|---|---|---|---|---|---|---|---",
    ]
    for f in found:
        error = "–" if f["error"] is None else f"{f['error']:+.1%}"
        lines.append(
            f"{f['model']} | {f['arrivals']} | {f['saturation_req_s']:g} | {f['search']:.2f} ± "
            f"{f['search_plus_minus'] or 0:.2f} | {f['search_requests']} ({f['search_steps']}) "
            f"| {f['dense_by_attainment']} | {f['dense_by_rule']} | {f['dense_requests']} "
            f"({f['dense_rates']}) | {error} | {f['share_of_requests']:.0%} | "
            f"{'met' if f['goal_met'] else 'not met'}"
        )
    load = " / ".join(f"{v:.1f}" for v in os.getloadavg())
    notes = (
        f"\n\nServer: `workbench serve-local --time-scale {TIME_SCALE:g}` with continuous "
        f"batching; {PROMPT // 1024}K prompts, {OUTPUT} output tokens; SLO {SLO}; search "
        f"range {RANGE.replace(':', '..')} req/s; dense sweep {rates[0]:g}..{rates[-1]:g} req/s "
        f"by {step:g}, {step_requests(parse_slo(SLO))} requests a rate. 'Saturation' is the "
        "batch's rate with no latency target (docs/local-provider.md, 'Capacity'), scaled. Goal: "
        "the search within 10 % of the dense sweep's crossing in at most a third of its "
        f"requests. Load average at the end: {load} on {os.cpu_count()} cores.\n"
    )
    table = "\n".join(lines)
    print(table + notes)
    command = "python benchmarks/capacity_batching_accuracy.py" + (" --quick" if args.quick else "")
    data = {"machine": machine_record(), "results": found, "load_average": load}
    write_result("capacity_batching_accuracy", command, table + notes, data, quick=args.quick)
    return 0


if __name__ == "__main__":
    sys.exit(main())
