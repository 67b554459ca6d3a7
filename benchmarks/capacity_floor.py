"""The issue's must-hold capacity command on the built-in provider, as a user runs it, with its
answer, its wall time and the machine's load (issue 29, the search's floor).

    workbench bench --model sim-70b-gqa --model sim-70b-mla --prompt-tokens 32K --capacity \
        --slo ttft_p90:3s,tpot_p90:60ms [--tp T]

Each variant is one `workbench bench` subprocess (the built-in provider in its own process,
its models in their own time: no --time-scale). Recorded per variant: the command, the wall
time, the load average before and after, the plan line (the worst case said up front), and
per model its status, capacity, requests sent and its floor (the lone request's figures); the
sentence as printed.

    .venv/bin/python benchmarks/capacity_floor.py                 # defaults, then --tp 8
    .venv/bin/python benchmarks/capacity_floor.py --tp 8 --name capacity_floor_tp8  # one
"""

from __future__ import annotations

import argparse
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

COMMAND = [
    "bench", "--model", "sim-70b-gqa", "--model", "sim-70b-mla", "--prompt-tokens", "32K",
    "--capacity", "--slo", "ttft_p90:3s,tpot_p90:60ms",
]  # fmt: skip


def run_variant(extra: list[str], work: Path) -> dict[str, Any]:
    out = work / ("tp" + (extra[-1] if extra else "-default"))
    argv = [*COMMAND, *extra, "--no-store", "--output", str(out)]
    before = os.getloadavg()
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "workbench", *argv], capture_output=True, text=True, check=False
    )
    wall = time.perf_counter() - started
    after = os.getloadavg()
    if proc.returncode not in (0, 3):
        raise SystemExit(f"bench failed ({proc.returncode}): {proc.stderr[-2000:]}")
    capacity = json.loads((out / "run.json").read_text())["capacity"]
    plan = next((x for x in proc.stderr.splitlines() if x.startswith("Capacity search")), "")
    models = [
        {
            "model": m["model"],
            "status": m["status"],
            "capacity": m["capacity"],
            "plus_minus": m["plus_minus"],
            "requests": m["requests"],
            "steps": len(m["steps"]),
            "floor": m["floor"],
        }
        for m in capacity["models"]
    ]
    return {
        "command": "workbench " + " ".join(COMMAND + extra),
        "wall_s": round(wall, 1),
        "load_before": [round(x, 2) for x in before],
        "load_after": [round(x, 2) for x in after],
        "plan": plan,
        "worst_case": capacity["worst_case"],
        "models": models,
        "sentence": capacity["sentence"],
    }


def _row(m: dict[str, Any]) -> str:
    floor = m["floor"] or {}
    terms = {t["objective"]: t["observed_ms"] for t in floor.get("objectives", ())}
    ttft, e2e = terms.get("ttft_p90"), floor.get("e2e_s")
    cap = "" if m["capacity"] is None else f"{m['capacity']:.3g} ± {m['plus_minus'] or 0:.2g}"
    alone = "" if ttft is None else f"{ttft:,.0f} ms"
    alone_e2e = "" if e2e is None else f"{e2e:.2f} s"
    return (
        f"| {m['model']} | {m['status']} | {cap} | {m['requests']} | {m['steps']} | "
        f"{alone} | {alone_e2e} |"
    )


def markdown(runs: list[dict[str, Any]]) -> str:
    lines = []
    for r in runs:
        lines += [
            f"## `{r['command']}`",
            "",
            f"Wall time {r['wall_s']} s; load average {r['load_before']} before, "
            f"{r['load_after']} after.",
            "",
            f"> {r['sentence']}.",
            "",
            "| model | status | capacity | requests | steps | alone: TTFT p90 | alone: e2e |",
            "|---|---|---|---|---|---|---|",
        ]
        for m in r["models"]:
            lines.append(_row(m))
        lines += ["", f"Said up front: {r['plan']}", ""]
    return "\n".join(lines)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tp", type=int, action="append", help="only these --tp variants")
    p.add_argument("--defaults", action="store_true", help="only the command as it is")
    p.add_argument("--name", default="capacity_floor", help="results/NAME.md and NAME.json")
    args = p.parse_args()
    variants = [["--tp", str(t)] for t in args.tp or ()]
    if args.defaults or not variants:
        variants.insert(0, [])
    if not args.tp and not args.defaults:
        variants.append(["--tp", "8"])
    with tempfile.TemporaryDirectory() as tmp:
        runs = []
        for extra in variants:
            runs.append(run_variant(extra, Path(tmp)))
            print(json.dumps(runs[-1], indent=1), flush=True)
    data = {"machine": machine_record(), "runs": runs}
    command = " ".join(["python benchmarks/capacity_floor.py", *sys.argv[1:]])
    write_result(args.name, command, markdown(runs), data)


if __name__ == "__main__":
    main()
