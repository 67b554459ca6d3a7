"""`workbench bench --capacity --slo ...`: each model's highest load within the SLO.

The search (core/capacity.py) runs one step at a time, each an ordinary cell of the run at
one rate (open loop, --arrivals) or one concurrency; models go one after another, each on its
own schedule. Every step's rows reach the CSV and the history as any run's do, all in one run,
whose config then gets the `capacity` section (core/capacity_report.py) that run.json, the
Summary and `workbench summary` read.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any, Protocol

from workbench.commands.common import float_in, int_in
from workbench.core.arrivals import ArrivalSpec
from workbench.core.capacity import (
    BYS,
    DEFAULT_RANGE,
    DEFAULT_REQUESTS,
    MAX_STEP_REQUESTS,
    Rule,
    Search,
    judge,
    step_requests,
)
from workbench.core.capacity_report import model_json, plan_words, section, table
from workbench.core.csv_export import CsvWriter
from workbench.core.metrics import derive
from workbench.core.results import RequestResult
from workbench.core.run_history import RunStore
from workbench.core.run_plan import MAX_CONCURRENCY
from workbench.core.runner import RunFinished, Runner, RunPlan
from workbench.core.slo import goodput

MAX_BUDGET = 1_000_000


class Outcome(Protocol):
    rows: list[RequestResult]
    final: RunFinished | None
    capacity: dict[str, Any] | None


Drive = Callable[[Runner, RunPlan, CsvWriter, argparse.Namespace, Any], Awaitable[Any]]


def _range(text: str) -> tuple[float, float]:
    low, sep, high = text.replace("..", ":").partition(":")
    number = float_in(0, 1e6, "a range end", low_open=True)
    if not sep:
        raise argparse.ArgumentTypeError(f"'{text}': write LOW:HIGH, e.g. 0.5:64")
    return number(low), number(high)


def add_capacity_args(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group(
        "capacity search (--capacity)",
        "Find each model's highest rate (or concurrency) at which --slo holds: x2 steps from "
        "the middle of the range until one holds and the next misses, then bisection. A step "
        "holds when every objective's share of requests within its limit is at least its "
        "percentile at 90%% confidence (Wilson bound). The most requests and minutes the "
        "search can take are printed before it starts.",
    )
    g.add_argument("--capacity", action="store_true", help="search each model's capacity")
    g.add_argument(
        "--capacity-by",
        choices=BYS,
        default="rate",
        help="search the arrival rate (open loop, --arrivals; the default) or the requests "
        "kept in flight",
    )
    g.add_argument(
        "--capacity-range",
        type=_range,
        metavar="LOW:HIGH",
        help=f"the loads searched (default {DEFAULT_RANGE['rate'][0]:g}:"
        f"{DEFAULT_RANGE['rate'][1]:g} req/s, or {DEFAULT_RANGE['concurrency'][0]:g}:"
        f"{DEFAULT_RANGE['concurrency'][1]:g} in flight)",
    )
    g.add_argument(
        "--capacity-requests",
        type=int_in(1, MAX_STEP_REQUESTS, "requests per step"),
        default=DEFAULT_REQUESTS,
        metavar="N",
        help=f"requests per step (default {DEFAULT_REQUESTS}; raised to what the strictest "
        "percentile needs: p99 takes more)",
    )
    g.add_argument(
        "--capacity-tolerance",
        type=float_in(1, 100, "the tolerance (%)"),
        default=10.0,
        metavar="PCT",
        help="stop when the bracket's high end is within PCT %% of its low end (default 10)",
    )
    g.add_argument(
        "--capacity-budget",
        type=int_in(1, MAX_BUDGET, "the budget (requests)"),
        metavar="N",
        help="at most N requests per model: the search stops before a step that would pass "
        "it and reports the bracket it has",
    )


def check_capacity(args: argparse.Namespace) -> str | None:
    """What is wrong with --capacity's flags, in words; sets `args.capacity_rule`."""
    args.capacity_rule = None
    extra = [
        flag
        for flag, given in (
            ("--capacity-by", args.capacity_by != "rate"),
            ("--capacity-range", args.capacity_range is not None),
            ("--capacity-budget", args.capacity_budget is not None),
        )
        if given
    ]
    if not args.capacity:
        return f"{', '.join(extra)} shape a capacity search: add --capacity" if extra else None
    if not args.slo:
        return (
            "--capacity searches for the highest load within an SLO: add --slo, e.g. "
            "--slo ttft_p90:2s,tpot_p90:50ms"
        )
    clash = [
        flag
        for flag, given in (
            ("--rate", args.rate is not None),
            ("--duration", args.duration is not None),
            ("--max-requests", args.max_requests is not None),
            ("--ramp-up", bool(args.ramp_up)),
            ("--dataset", args.dataset is not None),
            ("--compare-route", bool(args.compare_route)),
            ("--cluster", bool(args.cluster)),
            ("--workers", (args.workers or 1) > 1),
            ("--repeats", args.repeats != 1),
            ("--concurrency", args.concurrency != [1]),
        )
        if given
    ]
    if clash:
        return (
            f"--capacity chooses each step's load and size itself: drop {', '.join(clash)} "
            "(--capacity-range and --capacity-requests shape the search)"
        )
    if len(args.prompt_tokens) != 1:
        return "--capacity searches at one prompt length: give one --prompt-tokens"
    low, high = args.capacity_range or DEFAULT_RANGE[args.capacity_by]
    try:
        args.capacity_rule = Rule(
            by=args.capacity_by,
            low=low,
            high=min(high, MAX_CONCURRENCY) if args.capacity_by == "concurrency" else high,
            requests=step_requests(args.slo, args.capacity_requests),
            tolerance=args.capacity_tolerance / 100,
            budget=args.capacity_budget,
        )
    except ValueError as exc:
        return f"--capacity: {exc}"
    args.workers = 1  # one client process: a step is one cell
    return None


