"""`workbench bench --dataset PATH` (and `--trace-speed X`): the file's requests instead of
built prompts; a trace's timestamps are its schedule (core/datasets/, docs/metrics.md).

`--trace-speed`, not `--time-scale`: `bench --time-scale` already sets the built-in provider's
simulation speed (docs/local-provider.md), and a trace is compressed apart from it."""

from __future__ import annotations

import argparse
from pathlib import Path

from workbench.commands.common import float_in
from workbench.core.datasets import Dataset, DatasetError, load_dataset
from workbench.core.load.arrivals import ArrivalSpec
from workbench.core.run.dataset_plan import MAX_TRACE_SPEED, trace_schedule
from workbench.core.run.dataset_plan import with_dataset as dataset_choices
from workbench.core.run.plan import Choices

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
    return trace_schedule(
        dataset, args.trace_speed or 1.0, args.duration, args.max_requests, args.max_concurrency
    )


def with_dataset(args: argparse.Namespace, choices: Choices) -> Choices:
    """The choices with the file's requests; `check_dataset` passed before."""
    dataset: Dataset | None = getattr(args, "loaded_dataset", None)
    if dataset is None:
        return choices
    trace = _trace_spec(args, dataset) if dataset.timed else None
    return dataset_choices(
        choices, dataset, trace, repeats=None if args.repeats == 1 else args.repeats
    )
