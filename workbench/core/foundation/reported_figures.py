"""A run's figures under one vocabulary, vLLM's names with their unit suffix (docs/metrics.md,
"JSON vocabulary"): what the tool that wrote an imported file reported, and what we derive
only where the file is silent.

A file's own figures are kept in `run_aggregates` under the tool's names ((metric, statistic)
-> value, times in ms unless the name says otherwise); `reported` renames them. A run with rows
has every figure computed from them as well (`run_report.aggregates`); `figures` takes the
file's where it has one and names the rest as derived.
"""

from __future__ import annotations

import re
from typing import Any

# vLLM's run-wide keys (`bench serve --save-result`): the vocabulary's totals, one home for
# the importer (result_files/vllm.py) and the names below
TOTALS = (
    "duration",
    "completed",
    "failed",
    "total_input_tokens",
    "total_output_tokens",
    "request_throughput",
    "request_goodput",
    "output_throughput",
    "total_token_throughput",
    "max_output_tokens_per_s",
    "max_concurrent_requests",
)

# a tool's latency metric -> (our metric, ms per unit of the tool's figure)
_LATENCIES: dict[str, tuple[str, float]] = {
    # vLLM bench serve
    "ttft": ("ttft", 1.0),
    "tpot": ("tpot", 1.0),
    "itl": ("itl", 1.0),
    "e2el": ("e2el", 1.0),
    # AIPerf / GenAI-Perf summaries (the reader scales their units to ms)
    "time_to_first_token": ("ttft", 1.0),
    "inter_token_latency": ("tpot", 1.0),  # per request (e2e - TTFT) / (tokens - 1): a TPOT
    "request_latency": ("e2el", 1.0),
    # guidellm 0.8 (request_latency is in seconds there; its reader names it so)
    "time_to_first_token_ms": ("ttft", 1.0),
    "time_per_output_token_ms": ("tpot", 1.0),
    "inter_token_latency_ms": ("itl", 1.0),
    "request_latency_s": ("e2el", 1000.0),
}
# (a tool's metric, its statistic) -> our total
_TOTALS: dict[tuple[str, str], str] = {
    **{(name, "value"): name for name in TOTALS},
    ("benchmark_duration", "avg"): "duration",
    ("request_count", "avg"): "completed",
    ("error_request_count", "avg"): "failed",
    ("total_isl", "avg"): "total_input_tokens",
    ("total_output_tokens", "avg"): "total_output_tokens",
    ("request_throughput", "avg"): "request_throughput",
    ("output_token_throughput", "avg"): "output_throughput",
    ("total_token_throughput", "avg"): "total_token_throughput",
    # guidellm 0.8: its own run-level figures, kept by its reader under these names
    ("duration_s", "value"): "duration",
    ("requests_per_second", "mean"): "request_throughput",
    ("output_tokens_per_second", "mean"): "output_throughput",
    ("tokens_per_second", "mean"): "total_token_throughput",
    ("prompt_token_count", "total_sum"): "total_input_tokens",
    ("output_token_count", "total_sum"): "total_output_tokens",
}
_STATS = {"mean": "mean", "avg": "mean", "median": "median", "p50": "median", "std": "std"}
_STATS |= {"std_dev": "std", "min": "min", "max": "max"}
_PERCENTILE = re.compile(r"^p(\d+(?:\.\d+)?)$")
VOCABULARY = re.compile(r"^(mean|median|std|min|max|p\d+(?:\.\d+)?)_(ttft|tpot|itl|e2el)_ms$")


def _stat(statistic: str) -> str | None:
    if statistic in _STATS:
        return _STATS[statistic]
    match = _PERCENTILE.match(statistic)
    return f"p{match.group(1)}" if match else None


def reported(stored: dict[tuple[str, str], float]) -> tuple[dict[str, float], dict[str, Any]]:
    """A file's own figures: (those with a name in our vocabulary, the rest by the tool's
    names as {metric: {statistic: value}}). A figure is renamed, never recomputed."""
    figures: dict[str, float] = {}
    others: dict[str, Any] = {}
    for (metric, statistic), value in stored.items():
        stat = _stat(statistic)
        if metric in _LATENCIES and stat is not None:
            ours, scale = _LATENCIES[metric]
            key = f"{stat}_{ours}_ms"
            # p50 and median are the same figure: a file's own median wins over its p50
            if statistic == "p50" and key in figures:
                continue
            figures[key] = value * scale
        elif (metric, statistic) in _TOTALS:
            figures[_TOTALS[(metric, statistic)]] = value
        else:
            others.setdefault(metric, {})[statistic] = value
    return figures, others


def figures(
    imported: bool,
    computed: dict[str, Any] | None,
    stored: dict[tuple[str, str], float],
) -> tuple[dict[str, Any], list[str], dict[str, Any]]:
    """(the figures shown, the keys derived by us, the tool's other figures).

    `computed`: the aggregates of the run's rows (None for an aggregate-only import). For an
    imported run, a key the file states is the file's; every other computed key is derived."""
    own, others = reported(stored)
    if computed is None:
        return own, [], others
    shown = {**computed, **own}
    derived = sorted(k for k in computed if k not in own) if imported else []
    return shown, derived, others
