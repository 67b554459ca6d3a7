"""Does an open-loop run send when its schedule says? (issue 29, goal "schedule fidelity")

`serve-local` runs in its own process and stamps each request's arrival when its headers are
read off the connection (`t_headers_ns` in its emit log, read back over
`GET /v1/_emit_log/{id}`; local/headers_read.py). This process runs the unchanged Runner
on a Poisson schedule (`bench --rate R --duration S`, 8 output tokens) and compares, per
request:

- arrival lateness: the server's arrival stamp minus the scheduled moment (`t_intended`);
- dispatch_ms: the client's own lateness (bytes written minus scheduled);
- send → arrival: the rest (loopback, the server's accept and parse);
- at handler start: lateness by the server's other stamp, when the request's handler began
  (`t_received_ns`, where arrivals were stamped before headers_read.py): a loop pass or more
  later on a server busy writing other streams.

On Linux `perf_counter_ns` is CLOCK_MONOTONIC, one clock for both processes. The client's CPU
seconds per request give the rate one client core sustains (1 / CPU per request). The goal:
arrival lateness p50 <= 0.5 ms and p99 <= 2 ms at 50, 200 and 500 req/s. Above the rate one
core sustains, `--workers N` splits the schedule over N worker processes as `bench --workers`
does (the coordinator and the workers' CPU both count in the CPU per request).

The table also counts the collector's pauses while the schedule ran (gc.callbacks: how many,
and the longest, from the first scheduled moment to the last; with workers, not theirs: "-"),
and the load average before each rate: a busy machine delays the client and the server alike.
A run holds the interpreter steady while its schedule runs (core/system/steady_interpreter.py);
`--ab N` measures what that changes: per rate, N pairs of runs, each in a fresh process as a
`bench` run is, one with the interpreter left as it is (`--unsteady`) and one as `bench` runs
it, alternating so that both see the same load.

    .venv/bin/python benchmarks/arrival_fidelity.py                 # 3 rates x 5 s, recorded
    .venv/bin/python benchmarks/arrival_fidelity.py --quick         # 1 s each, not recorded
    .venv/bin/python benchmarks/arrival_fidelity.py --rates 500 --workers 2 --quick
    .venv/bin/python benchmarks/arrival_fidelity.py --workers 1 2 --ab 3  # each rate both ways
    .venv/bin/python benchmarks/arrival_fidelity.py --ab 3          # and the A/B, recorded
    .venv/bin/python benchmarks/arrival_fidelity.py --pin           # and client, server apart

`--pin` runs each level again with the client on one core and the server on the others
("apart"), as a client and a server on machines of their own would be: on a 2-core machine the
server's work on one request and the client's next write otherwise take turns on a core.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parent))
from machine import machine_record, write_result

from workbench.core.foundation.metrics import percentile
from workbench.core.foundation.results import RequestResult
from workbench.core.load import open_loop
from workbench.core.load.arrivals import ArrivalSpec
from workbench.core.load.prompts import PromptBuilder
from workbench.core.models.catalog import load_catalog
from workbench.core.planning.run_events import RequestFinished
from workbench.core.planning.run_plan import RunPlan
from workbench.core.run.plan import Choices, build_plan, local_target
from workbench.core.run.runner import Runner
from workbench.core.scale.coordinator import ShardedRunner
from workbench.core.scale.worker_process import ProcessWorkers
from workbench.core.system import loop as event_loop
from workbench.core.transport.clients import ClientPool
from workbench.local.process import ServerProcess

MODEL = "sim-70b-gqa"
TIME_SCALE = 0.01  # 8 tokens of a 1K prompt in about 3 ms: the server is never the queue
GOAL_P50_MS, GOAL_P99_MS = 0.5, 2.0


class CollectorPauses:
    """The cyclic collector's pauses in this process while inside `watching()`: (start ns, ms)."""

    def __init__(self) -> None:
        self.pauses: list[tuple[int, float]] = []
        self._began = 0

    def _note(self, phase: str, _info: dict[str, int]) -> None:
        if phase == "start":
            self._began = time.perf_counter_ns()
        else:
            self.pauses.append((self._began, (time.perf_counter_ns() - self._began) / 1e6))

    def during(self, rows: list[RequestResult]) -> list[float]:
        """The pauses (ms) from the first scheduled moment of `rows` to their last: those of
        the schedule (not the calibration's, nor the one collection before the schedule)."""
        moments = [r.t_intended for r in rows if r.t_intended is not None]
        if not moments:
            return []
        first, last = min(moments), max(moments)
        return [ms for began, ms in self.pauses if first <= began <= last]

    @contextlib.contextmanager
    def watching(self) -> Iterator[None]:
        gc.callbacks.append(self._note)
        try:
            yield
        finally:
            gc.callbacks.remove(self._note)


