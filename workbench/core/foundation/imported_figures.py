"""An aggregate-only imported run's figures in our terms: where it sits on a sweep chart and its
TTFT and decode speed, from the statistics the other tool wrote (`run_aggregates`).

A result file without per-request data (vLLM `--save-result` without `--save-detailed`, an
AIPerf summary) has no rows to summarize: these are the tool's own p50 (median) and mean.
Decode speed is 1000 / the tool's median inter-token time (TPOT for vLLM): the median of a
per-request speed is that of the per-request times, inverted. A figure the file lacks is None.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from workbench.core.foundation.reported_figures import reported

MEANS = ("mean", "avg")


@dataclass(frozen=True)
class ImportedFigures:
    """One imported run, as the sweep chart and the summary show it beside our runs."""

    run_id: str
    model: str
    tool: str
    prompt_tokens: float | None  # the mean prompt the tool sent, when it says
    concurrency: int | None
    ttft_ms: tuple[float | None, float | None]  # (median, mean)
    decode_tps: tuple[float | None, float | None]  # (median, from the mean inter-token time)

    def value(self, figure: str) -> float | None:
        """The point drawn for `figure`: the median, else the mean."""
        median, mean = getattr(self, figure, (None, None))
        return median if median is not None else mean


def _stat(
    aggregates: dict[tuple[str, str], float], metrics: tuple[str, ...], stats: tuple[str, ...]
) -> float | None:
    for metric in metrics:
        for stat in stats:
            if (metric, stat) in aggregates:
                return aggregates[(metric, stat)]
    return None


def _first(figures: dict[str, float], *keys: str) -> float | None:
    return next((figures[k] for k in keys if k in figures), None)


def _speed(ms: float | None) -> float | None:
    return 1000.0 / ms if ms else None


def _prompt_tokens(aggregates: dict[tuple[str, str], float]) -> float | None:
    """vLLM: total input tokens over completed requests; AIPerf and guidellm: their mean."""
    completed = aggregates.get(("completed", "value"))
    total = aggregates.get(("total_input_tokens", "value"))
    if completed and total:
        return total / completed
    return _stat(aggregates, ("input_sequence_length", "prompt_token_count"), MEANS)


def imported_figures(
    run_id: str, config: dict[str, Any], aggregates: dict[tuple[str, str], float]
) -> ImportedFigures | None:
    """The figures of an imported run's aggregates; None when it is not an imported run."""
    source = config.get("imported")
    if not isinstance(source, dict) or not aggregates:
        return None
    own = reported(aggregates)[0]  # the file's figures under our vocabulary
    targets = config.get("targets") or [{}]
    concurrency = config.get("concurrency")
    return ImportedFigures(
        run_id=run_id,
        model=str(targets[0].get("model") or "?"),
        tool=str(source.get("tool") or "?"),
        prompt_tokens=_prompt_tokens(aggregates),
        concurrency=int(concurrency) if isinstance(concurrency, int | float) else None,
        ttft_ms=(_first(own, "median_ttft_ms"), _first(own, "mean_ttft_ms")),
        decode_tps=(
            _speed(_first(own, "median_tpot_ms", "median_itl_ms")),
            _speed(_first(own, "mean_tpot_ms", "mean_itl_ms")),
        ),
    )
