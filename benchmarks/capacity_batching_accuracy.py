"""Does `bench --capacity` find what a dense sweep finds on serve-local WITH continuous
batching? (issue 29, goal "capacity found vs truth", on the simulator the goal names)

One `workbench serve-local --time-scale 0.2` (batching on, docs/local-provider.md "Batching")
serves two twins, sim-70b-mha and sim-70b-mla, at 4K prompts and 32 output tokens. Both sides
go through `workbench bench` subprocesses, the path a user takes:

- the search: `bench --capacity --slo ttft_p90:400ms` over 1..32 req/s;
- the dense sweep: one `bench --rate R --max-requests N` run per rate, 5..11 req/s by 0.25,
  N the search's requests per step (run first, so a search can be compared with it).

The truth is a fit over all the sweep's points, not one noisy rate: a 50-request rate's share
within a p90 limit has a spread of about ±4 points, so under Poisson arrivals "the first rate
below 90 %" lands anywhere in a flat band. For each objective, its share within the limit is
fitted as a logistic in the rate, P = 1 / (1 + exp(-(a + b·rate))), by maximum likelihood on
the counts (within of N at each rate), over the rates from the lowest up to the first whose
isotonic attainment (pool-adjacent-violators, non-increasing in rate) is below one half: the
upper half of the fall, where a percentile of 90-99 % sits; past it the attainment flattens at
a floor (the requests that arrive in a lull) that one logistic cannot follow. The truth is the
rate where the fit crosses the objective's percentile, the lowest over the objectives. Beside
it: the isotonic fit's own crossing (linear between its levels) as a check, the old reading
(the last rate before the first whose share is below the percentile) and the sweep judged by
the search's rule (core/load/capacity.py on each rate's rows), all per objective's lowest.

Beside them, the batch's saturation rate from the model (`batching.saturation_rate`, no
latency target), scaled. Goal: the search within 10 % of the dense sweep, in at most a third of
its requests.

    .venv/bin/python benchmarks/capacity_batching_accuracy.py            # both arrivals
    .venv/bin/python benchmarks/capacity_batching_accuracy.py --quick    # constant, by 0.5
    .venv/bin/python benchmarks/capacity_batching_accuracy.py --case sim-70b-mla:poisson

Only a full run (every case, not --quick) on a machine whose load average is below 3 at the
end is recorded in benchmarks/results; `--json PATH` keeps any run's figures and points.
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from machine import machine_record, write_result

from workbench.core.load.capacity import Step, Term, step_requests, wilson
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
MAX_LOAD = 3.0  # a busier machine adds client lateness to every TTFT: not recorded
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
    """One rate's measured rows: each objective's count within its limit, and the search's
    verdict on them."""
    with path.open(newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["phase"] == "measured"]
    within = []
    for o in objectives:
        column = FIGURES[o.figure]
        within.append(
            sum(
                1
                for r in rows
                if not r["error_class"] and r[column] and float(r[column]) <= o.limit_ms
            )
        )
    step = judge_counts(len(rows), within, objectives)
    return {"requests": len(rows), "within": within,
            "shares": [w / len(rows) if rows else 0.0 for w in within],
            "holds": step.holds}  # fmt: skip


def judge_counts(n: int, within: list[int], objectives: tuple[Objective, ...]) -> Step:
    """The search's own verdict on counts (core/load/capacity.py's Term)."""
    terms = tuple(
        Term(o.name, o.limit_ms, k, n, None, wilson(k, n)[0], o.quantile)
        for o, k in zip(objectives, within, strict=True)
    )
    return Step(0.0, n, n, terms, None, None)


Point = tuple[float, int, int]  # rate, requests within the limit, requests


def isotonic(points: list[Point]) -> list[float]:
    """The non-increasing fit of the shares (pool adjacent violators, weighted by requests)."""
    blocks: list[list[float]] = []  # within, requests, rates pooled
    for _rate, k, n in sorted(points):
        blocks.append([k, n, 1])
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] < blocks[-1][0] / blocks[-1][1]:
            k2, n2, c2 = blocks.pop()
            blocks[-1] = [blocks[-1][0] + k2, blocks[-1][1] + n2, blocks[-1][2] + c2]
    return [b[0] / b[1] for b in blocks for _ in range(int(b[2]))]


def isotonic_crossing(points: list[Point], share: float) -> float | None:
    ordered, levels = sorted(points), isotonic(points)
    for i in range(1, len(ordered)):
        if levels[i] < share <= levels[i - 1]:
            x0, x1 = ordered[i - 1][0], ordered[i][0]
            return x0 + (x1 - x0) * (levels[i - 1] - share) / (levels[i - 1] - levels[i])
    return None


def logistic_crossing(points: list[Point], share: float) -> float | None:
    """The rate where a maximum-likelihood logistic in the rate crosses `share`, fitted over
    the upper half of the fall (the docstring); None when the points do not fall."""
    ordered, levels = sorted(points), isotonic(points)
    cut = next((i for i, level in enumerate(levels) if level < 0.5), len(ordered) - 1)
    used = ordered[: cut + 1]
    mean = sum(p[0] for p in used) / len(used)
    a = b = 0.0
    for _ in range(200):  # Newton's method on the log-likelihood of (a, b)
        ga = gb = haa = hab = hbb = 0.0
        for rate, k, n in used:
            x = rate - mean
            p = 1 / (1 + math.exp(-(a + b * x)))
            ga, gb = ga + k - n * p, gb + (k - n * p) * x
            w = n * p * (1 - p)
            haa, hab, hbb = haa + w, hab + w * x, hbb + w * x * x
        det = haa * hbb - hab * hab
        if det <= 0:
            return None
        da, db = (hbb * ga - hab * gb) / det, (haa * gb - hab * ga) / det
        a, b = a + da, b + db
        if abs(da) + abs(db) < 1e-10 or abs(b) > 1e6:
            break
    if not b < 0:
        return None
    return mean + (math.log(share / (1 - share)) - a) / b


def crossing(points: list[tuple[float, bool]]) -> float | None:
    """The last rate before the first one (going up) that misses; None if the first misses."""
    last = None
    for rate, ok in sorted(points):
        if not ok:
            return last
        last = rate
    return last


def lowest(values: list[float | None]) -> float | None:
    found = [v for v in values if v is not None]
    return min(found) if len(found) == len(values) and found else None


def formula(model: str) -> float:
    found = load_catalog().get(model)
    assert found is not None
    return saturation_rate(SimTiming(found, SimSettings(time_scale=TIME_SCALE)), PROMPT, OUTPUT)


def measure(
    url: str,
    model: str,
    arrivals: str,
    rates: list[float],
    work: Path,
    earlier: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """One case: the dense sweep (or `earlier`'s), then the search."""
    objectives = parse_slo(SLO)
    base = ["--model", model, *COMMON, "--arrivals", arrivals]
    n = step_requests(objectives)
    seen: list[tuple[float, dict[str, Any]]] = []
    started = time.monotonic()
    if earlier is not None:
        seen = [(p["rate"], _counted(p)) for p in earlier["dense"]]
        rates = [r for r, _j in seen]
    for rate in rates if earlier is None else ():
        out = work / f"dense-{rate:g}"
        _bench(url, [*base, "--rate", f"{rate:g}", "--max-requests", str(n)], out)
        seen.append((rate, judge_rows(out / "results.csv", objectives)))
    for _rate, judged in seen:  # the search's rule as it is now, on each rate's counts
        judged["holds"] = judge_counts(judged["requests"], judged["within"], objectives).holds
    dense_s = earlier["dense_s"] if earlier is not None else time.monotonic() - started
    started = time.monotonic()
    search = _bench(url, [*base, "--capacity", "--capacity-range", RANGE], work / "search")
    (answer,) = search["capacity"]["models"]
    search_s = time.monotonic() - started
    dense_requests = sum(j["requests"] for _r, j in seen)
    per_objective = [
        [(r, j["within"][i], j["requests"]) for r, j in seen] for i in range(len(objectives))
    ]
    truth = lowest(
        [
            logistic_crossing(p, o.quantile / 100)
            for p, o in zip(per_objective, objectives, strict=True)
        ]
    )
    by_isotonic = lowest(
        [
            isotonic_crossing(p, o.quantile / 100)
            for p, o in zip(per_objective, objectives, strict=True)
        ]
    )
    first_below = crossing(
        [
            (r, all(s >= o.quantile / 100 for s, o in zip(j["shares"], objectives, strict=True)))
            for r, j in seen
        ]
    )
    by_rule = crossing([(r, j["holds"]) for r, j in seen])
    error = None
    if truth is not None and answer["capacity"] is not None:
        error = answer["capacity"] / truth - 1
    return {
        "model": model,
        "arrivals": arrivals,
        "saturation_req_s": round(formula(model), 2),
        "search": answer["capacity"],
        "search_plus_minus": answer["plus_minus"],
        "search_requests": answer["requests"],
        "search_steps": len(answer["steps"]),
        "search_s": round(search_s, 1),
        "search_steps_seen": [(s["load"], s["requests"], s["holds"]) for s in answer["steps"]],
        "dense_fit": None if truth is None else round(truth, 3),
        "dense_isotonic": None if by_isotonic is None else round(by_isotonic, 3),
        "dense_first_below": first_below,
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
    parser.add_argument(
        "--case",
        action="append",
        type=_case,
        metavar="MODEL:ARRIVALS",
        help=f"run only this case (repeatable), e.g. sim-70b-mla:poisson; models {MODELS}",
    )
    parser.add_argument("--json", type=Path, metavar="PATH", help="write the figures here too")
    parser.add_argument(
        "--dense-from",
        type=Path,
        metavar="PATH",
        help="take each case's dense sweep from an earlier run's --json (the server's, not the "
        "search's): only the search runs, e.g. to compare a changed search rule",
    )
    args = parser.parse_args()
    step = 0.5 if args.quick else 0.25
    rates = [5 + step * i for i in range(int(6 / step) + 1)]
    kinds = ["constant"] if args.quick else ["constant", "poisson"]
    cases = args.case or [(model, kind) for kind in kinds for model in MODELS]
    earlier = None
    if args.dense_from is not None:
        before = json.loads(args.dense_from.read_text())["results"]
        earlier = {(r["model"], r["arrivals"]): r for r in before}
        if missing := [c for c in cases if c not in earlier]:
            parser.error(f"--dense-from {args.dense_from} has no sweep of {missing}")
    loop = asyncio.new_event_loop()
    server = loop.run_until_complete(serve())
    assert server.base_url is not None
    try:
        with tempfile.TemporaryDirectory() as tmp:
            found = [
                measure(
                    server.base_url,
                    model,
                    kind,
                    rates,
                    Path(tmp) / f"{model}-{kind}",
                    earlier.get((model, kind)) if earlier is not None else None,
                )
                for model, kind in cases
            ]
    finally:
        loop.run_until_complete(server.stop())
        loop.close()
    lines = [
        "model | arrivals | saturation req/s (model) | search req/s | search requests (steps) "
        "| dense: fit crosses 90 % at (truth) | dense: isotonic | dense: first below 90 % "
        "| dense: search's rule | dense requests (rates) | error | requests share | goal",
        "---|---|---|---|---|---|---|---|---|---|---|---|---",
    ]
    for f in found:
        error = "–" if f["error"] is None else f"{f['error']:+.1%}"
        lines.append(
            f"{f['model']} | {f['arrivals']} | {f['saturation_req_s']:g} | {f['search']:.2f} ± "
            f"{f['search_plus_minus'] or 0:.2f} | {f['search_requests']} ({f['search_steps']}) "
            f"| {_rate(f['dense_fit'])} | {_rate(f['dense_isotonic'])} "
            f"| {f['dense_first_below']} | {f['dense_by_rule']} | {f['dense_requests']} "
            f"({f['dense_rates']}) | {error} | {f['share_of_requests']:.0%} | "
            f"{'met' if f['goal_met'] else 'not met'}"
        )
    load = " / ".join(f"{v:.1f}" for v in os.getloadavg())
    notes = (
        f"\n\nServer: `workbench serve-local --time-scale {TIME_SCALE:g}` with continuous "
        f"batching; {PROMPT // 1024}K prompts, {OUTPUT} output tokens; SLO {SLO}; search "
        f"range {RANGE.replace(':', '..')} req/s; dense sweep {rates[0]:g}..{rates[-1]:g} req/s "
        f"by {step:g}, {step_requests(parse_slo(SLO))} requests a rate. 'Saturation' is the "
        "batch's rate with no latency target (docs/local-provider.md, 'Capacity'), scaled. "
        "Truth: a logistic fit of each objective's share within its limit over the sweep's "
        "points, crossing at its percentile (the script's docstring). Goal: the search within "
        "10 % of the truth in at most a third of the sweep's requests. Load average at the "
        f"end: {load} on {os.cpu_count()} cores.\n"
    )
    table = "\n".join(lines)
    print(table + notes)
    data = {"machine": machine_record(), "results": found, "load_average": load}
    if args.json is not None:
        args.json.write_text(json.dumps(data, indent=1, default=str) + "\n")
    busy = os.getloadavg()[0] >= MAX_LOAD
    if args.case or args.dense_from or busy:
        why = (
            f"load average {load} (>= {MAX_LOAD:g})"
            if busy
            else "a part of the cases, or an earlier sweep"
        )
        print(f"not recorded: {why}", file=sys.stderr)
        return 0
    command = "python benchmarks/capacity_batching_accuracy.py" + (" --quick" if args.quick else "")
    write_result("capacity_batching_accuracy", command, table + notes, data, quick=args.quick)
    return 0


def _counted(point: dict[str, Any]) -> dict[str, Any]:
    """A sweep point from --json; one recorded before the counts were kept has its shares."""
    n = point["requests"]
    within = point.get("within") or [round(share * n) for share in point["shares"]]
    return {**{k: v for k, v in point.items() if k != "rate"}, "within": within}


def _rate(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"


def _case(text: str) -> tuple[str, str]:
    model, _, arrivals = text.partition(":")
    if model not in MODELS or arrivals not in ("constant", "poisson"):
        raise argparse.ArgumentTypeError(
            f"'{text}': write MODEL:ARRIVALS, MODEL one of {', '.join(MODELS)} and ARRIVALS "
            "constant or poisson"
        )
    return model, arrivals


if __name__ == "__main__":
    sys.exit(main())