@contextlib.contextmanager
def apart(server: ServerProcess) -> Iterator[None]:
    """Inside, this process (every thread) runs on core 0 and the server on the other cores,
    as a client and a server on machines of their own would not take each other's core; after,
    both run anywhere again. Worker processes started inside inherit core 0."""
    cores = sorted(os.sched_getaffinity(0))
    if len(cores) < 2 or server.proc is None:
        raise SystemExit("--pin needs two cores or more and a started server")

    def pin(pid: int, to: set[int]) -> None:
        for task in Path(f"/proc/{pid}/task").iterdir():
            os.sched_setaffinity(int(task.name), to)

    pin(server.proc.pid, set(cores[1:]))
    pin(os.getpid(), {cores[0]})
    try:
        yield
    finally:
        pin(os.getpid(), set(cores))
        pin(server.proc.pid, set(cores))


def _client_cpu_s() -> float:
    """CPU seconds of this process and of its ended children (the workers, once joined)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


class Lateness(NamedTuple):
    """A run's measured rows, the client's CPU seconds, and per request in ms: arrival
    lateness (headers read - scheduled), dispatch lateness (send - scheduled), send -> arrival,
    and lateness at the handler's start (handler start - scheduled)."""

    rows: list[RequestResult]
    cpu_s: float
    arrival: list[float]
    dispatch: list[float]
    wire: list[float]
    handled: list[float]


async def lateness(
    plan: RunPlan, base_url: str, workers: int = 1, pauses: CollectorPauses | None = None
) -> Lateness:
    """Run `plan` (over `workers` processes when more than 1) and read each request's arrival
    from the server's emit log (trace_fidelity.py too). `pauses` hears this process's
    collector pauses during the run."""
    pool = ClientPool("aiohttp")
    runner: Runner | ShardedRunner = Runner(pool, keep_results=False)
    if workers > 1:
        runner = ShardedRunner(
            ProcessWorkers(workers),
            pool,
            sink=None,
            keys=lambda _target: None,
            builder=PromptBuilder(),
            transport="aiohttp",
            options={},
            route_keys={None: None},
            keep_results=False,
        )
    rows: list[RequestResult] = []
    cpu0 = _client_cpu_s()
    try:
        with (pauses or CollectorPauses()).watching():
            async for event in runner.run(plan):
                if isinstance(event, RequestFinished) and event.result.phase == "measured":
                    rows.append(event.result)
    finally:
        await pool.aclose()
    cpu = _client_cpu_s() - cpu0
    arrival: list[float] = []
    dispatch: list[float] = []
    wire: list[float] = []
    handled: list[float] = []
    root = base_url.rsplit("/v1", 1)[0]
    async with aiohttp.ClientSession() as http:
        for r in rows:
            if not r.ok or r.response_id is None or r.t_intended is None:
                continue
            async with http.get(f"{root}/v1/_emit_log/{r.response_id}") as resp:
                record = await resp.json()
            received = record["t_headers_ns"]
            arrival.append((received - r.t_intended) / 1e6)
            handled.append((record["t_received_ns"] - r.t_intended) / 1e6)
            if r.t_send is not None:
                dispatch.append((r.t_send - r.t_intended) / 1e6)
                wire.append((received - r.t_send) / 1e6)
    return Lateness(rows, cpu, arrival, dispatch, wire, handled)


