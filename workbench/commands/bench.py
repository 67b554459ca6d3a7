"""`workbench bench`: a comparison or sweep from flags, printed as a table and written as CSV.

Every flag is checked before anything starts (exit 2 names the flag, the range and the fix);
rows go to the CSV and the history as each request finishes, so an interrupted run keeps
every finished row. Exit codes: docs/reliability.md.
"""

from __future__ import annotations

import argparse
import signal
import sys
from collections import Counter
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from typing import Any

from workbench.commands.bench_capacity import (
    add_capacity_args,
    check_capacity,
    deployment_costs,
    more_devices,
    plan_line,
    with_capacity,
)
from workbench.commands.bench_dataset import add_dataset_args, check_dataset, with_dataset
from workbench.commands.bench_load import (
    add_load_args,
    check_load,
    check_slo_clock,
    spread_int,
    spread_lengths,
    with_load,
)
from workbench.commands.bench_models import check_model
from workbench.commands.bench_output import (
    add_output_args,
    choose_csv,
    open_csv,
    output_flag,
    print_json,
    unwritable,
    write_run_json,
)
from workbench.commands.bench_request_flags import add_limit_args, add_prompt_args
from workbench.commands.bench_signals import stop_on_signals
from workbench.commands.bench_workers import (
    add_worker_args,
    check_cluster,
    client_processes,
    make_runner,
)
from workbench.commands.common import (
    LOCAL_PROVIDER,
    Endpoint,
    add_target_args,
    add_transport_arg,
    fail,
    float_in,
    int_in,
    resolve_endpoint,
)
from workbench.commands.compare_route import (
    add_compare_args,
    check_compare_args,
    concurrency_levels,
    route_endpoints,
    route_model,
    route_target,
    write_chart,
)
from workbench.commands.progress import ProgressDisplay, add_verbosity_args, verbosity
from workbench.core.foundation.results import (
    RequestResult,
    Target,
    Timeouts,
)
from workbench.core.foundation.terminal import printable, shown_id
from workbench.core.history.csv_export import CsvWriter
from workbench.core.history.route_compare import ROUTES, RouteComparison
from workbench.core.history.run_history import RunStore, StoreError
from workbench.core.history.run_report import route_document, run_document
from workbench.core.history.summary import Summarizer
from workbench.core.load.capacity_lines import table
from workbench.core.load.client_load import ClientLoad
from workbench.core.load.prompts import MAX_TARGET_TOKENS, MIN_TARGET_TOKENS, PromptBuilder
from workbench.core.models.catalog import load_catalog
from workbench.core.planning.context_fit import nothing_fits, overflows
from workbench.core.planning.run_events import RequestFinished, RunFinished
from workbench.core.planning.run_plan import (
    MAX_CONCURRENCY,
    MAX_OUTPUT_TOKENS,
    MAX_REPEATS,
    MAX_TEMPERATURE,
    MAX_WARMUP,
    Mode,
    RunPlan,
)
from workbench.core.run.calibration_file import load_calibration, save_calibration
from workbench.core.run.capacity_run import CapacityFound, CapacityRunner
from workbench.core.run.plan import Choices, LocalSim, build_plan
from workbench.core.run.runner import Runner
from workbench.core.scale.coordinator import ShardedRunner
from workbench.core.system import loop as event_loop
from workbench.core.transport.clients import ClientPool
from workbench.report import format_route_table, format_summary_table

EXIT_OK, EXIT_FAILED_RUN, EXIT_BAD_INPUT, EXIT_SOME_FAILED = 0, 1, 2, 3
_NO_STORE_HINT = " (or pass --no-store to run without recording a history)"


