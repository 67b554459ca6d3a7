"""Does `bench --capacity` find what a dense sweep finds, for fewer requests? (issue 29, goal
"capacity found vs truth")

The server is tests/knee_server.py: `--slots` requests served at once for `--service-ms` each,
so its capacity is slots / service time (20 req/s here) and known exactly. Both sides
go through `workbench bench` subprocesses, the path a user takes:

- the search: `bench --capacity --slo ttft_p90:600ms` over 2..64 req/s;
- the dense sweep: one `bench --rate R --max-requests N` run per rate from 10 to 30 req/s in
  0.5 req/s steps, each judged by the search's own rule (core/capacity.wilson on the rows'
  ttft_from_scheduled_ms); its answer is the highest rate that held.

The goal: the search's answer within 10 % of the dense sweep's, in at most a third of its
requests. Run for constant and Poisson arrivals.

    .venv/bin/python benchmarks/capacity_accuracy.py            # both arrivals, recorded
    .venv/bin/python benchmarks/capacity_accuracy.py --quick    # constant, 10..30 by 2.5
"""

from __future__ import annotations

import argparse
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
from workbench.core.load.slo import parse_slo

ROOT = Path(__file__).resolve().parents[1]
SERVER = ROOT / "tests" / "knee_server.py"
SLO = "ttft_p90:600ms"
LIMIT_MS = 600.0
SLOTS, SERVICE_MS = 8, 400.0
WORKBENCH = [sys.executable, "-m", "workbench", "bench", "--model", "knee"]
COMMON = ["--prompt-tokens", "1K", "--max-tokens", "4", "--slo", SLO, "--no-store", "-q"]


def _bench(url: str, argv: list[str], out: Path) -> dict[str, Any]:
    proc = subprocess.run(
        [*WORKBENCH, "--base-url", url, *COMMON, *argv, "--output", str(out), "--force"],
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    if proc.returncode not in (0, 3):
        raise SystemExit(f"bench failed ({proc.returncode}): {proc.stderr[-2000:]}")
    document: dict[str, Any] = json.loads((out / "run.json").read_text())
    return document


def _step_holds(out: Path) -> tuple[bool, int]:
    """The rows of one rate judged as the search judges a step: Wilson bound >= 0.9."""
    with (out / "results.csv").open(newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["phase"] == "measured"]
    within = sum(
        1
        for r in rows
        if not r["error_class"]
        and r["ttft_from_scheduled_ms"]
        and float(r["ttft_from_scheduled_ms"]) <= LIMIT_MS
    )
    return wilson(within, len(rows))[0] >= 0.9, len(rows)


def measure(url: str, arrivals: str, rates: list[float], work: Path) -> dict[str, Any]:
    started = time.monotonic()
    search = _bench(
        url, ["--capacity", "--arrivals", arrivals, "--capacity-range", "2:64"], work / "search"
    )["capacity"]
    search_s = time.monotonic() - started
    (answer,) = search["models"]
    n = step_requests(parse_slo(SLO))
    held: list[float] = []
    dense_requests = 0
    started = time.monotonic()
    for rate in rates:
        out = work / f"dense-{rate:g}"
        _bench(url, ["--rate", f"{rate:g}", "--max-requests", str(n), "--arrivals", arrivals], out)
        holds, used = _step_holds(out)
        dense_requests += used
        if holds:
            held.append(rate)
    dense_s = time.monotonic() - started
    dense = max(held, default=None)
    error = None if dense is None or answer["capacity"] is None else answer["capacity"] / dense - 1
    return {
        "arrivals": arrivals,
        "truth_req_s": SLOTS / (SERVICE_MS / 1000),
        "search": answer["capacity"],
        "search_plus_minus": answer["plus_minus"],
        "search_requests": answer["requests"],
        "search_steps": len(answer["steps"]),
        "search_s": round(search_s, 1),
        "worst_case_requests": search["worst_case"]["requests"],
        "dense": dense,
        "dense_rates": len(rates),
        "dense_requests": dense_requests,
        "dense_s": round(dense_s, 1),
        "error": error,
        "share_of_requests": answer["requests"] / dense_requests,
        "goal_met": error is not None
        and abs(error) <= 0.10
        and answer["requests"] * 3 <= dense_requests,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="constant only, 10..30 by 2.5")
    args = parser.parse_args()
    rates = [10 + r / 2 for r in range(0, 41, 5 if args.quick else 1)]
    kinds = ["constant"] if args.quick else ["constant", "poisson"]
    server = subprocess.Popen(
        [sys.executable, str(SERVER), "--slots", str(SLOTS), "--service-ms", str(SERVICE_MS)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert server.stdout is not None and server.stdin is not None
    url = f"http://127.0.0.1:{int(server.stdout.readline())}/v1"
    try:
        with tempfile.TemporaryDirectory() as tmp:
            found = [measure(url, kind, rates, Path(tmp) / kind) for kind in kinds]
    finally:
        server.stdin.close()
        server.wait(timeout=10)
    lines = [
        "arrivals | truth req/s | search req/s | search requests (steps) | dense sweep req/s | "
        "dense requests (rates) | error | requests share | goal",
        "---|---|---|---|---|---|---|---|---",
    ]
    for f in found:
        error = "–" if f["error"] is None else f"{f['error']:+.1%}"
        lines.append(
            f"{f['arrivals']} | {f['truth_req_s']:g} | {f['search']:.1f} ± "
            f"{f['search_plus_minus'] or 0:.1f} | {f['search_requests']} ({f['search_steps']}) | "
            f"{f['dense']} | {f['dense_requests']} ({f['dense_rates']}) | {error} | "
            f"{f['share_of_requests']:.0%} | {'met' if f['goal_met'] else 'not met'}"
        )
    load = " / ".join(f"{v:.1f}" for v in os.getloadavg())
    notes = (
        f"\n\nServer: tests/knee_server.py, {SLOTS} slots of {SERVICE_MS:g} ms. SLO {SLO}; "
        f"dense sweep {rates[0]:g}..{rates[-1]:g} req/s by {rates[1] - rates[0]:g}, each rate "
        "judged by the search's own rule. Goal: within 10 % of the dense sweep in at most a "
        f"third of its requests. Load average at the end: {load} on {os.cpu_count()} cores.\n"
    )
    table = "\n".join(lines)
    print(table + notes)
    command = "python benchmarks/capacity_accuracy.py" + (" --quick" if args.quick else "")
    data = {"machine": machine_record(), "results": found, "load_average": load}
    write_result("capacity_accuracy", command, table + notes, data, quick=args.quick)
    return 0


if __name__ == "__main__":
    sys.exit(main())