async def _rate(base_url: str, rate: float, duration_s: float, workers: int) -> dict[str, Any]:
    spec = ArrivalSpec(rate=rate, process="poisson", duration_s=duration_s, seed=29)
    target = local_target(load_catalog(), base_url, MODEL)
    plan = build_plan([target], Choices(prompt_lengths=(1024,), max_tokens=8, arrivals=spec))
    load = os.getloadavg()[0]
    pauses = CollectorPauses()
    rows, cpu, arrival, dispatch, wire, handled = await lateness(plan, base_url, workers, pauses)
    return {
        "rate": rate,
        "workers": workers,
        "duration_s": duration_s,
        "load_before": load,
        # this process's collector: the schedule's when it sends itself (not the workers')
        "collector_pauses": len(pauses.during(rows)) if workers == 1 else None,
        "collector_longest_ms": max(pauses.during(rows), default=0.0) if workers == 1 else None,
        "requests": len(rows),
        "errors": sum(not r.ok for r in rows),
        "arrival_p50_ms": percentile(arrival, 50),
        "arrival_p99_ms": percentile(arrival, 99),
        "dispatch_p50_ms": percentile(dispatch, 50),
        "dispatch_p99_ms": percentile(dispatch, 99),
        "send_to_arrival_p50_ms": percentile(wire, 50),
        "send_to_arrival_p99_ms": percentile(wire, 99),
        "handler_p50_ms": percentile(handled, 50),
        "handler_p99_ms": percentile(handled, 99),
        "client_cpu_ms_per_request": cpu / max(1, len(rows)) * 1000,
    }


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _workers_note(level: dict[str, Any]) -> str:
    workers = level.get("workers", 1)
    notes = [f"{workers} workers"] if workers > 1 else []
    notes += ["apart"] if level.get("apart") else []
    return f" ({', '.join(notes)})" if notes else ""


def _pauses(x: dict[str, Any]) -> str:
    """'count (longest ms)', or '-' where the schedule ran in worker processes."""
    if x.get("collector_pauses") is None:
        return "-"
    return f"{x['collector_pauses']} ({x['collector_longest_ms']:.1f})"


def _table(levels: list[dict[str, Any]]) -> str:
    lines = [
        "rate req/s | requests | errors | arrival lateness p50 / p99 ms | dispatch_ms p50 / p99 "
        "| send → arrival p50 / p99 ms | at handler start p50 / p99 ms | client CPU ms/request "
        "| req/s one core sustains | collector pauses (longest ms) | load before",
        "---|---|---|---|---|---|---|---|---|---|---",
    ]
    for x in levels:
        per_core = 1000 / x["client_cpu_ms_per_request"] if x["client_cpu_ms_per_request"] else 0
        lines.append(
            f"{x['rate']:g}{_workers_note(x)} | {x['requests']} | {x['errors']} | "
            f"{_fmt(x['arrival_p50_ms'])} / {_fmt(x['arrival_p99_ms'])} | "
            f"{_fmt(x['dispatch_p50_ms'])} / {_fmt(x['dispatch_p99_ms'])} | "
            f"{_fmt(x['send_to_arrival_p50_ms'])} / {_fmt(x['send_to_arrival_p99_ms'])} | "
            f"{_fmt(x.get('handler_p50_ms'))} / {_fmt(x.get('handler_p99_ms'))} | "
            f"{x['client_cpu_ms_per_request']:.2f} | {per_core:,.0f} | "
            f"{_pauses(x)} | {x['load_before']:.1f}"
        )
    return "\n".join(lines)


ARMS = ("unsteady", "steady")  # the interpreter left as it is; as `bench` runs it


def _arm_run(rate: float, duration_s: float, arm: str) -> dict[str, Any]:
    """One rate in a fresh process (its own server too), as `bench` runs or with `--unsteady`."""
    command = [sys.executable, __file__, "--child", "--rates", str(rate)]
    command += ["--duration", str(duration_s)] + (["--unsteady"] if arm == "unsteady" else [])
    done = subprocess.run(command, capture_output=True, text=True, check=True, timeout=600)
    level: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    level["arm"] = arm
    return level


def _ab(rates: list[float], duration_s: float, pairs: int) -> list[dict[str, Any]]:
    """`pairs` alternating runs of each arm per rate: the same load for both, in turn."""
    runs = []
    for rate in rates:
        for _ in range(pairs):
            runs += [_arm_run(rate, duration_s, arm) for arm in ARMS]
    return runs


