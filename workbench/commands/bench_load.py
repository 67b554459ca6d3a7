"""`workbench bench --rate R` (open-loop arrivals) and `--slo` (goodput): their flags, checked
together, into the plan's choices (core/load/arrivals.py, core/load/slo.py; docs/metrics.md)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import replace

from workbench.commands.common import float_in, int_in, parse_int_list
from workbench.core.foundation.lengths import split_spread
from workbench.core.load.arrivals import (
    MAX_RATE,
    MAX_SCHEDULE,
    MAX_SCHEDULE_S,
    ArrivalSpec,
    Process,
    parse_arrivals,
)
from workbench.core.load.slo import Objective, clock_refusal, parse_slo
from workbench.core.planning.run_plan import MAX_CONCURRENCY
from workbench.core.run.plan import Choices


class Spread(list[int]):
    """--prompt-tokens' lengths, with the ± tokens around each (0: every request that long)."""

    spreads: tuple[int, ...] = ()


class SpreadInt(int):
    """--max-tokens, with the ± tokens around it."""

    spread: int = 0


def _spread_of(text: str, low: int, high: int | None) -> tuple[int, int]:
    """'4K±1K' -> (4096, 1024): parse_int_list's rules and errors for both halves."""
    try:
        mean, spread = split_spread(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    value = parse_int_list(mean, low, high)[0]
    return value, 0 if spread is None else parse_int_list(spread, 0, high)[0]


def spread_lengths(low: int, high: int) -> Callable[[str], Spread]:
    """An argparse type: '1K,4K±1K' -> [1024, 4096] with spreads (0, 1024)."""

    def parse(text: str) -> Spread:
        pairs = [_spread_of(part, low, high) for part in text.split(",")]
        lengths = Spread(length for length, _ in pairs)
        lengths.spreads = tuple(spread for _, spread in pairs)
        return lengths

    return parse


def spread_int(low: int, high: int) -> Callable[[str], SpreadInt]:
    """An argparse type: '256±64' -> 256 with spread 64."""

    def parse(text: str) -> SpreadInt:
        if "," in text:
            raise argparse.ArgumentTypeError(f"'{text}': give one count, e.g. 256 or 256±64")
        try:
            mean, spread = split_spread(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
        number = SpreadInt(int_in(low, high, "max tokens")(mean))
        number.spread = 0 if spread is None else int_in(0, high, "its spread")(spread)
        return number

    return parse


# flags that only mean something with --rate, as argparse names them
_RATE_ONLY = ("duration", "max_requests", "ramp_up", "max_concurrency", "arrivals")


def _arrivals(text: str) -> tuple[Process, float]:
    try:
        return parse_arrivals(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _slo(text: str) -> tuple[Objective, ...]:
    try:
        return parse_slo(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_load_args(p: argparse.ArgumentParser) -> None:
    """--rate and its schedule; --slo."""
    g = p.add_argument_group(
        "open-loop load (--rate)",
        "Send requests when a seeded schedule says, whatever came back before (instead of "
        "--concurrency requests in flight). TTFT and e2e are also counted from each request's "
        "scheduled time (ttft_from_scheduled_ms, e2e_from_scheduled_ms), so queueing in a "
        "late client is never hidden; dispatch_ms is its lateness.",
    )
    g.add_argument(
        "--rate",
        type=float_in(0, MAX_RATE, "the rate (requests/s)", low_open=True),
        metavar="R",
        help=f"requests per second per model, above 0 and at most {MAX_RATE:g}; every model "
        "and prompt length gets the same schedule. Needs --duration or --max-requests",
    )
    g.add_argument(
        "--arrivals",
        type=_arrivals,
        default=None,
        metavar="constant|poisson|gamma:K",
        help="gaps between requests: constant (exactly 1/R), poisson (exponential, the "
        "default) or gamma:K (shape K, mean 1/R: K < 1 burstier, K > 1 more regular; "
        "gamma:1 is poisson, as vLLM's --burstiness)",
    )
    g.add_argument(
        "--seed",
        type=int_in(0, 2**63 - 1, "the seed"),
        default=0,
        help="seed of the arrival schedule: the same seed, the same arrivals (default 0)",
    )
    g.add_argument(
        "--duration",
        type=float_in(0, MAX_SCHEDULE_S, "the duration (seconds)", low_open=True),
        metavar="S",
        help="send the requests due in the first S seconds of each cell (requests in flight "
        "then finish)",
    )
    g.add_argument(
        "--max-requests",
        type=int_in(1, MAX_SCHEDULE, "max requests"),
        metavar="N",
        help=f"send at most N requests per cell, 1..{MAX_SCHEDULE:,}; with --duration, "
        "whichever comes first",
    )
    g.add_argument(
        "--ramp-up",
        type=float_in(0, MAX_SCHEDULE_S, "the ramp-up (seconds)"),
        default=0.0,
        metavar="S",
        help="raise the rate linearly from 0 to R over the first S seconds of each cell "
        "(default 0: full rate at once); the ramp's requests are measured too",
    )
    g.add_argument(
        "--max-concurrency",
        type=int_in(1, MAX_CONCURRENCY, "max concurrency"),
        metavar="N",
        help=f"at most N requests in flight per model, 1..{MAX_CONCURRENCY} (as vLLM's "
        "--max-concurrency): a request due while all N are busy waits for one, and that wait "
        "counts in its dispatch_ms and its latency from scheduled time",
    )
    p.add_argument(
        "--slo",
        type=_slo,
        default=(),
        metavar="FIGURE_pNN:LIMIT[,...]",
        help="service-level objectives, e.g. ttft_p90:2s,tpot_p90:50ms,e2e_p99:30s (figures "
        "ttft, ttfc, tpot, itl, e2e; limits in ms or s). Each request is met or missed "
        "(slo_met); each cell gets its goodput (requests/s that met every objective, vLLM's "
        "request_goodput) and the share that met it. TTFT and e2e count from when a request "
        "was due. Limits are real time: on the built-in provider it needs --time-scale 1",
    )


def check_load(args: argparse.Namespace) -> str | None:
    """What is wrong with the open-loop flags, in words (before anything is contacted)."""
    given = [name for name in _RATE_ONLY if getattr(args, name) not in (None, 0.0)]
    if getattr(args, "capacity", False):  # a search sets each step's rate (bench_capacity.py)
        return None
    trace = getattr(args, "loaded_dataset", None)
    if trace is not None and trace.timed:  # a trace's own schedule (bench_dataset.py)
        return None
    if args.rate is None:
        if given:
            flags = ", ".join("--" + name.replace("_", "-") for name in given)
            return f"{flags} shape an open-loop run: add --rate R (requests/s), or drop them"
        return None
    if args.compare_route:
        return "--compare-route keeps requests in flight; drop --rate (or run each route alone)"
    if args.concurrency != [1]:
        return (
            "--rate sends on a schedule instead of keeping --concurrency requests in flight; "
            "drop --concurrency, or cap requests in flight with --max-concurrency N"
        )
    if args.repeats != 1:
        return "--rate sets the requests per cell itself: use --max-requests N, not --repeats"
    try:
        _spec(args)
    except ValueError as exc:
        return str(exc)
    return None


def check_slo_clock(args: argparse.Namespace) -> str | None:
    """--slo (and --capacity) on the built-in provider at a --time-scale other than 1: refused,
    naming the fix (core/load/slo.clock_refusal, the app's rule too)."""
    builtin = not (getattr(args, "provider", None) or getattr(args, "base_url", None))
    if not args.slo or not builtin or getattr(args, "compare_route", None):
        return None
    return clock_refusal(args.slo, getattr(args, "time_scale", 1.0))


def _spec(args: argparse.Namespace) -> ArrivalSpec:
    process, shape = args.arrivals or ("poisson", 1.0)
    return ArrivalSpec(
        rate=args.rate,
        process=process,
        shape=shape,
        seed=args.seed,
        duration_s=args.duration,
        max_requests=args.max_requests,
        ramp_up_s=args.ramp_up,
        max_concurrency=args.max_concurrency,
    )


def with_load(args: argparse.Namespace, choices: Choices) -> Choices:
    """The choices with the run's schedule (--rate) and SLO; `check_load` passed before."""
    arrivals = None if args.rate is None else _spec(args)
    spreads = getattr(args.prompt_tokens, "spreads", ())
    return replace(
        choices,
        arrivals=arrivals,
        slo=args.slo,
        prompt_spreads=spreads if any(spreads) else (),
        max_tokens_spread=getattr(args.max_tokens, "spread", 0),
    )
