"""AIPerf (and GenAI-Perf) profile exports, as AIPerf 0.8-0.14 documents them
(docs.nvidia.com/aiperf: "Working with Profile Export Files", "profile_export_aiperf.json
Schema").

- `profile_export.jsonl`: one record a request, {"metadata": {"request_start_ns",
  "request_end_ns", "benchmark_phase": "profiling" | "warmup", ...}, "metrics": {NAME:
  {"value": V, "unit": U}}, "error": null | {"code", "type", "message"}}; NAME among
  time_to_first_token, request_latency, inter_token_latency, input_sequence_length,
  output_sequence_length (or output_token_count), inter_chunk_latency (a list).
- `profile_export_aiperf.json` / GenAI-Perf's `profile_export_genai_perf.json`: aggregates,
  {NAME: {"unit", "avg", "min", "max", "p50", "p90", "p99", "std", ...}, "input_config":
  {"endpoint": {"model_names": [...], "url": ...}, "loadgen": {"concurrency",
  "request_rate"}}}; older AIPerf nests the metrics under "records".
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from workbench.core.result_files._common import (
    ImportedRun,
    RequestFigures,
    ResultFileError,
    count,
    fail,
    mapping,
    number,
    numbers,
    request_row,
    sequence,
    text,
)

_TIME_UNITS = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1000.0, "sec": 1000.0}
_KNOWN = {"time_to_first_token", "request_latency", "inter_token_latency"}
_COUNTS = {"count"}  # a statistic that is no time, whatever the metric's unit


def looks_like_aiperf_jsonl(records: list[Any]) -> bool:
    return bool(records) and all(
        isinstance(r, dict) and isinstance(r.get("metrics"), dict) and "metadata" in r
        for r in records
    )


def _metric_blocks(document: dict[str, Any]) -> dict[str, Any]:
    records = document.get("records")
    return records if isinstance(records, dict) else document


def looks_like_aiperf_summary(document: dict[str, Any]) -> bool:
    blocks = _metric_blocks(document)
    return any(isinstance(blocks.get(name), dict) and "unit" in blocks[name] for name in _KNOWN)


def _ms(metrics: dict[str, Any], name: str, file_name: str, at: str) -> float | None:
    """A time metric {"value", "unit"} of one record, in milliseconds."""
    where = f"{at}.metrics.{name}"
    block = mapping(metrics.get(name), file_name, where)
    if block.get("value") is None:
        return None
    return (number(block["value"], file_name, f"{where}.value") or 0.0) * _scale(
        block, file_name, where
    )


def _scale(block: dict[str, Any], file_name: str, where: str) -> float:
    """Milliseconds per unit of a time metric (ms when the block names none)."""
    unit = block.get("unit", "ms")
    if not isinstance(unit, str) or unit not in _TIME_UNITS:
        raise fail(
            file_name, f"{where}.unit", f"is {unit!r}, expected one of {sorted(_TIME_UNITS)}"
        )
    return _TIME_UNITS[unit]


def _tokens(metrics: dict[str, Any], name: str, file_name: str, at: str) -> int | None:
    where = f"{at}.metrics.{name}"
    return count(mapping(metrics.get(name), file_name, where).get("value"), file_name, where)


def _chunk_gaps(metrics: dict[str, Any], file_name: str, at: str) -> list[float] | None:
    """inter_chunk_latency: the gaps between the chunks after the first, in milliseconds."""
    where = f"{at}.metrics.inter_chunk_latency"
    if metrics.get("inter_chunk_latency") is None:
        return None
    block = mapping(metrics["inter_chunk_latency"], file_name, where)
    return numbers(block.get("value"), file_name, f"{where}.value", _scale(block, file_name, where))


def _prompt_setting(records: list[Any], file_name: str) -> int | None:
    """The prompt length the run asked for: the median of AIPerf's own input lengths (one
    setting for the run, not one per request: a run at one setting is no sweep)."""
    lengths = []
    for i, record in enumerate(records):
        metrics = mapping(mapping(record, file_name, f"line {i + 1}").get("metrics"), file_name,
                          f"line {i + 1}.metrics")  # fmt: skip
        if metrics.get("input_sequence_length") is not None:
            length = _tokens(metrics, "input_sequence_length", file_name, f"line {i + 1}")
            if length is not None:
                lengths.append(length)
    return statistics.median_low(lengths) if lengths else None


def read_jsonl(records: list[Any], file_name: str, sha256: str) -> list[ImportedRun]:
    run = ImportedRun(
        tool="aiperf", tool_version=None, file_name=file_name, sha256=sha256, index=0,
        model=None, base_url=None, concurrency=None, request_rate=None,
    )  # fmt: skip
    target = _prompt_setting(records, file_name)
    for i, record in enumerate(records):
        at = f"line {i + 1}"
        metadata = mapping(record.get("metadata"), file_name, f"{at}.metadata")
        metrics = mapping(record.get("metrics"), file_name, f"{at}.metrics")
        error = record.get("error")
        message = None
        if error is not None:
            error = mapping(error, file_name, f"{at}.error")
            message = (
                " ".join(
                    str(error[k]) for k in ("code", "type", "message") if error.get(k) is not None
                )
                or "aiperf: failed request"
            )
        start_ns = number(
            metadata.get("request_start_ns"), file_name, f"{at}.metadata.request_start_ns"
        )
        # the server's usage counts where AIPerf kept them; its own tokenizer's count else
        prompt = "usage_prompt_tokens"
        if metrics.get(prompt) is None:
            prompt = "input_sequence_length"
        output = "usage_completion_tokens"
        if metrics.get(output) is None:
            output = "output_sequence_length"
        if metrics.get(output) is None:
            output = "output_token_count"
        figures = RequestFigures(
            ttft_ms=_ms(metrics, "time_to_first_token", file_name, at),
            itls_ms=_chunk_gaps(metrics, file_name, at),
            e2e_ms=_ms(metrics, "request_latency", file_name, at),
            prompt_tokens=_tokens(metrics, prompt, file_name, at),
            prompt_target=target,
            completion_tokens=_tokens(metrics, output, file_name, at),
            error=message,
            started_at=None if start_ns is None else start_ns / 1e9,
            warmup=metadata.get("benchmark_phase") == "warmup",
        )
        run.results.append(request_row(run, i, figures))
    starts = [r.started_at for r in run.results if r.started_at]
    run.date = min(starts) if starts else None  # the file's own date: its first request
    return [run]


def _first(value: Any, file_name: str, where: str, key: str | None = None) -> Any:
    """The first entry of a list (its `key` field when given); None for an absent or empty one."""
    if value is None:
        return None
    items = sequence(value, file_name, where)
    if not items:
        return None
    return mapping(items[0], file_name, f"{where}[0]").get(key) if key else items[0]


def _summary_settings(document: dict[str, Any], file_name: str) -> dict[str, Any]:
    """Model, URL and load as AIPerf 0.13 writes them (input_config.models.items[].name,
    endpoint.urls[], phases[].concurrency), else as 0.8-0.12 did (endpoint.model_names,
    endpoint.url, loadgen.concurrency)."""
    config = mapping(document.get("input_config"), file_name, "input_config")
    endpoint = mapping(config.get("endpoint"), file_name, "input_config.endpoint")
    models = mapping(config.get("models"), file_name, "input_config.models")
    phase = _first(config.get("phases"), file_name, "input_config.phases") or {}
    phase = mapping(phase, file_name, "input_config.phases[0]")
    loadgen = mapping(config.get("loadgen"), file_name, "input_config.loadgen")
    model = _first(models.get("items"), file_name, "input_config.models.items", "name")
    if model is None:
        model = _first(endpoint.get("model_names"), file_name, "input_config.endpoint.model_names")
    url = _first(endpoint.get("urls"), file_name, "input_config.endpoint.urls")
    where = "input_config.phases[0]" if "concurrency" in phase else "input_config.loadgen"
    load = phase if "concurrency" in phase or "request_rate" in phase else loadgen
    return {
        "model": text(model, file_name, "input_config.models.items[0].name"),
        "base_url": text(url if url is not None else endpoint.get("url"), file_name,
                         "input_config.endpoint.urls[0]"),
        "concurrency": count(load.get("concurrency"), file_name, f"{where}.concurrency"),
        "request_rate": number(load.get("request_rate"), file_name, f"{where}.request_rate"),
    }  # fmt: skip


def _date(value: Any, file_name: str) -> float | None:
    """AIPerf's `start_time`, an ISO date in the local time of the machine that ran it."""
    if value is None:
        return None
    try:
        return datetime.fromisoformat(text(value, file_name, "start_time") or "").timestamp()
    except (ValueError, OverflowError, OSError):
        raise fail(file_name, "start_time", f"is {value!r}, expected an ISO date") from None