def _ab_table(runs: list[dict[str, Any]]) -> str:
    lines = [
        "rate req/s | interpreter | runs | arrival p99 ms, each run | median arrival p50 / p99 ms "
        "| median dispatch_ms p99 | longest collector pause ms, each run | load before, each run",
        "---|---|---|---|---|---|---|---",
    ]
    for rate in sorted({x["rate"] for x in runs}):
        for arm in ARMS:
            xs = [x for x in runs if x["rate"] == rate and x["arm"] == arm]

            def each(key: str, xs: list[dict[str, Any]] = xs) -> str:
                return ", ".join(f"{x[key]:.1f}" for x in xs)

            def median(key: str, xs: list[dict[str, Any]] = xs) -> str:
                return _fmt(statistics.median(x[key] for x in xs if x[key] is not None))

            lines.append(
                f"{rate:g} | {'as bench runs it' if arm == 'steady' else 'left as it is'} | "
                f"{len(xs)} | {each('arrival_p99_ms')} | {median('arrival_p50_ms')} / "
                f"{median('arrival_p99_ms')} | {median('dispatch_p99_ms')} | "
                f"{each('collector_longest_ms')} | {each('load_before')}"
            )
    return "\n".join(lines)


async def _levels(args: argparse.Namespace, server: ServerProcess) -> list[dict[str, Any]]:
    """Each rate with each worker count, on any core; with --pin, then client and server
    apart (`apart`), in the same run so that both see the same machine."""
    assert server.base_url is not None
    levels = []
    for rate in args.rates:
        for workers in args.workers:
            levels.append(await _rate(server.base_url, rate, args.duration, workers))
            if args.pin:
                with apart(server):
                    level = await _rate(server.base_url, rate, args.duration, workers)
                levels.append({**level, "apart": True})
    return levels


async def _main(args: argparse.Namespace) -> int:
    server = ServerProcess(time_scale=TIME_SCALE)
    await server.start()
    try:
        levels = await _levels(args, server)
    finally:
        await server.stop()
    if args.child:  # one arm of --ab: its figures to the parent
        print(json.dumps(levels[0]))
        return 0
    table = _table(levels)
    print(table)
    runs = _ab(args.rates, args.duration, args.ab) if args.ab else []
    if runs:
        table += "\n\nA/B (`--ab`): the interpreter held steady during the schedule or not\n\n"
        table += _ab_table(runs)
        print(_ab_table(runs))
    load = os.getloadavg()

    def meets(x: dict[str, Any]) -> bool:
        return (x["arrival_p50_ms"] or 1e9) <= GOAL_P50_MS and (
            x["arrival_p99_ms"] or 1e9
        ) <= GOAL_P99_MS

    def met(apart: bool) -> str:
        each = [
            [x for x in levels if x["rate"] == r and bool(x.get("apart")) == apart]
            for r in args.rates
        ]
        return "met" if all(any(meets(x) for x in xs) for xs in each) else "not met"

    verdict = met(False) + (f"; client and server apart: {met(True)}" if args.pin else "")
    notes = (
        f"\n\nGoal (p50 <= {GOAL_P50_MS} ms, p99 <= {GOAL_P99_MS} ms at every rate, with one of "
        "the worker counts measured): "
        f"{verdict}. Load average at the end: "
        f"{load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} on {os.cpu_count()} cores (client, "
        'server and other work share them; "apart": the client on core 0, the server on the '
        "others). guidellm's and AIPerf's clients are measured beside "
        "ours by benchmarks/arrival_peers.py (vLLM's is not: it says why).\n"
    )
    command = "python benchmarks/arrival_fidelity.py " + " ".join(sys.argv[1:])
    data = {"machine": machine_record(), "levels": levels, "ab": runs, "load_average": load}
    write_result("arrival_fidelity", command.strip(), table + notes, data, quick=args.quick)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rates", type=float, nargs="+", default=[50.0, 200.0, 500.0])
    parser.add_argument("--duration", type=float, default=5.0, help="seconds per rate")
    parser.add_argument("--quick", action="store_true", help="1 s per rate, nothing recorded")
    parser.add_argument(
        "--workers",
        type=int,
        nargs="+",
        default=[1],
        help="client processes sharing the schedule (1: none); several: each rate with each",
    )
    parser.add_argument(
        "--ab", type=int, default=0, help="also this many A/B pairs per rate (steady or not)"
    )
    parser.add_argument(
        "--unsteady",
        action="store_true",
        help="leave the interpreter as it is during the schedule (the A/B's other arm)",
    )
    parser.add_argument(
        "--pin",
        action="store_true",
        help="each level again with the client on one core and the server on the others",
    )
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.quick:
        args.duration = 1.0
    if args.unsteady:  # what run_schedule holds steady is left alone (this process's schedule)
        open_loop.steady_interpreter = contextlib.nullcontext  # type: ignore[assignment]
    return event_loop.run(_main(args))


if __name__ == "__main__":
    raise SystemExit(main())