def _step_plan(
    plan: RunPlan, rule: Rule, index: int, load: float, args: argparse.Namespace
) -> RunPlan:
    target = plan.targets[index]
    if rule.by == "concurrency":
        return replace(plan, targets=(target,), concurrency=int(load), repeats=rule.requests)
    process, shape = args.arrivals or ("poisson", 1.0)
    spec = ArrivalSpec(
        rate=load,
        process=process,
        shape=shape,
        seed=args.seed,
        max_requests=rule.requests,
        max_concurrency=args.max_concurrency,
    )
    return replace(plan, targets=(target,), arrivals=spec, mode="sequential")


class OneRun:
    """The store as the runner's sink, keeping every step in one run that ends once."""

    def __init__(self, store: RunStore) -> None:
        self.store = store
        self.run_id: str | None = None
        self.status = "finished"

    def start_run(self, kind: str, config: dict[str, Any], run_id: str | None = None) -> str:
        if self.run_id is None:
            self.run_id = self.store.start_run(kind, config, run_id)  # type: ignore[arg-type]
        return self.run_id

    def record(self, result: RequestResult) -> None:
        self.store.record(result)

    def finish_run(self, run_id: str, status: str) -> None:
        if status != "finished":
            self.status = status


async def drive_capacity(
    runner: Runner, plan: RunPlan, writer: CsvWriter, args: argparse.Namespace, drive: Drive
) -> Outcome:
    """Each model's search, step by step through `drive` (bench.py's), into one outcome."""
    rule: Rule = args.capacity_rule
    store = runner.sink if isinstance(runner.sink, RunStore) else None
    sink = OneRun(store) if store is not None else None
    if sink is not None:
        runner.sink = sink
    outcome = None
    answers = []
    stopped = False
    for index, target in enumerate(plan.targets):
        search = Search(rule)
        while not stopped and (load := search.next_load()) is not None:
            print(f"{target.model}: {load:g} {_unit(rule)} ...", file=sys.stderr)
            start = len(outcome.rows) if outcome is not None else 0
            step_plan = _step_plan(plan, rule, index, load, args)
            outcome = await drive(runner, step_plan, writer, args, outcome)
            measured = [(r, derive(r)) for r in outcome.rows[start:] if r.phase == "measured"]
            found = goodput(measured)
            step = judge(load, measured, plan.slo, found.duration_s if found else None)
            search.take(step)
            print(f"  {'holds' if step.holds else 'misses'}", file=sys.stderr)
            stopped = outcome.final is None or outcome.final.status != "finished"
        if stopped:
            search.stop()
        answers.append(model_json(target.model, search))
    assert outcome is not None  # every search runs at least one step
    outcome.capacity = section(rule, plan.slo, plan.prompt_lengths[0], answers)
    if sink is not None and store is not None and sink.run_id is not None:
        store.annotate(sink.run_id, "capacity", outcome.capacity)
        store.finish_run(sink.run_id, sink.status)  # type: ignore[arg-type]
    return outcome


def _unit(rule: Rule) -> str:
    return "req/s" if rule.by == "rate" else "in flight"


def plan_line(args: argparse.Namespace, plan: RunPlan) -> str:
    return plan_words(args.capacity_rule, plan.slo, len(plan.targets))


def capacity_text(capacity: dict[str, Any]) -> str:
    return table(capacity)
