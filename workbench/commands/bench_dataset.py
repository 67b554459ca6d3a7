"""`workbench bench --dataset PATH` (and `--trace-speed X`): the file's requests instead of
built prompts; a trace's timestamps are its schedule (core/datasets/, docs/metrics.md).

`--trace-speed`, not `--time-scale`: `bench --time-scale` already sets the built-in provider's
simulation speed (docs/local-provider.md), and a trace is compressed apart from it."""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path
from statistics import fmean

from workbench.commands.common import float_in
from workbench.core.arrivals import MAX_RATE, ArrivalSpec
from workbench.core.datasets import Dataset, DatasetError, load_dataset
from workbench.core.plan import Choices
from workbench.core.prompts import MAX_TARGET_TOKENS, MIN_TARGET_TOKENS, heuristic_tokens

MAX_TRACE_SPEED = 10_000.0
# flags a trace's own clock replaces, as argparse names them
_CLOCK_FLAGS = ("rate", "arrivals", "ramp_up")


def add_dataset_args(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group(
        "real traffic (--dataset)",
        "Send a file's requests instead of built prompts. The format is told from the "
        "content: OpenAI-style JSONL (messages, optional max_tokens per line), ShareGPT JSON "
        "(conversations; each human turn sends the conversation so far), a Mooncake trace "
        "JSONL (timestamp in ms, input_length, output_length, hash_ids: equal leading hash ids "
        "send byte-identical 512-token prefix blocks) or the Azure LLM inference trace CSV "
        "(TIMESTAMP, ContextTokens, GeneratedTokens).",
    )
    g.add_argument(
        "--dataset",
        type=Path,
        metavar="PATH",
        help="a dataset or trace file. A trace (Mooncake, Azure) is replayed on its own "
        "clock, open loop: its timestamps are the schedule (--duration, --max-requests and "
        "--max-concurrency apply; --rate does not). Other datasets go at --rate R, or "
        "closed loop at --concurrency, one request per row (--repeats N: N requests, the "
        "file again from the top when N is larger). --prompt-tokens is not used",
    )
    g.add_argument(
        "--trace-speed",
        type=float_in(0, MAX_TRACE_SPEED, "the trace speed", low_open=True),
        default=None,
        metavar="X",
        help="replay a trace X times faster (2: an hour of trace in 30 minutes; 0.5: slower); "
        "default 1, its own pace. Not --time-scale: that flag sets the built-in provider's "
        "simulation speed",
    )


def check_dataset(args: argparse.Namespace) -> str | None:
    """Load the file (once) and check the flags around it; a problem in words, else None.
    Sets `args.loaded_dataset` for `with_dataset`."""
    args.loaded_dataset = None
    if args.dataset is None:
        if args.trace_speed is not None:
            return "--trace-speed replays a trace: add --dataset PATH (a Mooncake or Azure trace)"
        return None
    if args.compare_route:
        return "--compare-route sends built prompts; drop --dataset (or run the route alone)"
    try:
        dataset = load_dataset(args.dataset)
    except DatasetError as exc:
        return str(exc)
    args.loaded_dataset = dataset
    if dataset.timed:
        clock = [name for name in _CLOCK_FLAGS if getattr(args, name) not in (None, 0.0)]
        if clock:
            flags = ", ".join("--" + name.replace("_", "-") for name in clock)
            return (
                f"{args.dataset} is a trace with its own clock: drop {flags} "
                "(--trace-speed X replays it X times faster)"
            )
        if args.concurrency != [1] or args.repeats != 1:
            return (
                f"{args.dataset} is a trace: its rows are the requests and its timestamps "
                "their schedule; drop --concurrency and --repeats (cap requests in flight with "
                "--max-concurrency N)"
            )
        try:
            _trace_spec(args, dataset)
        except ValueError as exc:
            return f"{args.dataset}: {exc}"
        return None
    if args.trace_speed is not None:
        return f"{args.dataset} has no timestamps to replay: drop --trace-speed (or use --rate R)"
    if args.rate is not None and args.duration is None and args.max_requests is None:
        args.max_requests = len(dataset.requests)  # one request per row
    return None


def _trace_spec(args: argparse.Namespace, dataset: Dataset) -> ArrivalSpec:
    offsets = dataset.offsets(args.trace_speed or 1.0)
    if args.duration is not None:  # the part of a long trace the run replays
        offsets = tuple(t for t in offsets if t < args.duration) or offsets[:1]
    span = offsets[-1]
    return ArrivalSpec(
        rate=min(MAX_RATE, len(offsets) / span) if span > 0 else MAX_RATE,  # for show only
        seed=args.seed,
        duration_s=args.duration,
        max_requests=args.max_requests,
        max_concurrency=args.max_concurrency,
        offsets=offsets,
    )


def _typical_length(dataset: Dataset) -> int:
    """The cell's prompt length: the mean of the file's prompts (its rows say their own)."""
    sizes = [
        r.input_tokens
        if r.input_tokens is not None
        else sum(heuristic_tokens(text) for _, text in r.messages)
        for r in dataset.requests
    ]
    return min(MAX_TARGET_TOKENS, max(MIN_TARGET_TOKENS, round(fmean(sizes))))


def with_dataset(args: argparse.Namespace, choices: Choices) -> Choices:
    """The choices with the file's requests; `check_dataset` passed before."""
    dataset: Dataset | None = getattr(args, "loaded_dataset", None)
    if dataset is None:
        return choices
    chosen = replace(
        choices,
        dataset=dataset,
        prompt_lengths=(_typical_length(dataset),),
        prompt_spreads=(),
        kind="comparison",
    )
    if dataset.timed:
        return replace(chosen, arrivals=_trace_spec(args, dataset), repeats=1)
    if choices.arrivals is None and args.repeats == 1:
        return replace(chosen, repeats=len(dataset.requests))
    return chosen
