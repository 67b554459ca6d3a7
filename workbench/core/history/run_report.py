"""A run as one JSON document: its configuration, vLLM-named aggregates per model, row counts.

`bench --json`, `bench --output DIR` (run.json) and `history show RUN --json` print the same
document, so a script reads any of them the same way (schema in docs/json.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from workbench.core.foundation.metrics import derive, percentile
from workbench.core.foundation.results import RequestResult
from workbench.core.history.route_compare import ROUTE_SCHEMA, LevelComparison, levels_json
from workbench.core.load.slo import goodput
from workbench.core.result_files import vllm

SCHEMA = "workbench.run/1"
# vLLM's per-request lists and its echo of settings: not aggregates
_NOT_AGGREGATES = frozenset(
    {
        "input_lens",
        "output_lens",
        "ttfts",
        "itls",
        "start_times",
        "generated_texts",
        "errors",
        vllm.LAST_TOKEN,
        "date",
        "backend",
        "endpoint_type",
        "label",
        "model_id",
        "tokenizer_id",
        "base_url",
        "request_rate",
        "burstiness",
        "request_goodput",
    }
)


def aggregates(results: Sequence[RequestResult]) -> dict[str, Any]:
    """Mean, median, std, p90/p95/p99 of ttft/tpot/itl/e2el in ms (`mean_ttft_ms`…) and the
    request and output throughput of the measured rows, as `vllm bench serve` names them."""
    document = vllm.export([r for r in results if not r.warmup], {})
    figures = {k: v for k, v in document.items() if k not in _NOT_AGGREGATES}
    return figures | load_figures(results)


def load_figures(results: Sequence[RequestResult]) -> dict[str, Any]:
    """An open-loop run's lateness and latency from scheduled time (p50/p99 of dispatch_ms,
    ttft_from_scheduled_ms, e2e_from_scheduled_ms); with an SLO, vLLM's `request_goodput`
    and the share of requests that met it (`slo_attainment`, 0..1)."""
    pairs = [(r, derive(r)) for r in results if r.phase == "measured"]
    figures: dict[str, Any] = {}
    if any(r.scheduled_s is not None for r, _ in pairs):
        for name in ("dispatch_ms", "ttft_from_scheduled_ms", "e2e_from_scheduled_ms"):
            values = [v for _, m in pairs if (v := getattr(m, name)) is not None]
            figures[f"median_{name}"] = percentile(values, 50)
            figures[f"p99_{name}"] = percentile(values, 99)
    good = goodput(pairs)
    if good is not None:
        figures["request_goodput"] = good.request_goodput
        figures["slo_attainment"] = good.attainment
        figures["slo_met"] = good.met
    return figures


def run_document(
    run_id: str | None, config: dict[str, Any], results: Sequence[RequestResult]
) -> dict[str, Any]:
    """The run: `config` as planned, aggregates per model (in plan order), and row counts."""
    models: dict[str, list[RequestResult]] = {}
    for result in results:
        models.setdefault(result.model, []).append(result)
    measured = [r for r in results if r.phase == "measured"]
    return {
        "schema": SCHEMA,
        "run_id": run_id,
        "config": config,
        "aggregates": {model: aggregates(rows) for model, rows in models.items()},
        "rows": {
            "total": len(results),
            "measured": len(measured),
            "failed": sum(1 for r in measured if not r.ok),
            "warmup": sum(1 for r in results if r.phase == "warmup"),
            "calibration": sum(1 for r in results if r.phase == "calibration"),
        },
    }


def route_document(run: dict[str, Any], levels: Sequence[LevelComparison]) -> dict[str, Any]:
    """A `--compare-route` run: the run document with the route comparison per concurrency level
    in place of the per-model aggregates, which would pool both routes of one model id."""
    rest = {k: v for k, v in run.items() if k not in ("schema", "aggregates")}
    return {"schema": ROUTE_SCHEMA, **rest, "levels": levels_json(levels)}