def read_summary(document: dict[str, Any], file_name: str, sha256: str) -> list[ImportedRun]:
    version = document.get("aiperf_version") or document.get("genai_perf_version")
    run = ImportedRun(
        tool="genai-perf" if "genai_perf_version" in document else "aiperf",
        tool_version=text(version, file_name, "aiperf_version"),
        file_name=file_name,
        sha256=sha256,
        index=0,
        date=_date(document.get("start_time"), file_name),
        **_summary_settings(document, file_name),
    )
    for metric, block in _metric_blocks(document).items():
        if not isinstance(block, dict) or "unit" not in block:
            continue
        # the latencies in ms whatever unit the file chose; other figures in their own unit
        scale = _scale(block, file_name, metric) if metric in _KNOWN else 1.0
        for stat, value in block.items():
            if stat == "unit" or value is None or isinstance(value, dict | list | str):
                continue
            figure = number(value, file_name, f"{metric}.{stat}") or 0.0
            run.aggregates[(metric, stat)] = figure * (scale if stat not in _COUNTS else 1.0)
    return [run]


SUMMARY = "profile_export_aiperf.json"


def with_summary(
    runs: list[ImportedRun], path: Path, read_result_file: Callable[[Path], list[ImportedRun]]
) -> list[ImportedRun]:
    """The records' run with what AIPerf's own summary beside them says (model, URL, load and
    its figures: requests/s and tokens/s over AIPerf's duration, not ours), when that summary
    counts the same requests. The records stay the file's; the summary only adds.
    `read_result_file`: the package's bounded reader, handed in (it imports this module)."""
    summary_path = path.with_name(SUMMARY)
    [run] = runs
    if path.name == SUMMARY or not summary_path.is_file():
        return runs
    try:
        summaries = read_result_file(summary_path)
    except ResultFileError:
        return runs  # a broken summary takes nothing from the records
    summary = summaries[0] if len(summaries) == 1 and summaries[0].tool == "aiperf" else None
    measured = sum(1 for r in run.results if not r.warmup and r.ok)
    if summary is None or summary.aggregates.get(("request_count", "avg")) != measured:
        return runs
    run.model, run.base_url = summary.model, summary.base_url
    run.concurrency, run.request_rate = summary.concurrency, summary.request_rate
    run.tool_version, run.date = summary.tool_version, summary.date or run.date
    run.aggregates = dict(summary.aggregates)
    run.extra = {**run.extra, "summary": SUMMARY}
    for row in run.results:
        row.model, row.provider, row.base_url = (
            run.model or "",
            run.base_url or "",
            run.base_url or "",
        )
        row.concurrency = run.concurrency or 0
    return runs