def token_counts(text: str) -> list[int]:
    """--prompt-tokens: whole token counts within what a prompt can be built for, each with
    an optional ± spread (bench_load.py)."""
    return spread_lengths(MIN_TARGET_TOKENS, MAX_TARGET_TOKENS)(text)


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "bench",
        help="compare models or sweep prompt lengths; print a table and write CSV",
        description="Measure TTFT, decode tok/s and more for each model at each prompt length. "
        "With neither --base-url nor --provider it starts the built-in local provider. "
        "With --provider, the saved provider's timeouts apply unless flags override them. "
        "Exit 0: every request succeeded; 1: the run stopped early (its rows so far are in "
        "the CSV); 2: bad input, nothing sent; 3: some requests failed; 130: interrupted.",
    )
    add_target_args(p)
    _add_plan_args(p)
    add_prompt_args(p)
    add_limit_args(p)
    add_output_args(p)
    add_verbosity_args(p)
    p.add_argument("--no-store", action="store_true", help="do not record the run in the history")
    add_transport_arg(p)
    add_worker_args(p)
    add_compare_args(p)
    add_load_args(p)
    add_dataset_args(p)
    add_capacity_args(p)
    p.set_defaults(func=run)


def _add_plan_args(p: argparse.ArgumentParser) -> None:
    """What is measured: the models, the prompt lengths, how many requests and how at once."""
    p.add_argument(
        "--model",
        action="append",
        required=True,
        metavar="ID",
        help="model id; repeat for a side-by-side comparison",
    )
    p.add_argument(
        "--prompt-tokens",
        default=[32768],
        type=token_counts,
        metavar="N[±S][,N...]",
        help=f"prompt length(s) in tokens, {MIN_TARGET_TOKENS}..{MAX_TARGET_TOKENS} "
        "(default 32768); suffixes K and M allowed, e.g. 1K,4K,32K; N±S (or N+-S) draws each "
        "request's length uniformly from N-S..N+S, e.g. 4K±1K",
    )
    p.add_argument(
        "--repeats",
        type=int_in(1, MAX_REPEATS, "repeats"),
        default=1,
        help=f"measured requests per cell, 1..{MAX_REPEATS:,}",
    )
    p.add_argument(
        "--warmup",
        type=int_in(0, MAX_WARMUP, "warmup"),
        default=0,
        help=f"warm-up requests per cell, discarded, 0..{MAX_WARMUP:,}",
    )
    p.add_argument(
        "--max-tokens",
        type=spread_int(1, MAX_OUTPUT_TOKENS),
        default=256,
        metavar="N[±S]",
        help=f"output tokens per request, 1..{MAX_OUTPUT_TOKENS:,} (default 256); N±S draws "
        "each request's from N-S..N+S, e.g. 256±64",
    )
    p.add_argument(
        "--temperature",
        type=float_in(0, MAX_TEMPERATURE, "temperature"),
        default=0.0,
        help=f"sampling temperature, 0..{MAX_TEMPERATURE:g} (default 0)",
    )
    p.add_argument(
        "--concurrency",
        type=concurrency_levels,
        default=[1],
        metavar="N[,N...]",
        help=f"requests in flight per model, 1..{MAX_CONCURRENCY}; with --compare-route a "
        "list of levels run in turn, e.g. 1,8,32",
    )
    order = p.add_mutually_exclusive_group()
    order.add_argument(
        "--sequential",
        action="store_true",
        help="run models one after another (the default for a real server: models on one "
        "server share its compute, so run at once each would measure the others' load)",
    )
    order.add_argument(
        "--simultaneous",
        action="store_true",
        help="run all models at once (the default for the built-in provider, whose simulated "
        "models share nothing)",
    )


def run(args: argparse.Namespace) -> int:
    return event_loop.run(_run(args))  # uvloop where available (core/system/loop.py)


