"""`workbench bench --capacity --slo ...`: the flags of a search for each model's highest load
within the SLO, checked, into the plan's choices. The search itself runs in core
(core/run/capacity_run.py), as the app runs it: one step at a time, each an ordinary cell at one
rate (open loop, --arrivals) or one concurrency; models one after another, each on its own
schedule, all in one run.
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from typing import Any

from workbench.commands.common import float_in, int_in
from workbench.core.load.arrivals import ArrivalSpec
from workbench.core.load.capacity import (
    BYS,
    DEFAULT_RANGE,
    DEFAULT_REQUESTS,
    FLOOR_REQUESTS,
    MAX_STEP_REQUESTS,
    MIN_RATE,
    Rule,
    parse_range,
    step_requests,
)
from workbench.core.load.capacity_lines import plan_words
from workbench.core.models.catalog import load_catalog
from workbench.core.planning.device_cost import MAX_DEVICE_COST, device_costs, parse_device_cost
from workbench.core.planning.run_plan import MAX_CONCURRENCY, RunPlan
from workbench.core.run.plan import Choices
from workbench.local.costmodel import MAX_TENSOR_PARALLEL

MAX_BUDGET = 1_000_000


def _range(text: str) -> tuple[float, float]:
    try:
        return parse_range(text)  # the app's Range field reads it the same way
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _device_cost(text: str) -> float:
    try:
        return parse_device_cost(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_capacity_args(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group(
        "capacity search (--capacity)",
        "Find each model's highest rate (or concurrency) at which --slo holds: first "
        f"{FLOOR_REQUESTS} requests one at a time (a model that misses the SLO even alone is "
        "said so, with its figure, and not searched further), then x2 steps from the lone "
        "request's rate (or the middle of --capacity-range) until one holds and the next "
        "misses, then bisection. A step "
        "holds when every objective's share of requests within its limit is shown at least "
        "its percentile at 90% confidence (Wilson bounds) and misses when one is shown below "
        "it; a step that shows neither is run again at its load (at most twice a search) and "
        "judged on both together, then by its share. The most requests and minutes the "
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
        help="the loads searched (default: from the rate of a request alone, measured by the "
        f"search's first {FLOOR_REQUESTS} requests sent one at a time, down to {MIN_RATE:g} and "
        f"up to {DEFAULT_RANGE['rate'][1]:g} req/s; {DEFAULT_RANGE['concurrency'][0]:g}:"
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
    g.add_argument(
        "--device-cost",
        type=_device_cost,
        metavar="USD/h",
        help="your price per device-hour (e.g. 2.5/h, up to "
        f"{MAX_DEVICE_COST:g}): a model served on a deployment (the built-in provider's "
        "models) costs its devices' time at the load that held; default: the list price in "
        "hardware.toml. Models without a deployment keep their token prices",
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
            ("--device-cost", args.device_cost is not None),
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
    follow = args.capacity_range is None and args.capacity_by == "rate"
    try:
        args.capacity_rule = Rule(
            by=args.capacity_by,
            low=MIN_RATE if follow else low,  # from the floor's rate, down to MIN_RATE
            follow=follow,
            high=min(high, MAX_CONCURRENCY) if args.capacity_by == "concurrency" else high,
            requests=step_requests(args.slo, args.capacity_requests),
            tolerance=args.capacity_tolerance / 100,
            budget=args.capacity_budget,
        )
    except ValueError as exc:
        return f"--capacity: {exc}"
    args.workers = 1  # one client process: a step is one cell
    return None


def with_capacity(args: argparse.Namespace, choices: Choices) -> Choices:
    """The choices with the search's rule, and each rate step's schedule as a template."""
    rule: Rule | None = getattr(args, "capacity_rule", None)
    if rule is None:
        return choices
    process, shape = args.arrivals or ("poisson", 1.0)
    template = ArrivalSpec(
        rate=rule.start,
        process=process,
        shape=shape,
        seed=args.seed,
        max_requests=rule.requests,
        max_concurrency=args.max_concurrency,
    )
    return replace(choices, capacity=rule, arrivals=template if rule.by == "rate" else None)


def plan_line(args: argparse.Namespace, plan: RunPlan) -> str:
    assert plan.capacity is not None
    return plan_words(plan.capacity, plan.slo, len(plan.targets))


def more_devices(args: argparse.Namespace, plan: RunPlan) -> dict[str, str]:
    """Per simulated model of the built-in provider, the --tp that serves it on the most
    devices the simulator offers: the fix a search names when the model misses its SLO even one
    request at a time (twice the devices left the 32K twins at ~3.0 s, still over a 3 s TTFT
    limit: naming a flag that fails again would surprise). None elsewhere (a real server's
    devices are not ours to set)."""
    if getattr(args, "provider", None) or getattr(args, "base_url", None):
        return {}
    catalog = load_catalog()
    out = {}
    for target in plan.targets:
        model = catalog.get(target.model)
        if model is None or not model.simulated or model.deployment is None:
            continue
        now = args.tp or model.deployment.tensor_parallel
        if now < MAX_TENSOR_PARALLEL:
            out[target.model] = f"--tp {MAX_TENSOR_PARALLEL}"
    return out


def deployment_costs(args: argparse.Namespace, plan: RunPlan) -> dict[str, dict[str, Any]]:
    """Per model with a deployment in the catalog, its devices and their price per hour: on
    the built-in provider with --gpu/--tp applied; against a server of its own (--base-url,
    --provider) the catalog's deployment as it stands, which the sentence names."""
    builtin = not (getattr(args, "provider", None) or getattr(args, "base_url", None))
    return device_costs(
        load_catalog(),
        [t.model for t in plan.targets],
        args.gpu if builtin else None,
        args.tp if builtin else None,
        args.device_cost,
    )
