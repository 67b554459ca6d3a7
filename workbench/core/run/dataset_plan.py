"""A dataset's place in a plan (`bench --dataset`, and the app when it offers one): the cell's
prompt length, the request count, and a trace's own schedule. One home for the CLI and the GUI.
"""

from __future__ import annotations

from dataclasses import replace
from statistics import fmean

from workbench.core.datasets import Dataset
from workbench.core.load.arrivals import MAX_RATE, ArrivalSpec
from workbench.core.load.prompts import MAX_TARGET_TOKENS, MIN_TARGET_TOKENS, heuristic_tokens
from workbench.core.run.plan import Choices

MAX_TRACE_SPEED = 10_000.0


def trace_schedule(
    dataset: Dataset,
    speed: float = 1.0,
    duration_s: float | None = None,
    max_requests: int | None = None,
    max_concurrency: int | None = None,
) -> ArrivalSpec:
    """A trace's timestamps as the cell's schedule, `speed` times faster, cut at `duration_s`.
    ValueError names the fix (a trace over a day, say)."""
    offsets = dataset.offsets(speed)
    if duration_s is not None:  # the part of a long trace the run replays
        offsets = tuple(t for t in offsets if t < duration_s) or offsets[:1]
    span = offsets[-1]
    return ArrivalSpec(
        rate=min(MAX_RATE, len(offsets) / span) if span > 0 else MAX_RATE,  # for show only
        duration_s=duration_s,
        max_requests=max_requests,
        max_concurrency=max_concurrency,
        offsets=offsets,
    )


def typical_length(dataset: Dataset) -> int:
    """The cell's prompt length: the mean of the file's prompts (its rows say their own)."""
    sizes = [
        r.input_tokens
        if r.input_tokens is not None
        else sum(heuristic_tokens(text) for _, text in r.messages)
        for r in dataset.requests
    ]
    return min(MAX_TARGET_TOKENS, max(MIN_TARGET_TOKENS, round(fmean(sizes))))


def with_dataset(
    choices: Choices, dataset: Dataset, trace: ArrivalSpec | None = None, repeats: int | None = None
) -> Choices:
    """The choices sending `dataset`: a trace on `trace` (its schedule), other datasets on the
    choices' own schedule, else closed loop with `repeats` requests (default: one per row)."""
    chosen = replace(
        choices,
        dataset=dataset,
        prompt_lengths=(typical_length(dataset),),
        prompt_spreads=(),
        kind="comparison",
    )
    if dataset.timed:
        return replace(chosen, arrivals=trace or trace_schedule(dataset), repeats=1)
    if choices.arrivals is None:
        return replace(chosen, repeats=repeats or len(dataset.requests))
    return chosen