async def _run(args: argparse.Namespace) -> int:
    problem = check_compare_args(args) or check_dataset(args) or check_load(args)
    problem = problem or check_capacity(args) or check_slo_clock(args)
    if problem:
        fail(problem)
        return EXIT_BAD_INPUT
    if not check_cluster(args):  # Ray missing, an address that is none
        return EXIT_BAD_INPUT
    try:
        csv_path = choose_csv(args)
    except ValueError as exc:
        fail(f"{output_flag(args)}: {exc}")
        return EXIT_BAD_INPUT
    try:
        store = None if args.no_store else RunStore()
    except StoreError as exc:  # refuse before sending: a run the user cannot find later
        fail(f"{exc}{_NO_STORE_HINT}")
        return EXIT_BAD_INPUT
    async with AsyncExitStack() as stack:
        if store is not None:
            stack.callback(store.close)
        planned = await (_routed_plan if args.compare_route else _single_plan)(args, stack)
        if planned is None:
            return EXIT_BAD_INPUT
        plan, endpoints = planned
        too_long = overflows(plan) or nothing_fits(plan)
        if too_long and not args.allow_overflow:
            fail(too_long)
            return EXIT_BAD_INPUT
        try:
            writer = open_csv(csv_path, args)
        except ValueError as exc:
            fail(f"{output_flag(args)}: {exc}")
            return EXIT_BAD_INPUT
        stack.callback(writer.close)
        pool = ClientPool(args.transport)
        stack.push_async_callback(pool.aclose)
        for endpoint in endpoints.values():  # headers, proxy and TLS for the runner's clients
            endpoint.register(pool)
        calibration = load_calibration()
        runner = make_runner(args, plan, pool, store, endpoints, PromptBuilder(calibration))
        if runner is None:  # the cluster cannot be reached or used
            return EXIT_BAD_INPUT
        if plan.capacity is not None and isinstance(runner, Runner):  # one step at a time
            runner = CapacityRunner(runner, more_devices(args, plan), deployment_costs(args, plan))
        print(_plan_line(args, plan, endpoints), file=sys.stderr)
        try:
            async with ClientLoad(client_processes(runner)) as load:
                outcome = await _drive(runner, plan, writer, args)
        except StoreError as exc:  # the history refused the run before anything was sent
            fail(f"{exc}{_NO_STORE_HINT}")
            return EXIT_BAD_INPUT
        try:
            save_calibration(calibration)
        except OSError as exc:
            print(f"warning: the prompt calibration was not saved: {exc}", file=sys.stderr)
        document = run_document(
            outcome.final.run_id if outcome.final else None, plan.to_config(), outcome.rows
        )
        document["client"] = _said_if_saturated(load.figures())
        if outcome.capacity is not None:
            document["capacity"] = outcome.capacity
        if outcome.routes is not None:  # --json prints the comparison the table would show
            document = route_document(document, outcome.routes.levels())
        code = _report(outcome, writer, store is not None, document if args.json else None)
        if args.output is not None:
            try:
                write_run_json(args.output, document)
            except OSError as exc:
                fail(
                    f"cannot write run.json in {args.output} ({exc.strerror or exc}); "
                    f"the rows are in {writer.path}"
                )
                code = code or EXIT_FAILED_RUN
        if outcome.routes is not None and args.chart:
            write_chart(outcome.routes.levels(), args.chart, args.model[0])
        return code


def _plan_line(args: argparse.Namespace, plan: RunPlan, endpoints: dict[Any, Endpoint]) -> str:
    """What the run will send, and where; a capacity search's rule and worst-case cost."""
    where = " and ".join(e.base_url for e in endpoints.values())
    if args.capacity:
        return f"{plan_line(args, plan)}; against {where}"
    return (
        f"Run: {len(plan.targets)} model(s) x {len(plan.prompt_lengths)} length(s), "
        f"{plan.total_requests} requests against {where}"
    )


def _said_if_saturated(client: dict[str, Any]) -> dict[str, Any]:
    """The client's own load (run.json's `client`), after a warning when it was saturated."""
    if client["saturated"]:
        print(f"warning: the client itself was saturated ({client['saturated_because']}): "
              "its timings are partly its own; use fewer --workers or --concurrency, or a "
              "bigger machine", file=sys.stderr)  # fmt: skip
    return client


# The run's plan and its endpoints by route (None: no route comparison, one endpoint).
_Planned = tuple[RunPlan, dict[str | None, Endpoint]]


async def _single_plan(args: argparse.Namespace, stack: AsyncExitStack) -> _Planned | None:
    """--base-url, --provider or the built-in provider; None after saying what is wrong."""
    endpoint = await resolve_endpoint(args, stack, load_catalog())
    if endpoint is None:
        return None
    plan = _plan(args, endpoint)
    return None if plan is None else (plan, {None: endpoint})


