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

from typing import Any

from workbench.core.result_files._common import (
    ImportedRun,
    RequestFigures,
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


def read_jsonl(records: list[Any], file_name: str, sha256: str) -> list[ImportedRun]:
    run = ImportedRun(
        tool="aiperf", tool_version=None, file_name=file_name, sha256=sha256, index=0,
        model=None, base_url=None, concurrency=None, request_rate=None,
    )  # fmt: skip
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
        output = "output_sequence_length"
        if output not in metrics:
            output = "output_token_count"
        figures = RequestFigures(
            ttft_ms=_ms(metrics, "time_to_first_token", file_name, at),
            itls_ms=_chunk_gaps(metrics, file_name, at),
            e2e_ms=_ms(metrics, "request_latency", file_name, at),
            prompt_tokens=_tokens(metrics, "input_sequence_length", file_name, at),
            completion_tokens=_tokens(metrics, output, file_name, at),
            error=message,
            started_at=None if start_ns is None else start_ns / 1e9,
            warmup=metadata.get("benchmark_phase") == "warmup",
        )
        run.results.append(request_row(run, i, figures))
    return [run]


def read_summary(document: dict[str, Any], file_name: str, sha256: str) -> list[ImportedRun]:
    config = mapping(document.get("input_config"), file_name, "input_config")
    endpoint = mapping(config.get("endpoint"), file_name, "input_config.endpoint")
    where = "input_config.loadgen"
    loadgen = mapping(config.get("loadgen"), file_name, where)
    models = endpoint.get("model_names")
    model = None
    if models is not None:
        names = sequence(models, file_name, "input_config.endpoint.model_names")
        model = text(names[0], file_name, "input_config.endpoint.model_names[0]") if names else None
    version = document.get("aiperf_version") or document.get("genai_perf_version")
    run = ImportedRun(
        tool="genai-perf" if "genai_perf_version" in document else "aiperf",
        tool_version=text(version, file_name, "aiperf_version"),
        file_name=file_name,
        sha256=sha256,
        index=0,
        model=model,
        base_url=text(endpoint.get("url"), file_name, "input_config.endpoint.url"),
        concurrency=count(loadgen.get("concurrency"), file_name, f"{where}.concurrency"),
        request_rate=number(loadgen.get("request_rate"), file_name, f"{where}.request_rate"),
    )
    for metric, block in _metric_blocks(document).items():
        if not isinstance(block, dict) or "unit" not in block:
            continue
        for stat, value in block.items():
            if stat == "unit" or value is None or isinstance(value, dict | list | str):
                continue
            run.aggregates[(metric, stat)] = number(value, file_name, f"{metric}.{stat}") or 0.0
    return [run]