async def _routed_plan(args: argparse.Namespace, stack: AsyncExitStack) -> _Planned | None:
    """--compare-route: the two routes' endpoints and a sequential plan over both."""
    catalog = load_catalog()
    found = await route_endpoints(args, stack, catalog)
    if found is None:
        return None
    targets = []
    for route in ROUTES:
        model = route_model(args, route)
        check_model(found[route], model, catalog)  # a real server's unlisted id: a warning
        targets.append(route_target(found[route], model, route, catalog))
    plan = _make_plan(args, tuple(targets), "sequential")
    return (plan, dict(found.items())) if plan is not None else None


def _mode(args: argparse.Namespace, endpoint: Endpoint) -> Mode:
    """Models on one real server run one after another unless --simultaneous asks otherwise."""
    if args.sequential:
        return "sequential"
    if endpoint.provider == LOCAL_PROVIDER:
        return "parallel"  # simulated timings are a function of the request alone
    if not args.simultaneous:
        return "sequential"
    if len(set(args.model)) > 1:
        print(
            f"warning: {len(set(args.model))} models run at once on one server "
            f"({endpoint.base_url}): they share its compute, so each one's figures include "
            "the others' load; drop --simultaneous to run them one after another",
            file=sys.stderr,
        )
    return "parallel"


def _plan(args: argparse.Namespace, endpoint: Endpoint) -> RunPlan | None:
    """The run's plan from the flags and the endpoint; None after saying what is wrong."""
    catalog = load_catalog()
    if not all([check_model(endpoint, m, catalog) for m in args.model]):  # each one said
        return None
    targets = tuple(endpoint.target(catalog, model) for model in args.model)
    return _make_plan(args, targets, _mode(args, endpoint))


def _make_plan(args: argparse.Namespace, targets: tuple[Target, ...], mode: Mode) -> RunPlan | None:
    """The plan from the flags (core/run/plan.py); a timeout flag overrides each provider's."""
    choices = Choices(
        prompt_lengths=tuple(args.prompt_tokens),
        repeats=args.repeats,
        concurrency_levels=tuple(args.concurrency),
        warmup=args.warmup,
        max_tokens=int(args.max_tokens),
        temperature=args.temperature,
        mode=mode,
        language=args.language,
        task=args.task,
        needle_depth=args.needle_depth,
        cache_test=args.cache_test,
        retry_budget_s=args.retry_budget,
        timeouts=Timeouts(args.first_token_timeout, args.stall_timeout, args.total_timeout),
    )
    local = None if args.allow_overflow else LocalSim(args.gpu, args.tp)  # None: no KV check
    try:
        # --rate, --slo: bench_load.py; --dataset: bench_dataset.py
        choices = with_capacity(args, with_dataset(args, with_load(args, choices)))
        return build_plan(targets, choices, load_catalog(), local)
    except ValueError as exc:  # a saved provider's timeout out of range, say
        fail(str(exc))
        return None


@dataclass
class _Outcome:
    summary: Summarizer = field(default_factory=Summarizer)
    routes: RouteComparison | None = None  # --compare-route: direct vs gateway per level
    final: RunFinished | None = None
    measured: int = 0
    failed: Counter[str] = field(default_factory=Counter)
    csv_error: OSError | None = None
    signal_number: int | None = None
    not_sent: set[str] = field(default_factory=set)  # models whose 'not sent' row was printed
    flag: str = "--csv"  # the flag that chose where the rows go, for the messages
    rows: list[RequestResult] = field(default_factory=list)  # every row, warm-ups included
    capacity: dict[str, Any] | None = None  # --capacity: run.json's section


async def _drive(
    runner: Runner | ShardedRunner | CapacityRunner,
    plan: RunPlan,
    writer: CsvWriter,
    args: argparse.Namespace,
) -> _Outcome:
    """Consume the run's events: show progress, append each row to the CSV as it finishes."""
    outcome = _Outcome(routes=RouteComparison() if args.compare_route else None)
    outcome.flag = output_flag(args)
    stopped_by: list[int] = []
    remove_handlers = stop_on_signals(runner, stopped_by)
    try:
        with ProgressDisplay(plan, verbosity(args)) as display:
            async for event in runner.run(plan):
                display.event(event)
                if isinstance(event, RequestFinished):
                    _take(event, outcome, writer, runner)
                elif isinstance(event, RunFinished):
                    outcome.final = event
                elif isinstance(event, CapacityFound):
                    outcome.capacity = event.section
    finally:
        remove_handlers()
    outcome.signal_number = stopped_by[0] if stopped_by else None
    return outcome


def _take(
    event: RequestFinished,
    outcome: _Outcome,
    writer: CsvWriter,
    runner: Runner | ShardedRunner | CapacityRunner,
) -> None:
    """One finished request: its row to the CSV (warm-up and calibration rows too, marked by
    `phase`), measured ones to the summary."""
    result = event.result
    outcome.rows.append(result)
    label = "" if result.phase == "measured" else f"{result.phase}: "
    unsent = result.t_send is None and (result.error_message or "").startswith("not sent (")
    step_ended = result.stopped and isinstance(runner, CapacityRunner)  # its step line says it
    if not result.ok and not (unsent and event.target.label in outcome.not_sent) and not step_ended:
        line = f"  {label}{shown_id(event.target.model)}: {result.error_message}"
        print(printable(line), file=sys.stderr)
        if unsent:  # the model's other unsent rows say the same: printed once
            outcome.not_sent.add(event.target.label)
    elif result.phase == "calibration" and (result.usage_suspect or result.usage_estimated):
        what = (
            f"usage looks made up (completion_tokens {result.completion_tokens} for "
            f"{len(result.event_times)} text events)"
            if result.usage_suspect
            else "no believable usage came"
        )
        print(
            printable(
                f"  {label}{shown_id(event.target.model)}: {what}; prompts keep the default size "
                "estimate and their token counts go unchecked"
            ),
            file=sys.stderr,
        )
    if result.phase == "measured":
        outcome.summary.add(result)
        if outcome.routes is not None:
            outcome.routes.add(result)
        outcome.measured += 1
        if not result.ok and not result.stopped:  # a stopped row is no failure
            outcome.failed[str(result.error_class)] += 1
    if outcome.csv_error is None:
        try:
            writer.append(result)
        except OSError as exc:  # the disk filled up: stop; the history has every row
            outcome.csv_error = exc
            runner.stop_because(unwritable(writer.path, exc, outcome.flag))


def _report(
    outcome: _Outcome, writer: CsvWriter, stored: bool, document: dict[str, Any] | None
) -> int:
    """Print the table (or, with --json, the run document) and where the rows went; the exit
    code by docs/reliability.md."""
    final = outcome.final
    assert final is not None  # the runner always ends with RunFinished
    if document is not None:
        print_json(document)
    elif outcome.routes is not None:  # the summary's groups would mix the concurrency levels
        print(format_route_table(outcome.routes.levels()))
    elif outcome.capacity is not None:  # the summary's groups would mix the steps' loads
        print(table(outcome.capacity))
    else:
        print(format_summary_table(outcome.summary.cells()))
    run_note = f" (run {final.run_id})" if stored else ""
    print(
        f"\nWrote {writer.rows} rows to {writer.path}{run_note}",
        file=sys.stderr if document is not None else sys.stdout,
    )
    if outcome.csv_error is not None:
        where = f"; every row is in the history{run_note}" if stored else ""
        fail(
            f"the run was stopped after {writer.rows} whole rows in {writer.path}{where}: "
            f"{unwritable(writer.path, outcome.csv_error, outcome.flag)}"
        )
        return EXIT_FAILED_RUN
    if final.status == "failed":
        fail(
            f"the run stopped early: {final.message}. The {writer.rows} rows finished before "
            f"that are in {writer.path}"
        )
        return EXIT_FAILED_RUN
    if final.status == "cancelled":
        print(f"interrupted: {writer.rows} rows are in {writer.path}", file=sys.stderr)
        return 128 + (outcome.signal_number or signal.SIGINT)
    if outcome.failed:
        classes = ", ".join(f"{name} x{count}" for name, count in outcome.failed.most_common())
        fail(
            f"{sum(outcome.failed.values())} of {outcome.measured} requests failed ({classes}); "
            f"their rows in {writer.path} carry error_class and error_message"
        )
        return EXIT_SOME_FAILED
    return EXIT_OK
