"""guidellm `benchmarks.json` / `.yaml`: the layout is told from the content; 0.8 is read by
`guidellm_report`, the GenerativeBenchmarksReport of guidellm 0.2-0.3 here.

{"benchmarks": [{"type_": "generative_benchmark", "args": {"strategy": {"type_":
"concurrent", "streams": N} | {"type_": "constant" | "poisson", "rate": R} | ...},
"worker": {"backend_target": URL, "backend_model": MODEL}, "metrics": {NAME: {"successful":
{"mean", "median", "std_dev", "percentiles": {"p50", "p90", "p99", ...}}}}, "requests":
{"successful" | "errored" | "incomplete": [{"prompt_tokens", "output_tokens", "start_time",
"end_time", "first_token_time", "last_token_time" (epoch s), "output", "error"?}]}}]}.
One run per benchmark of the report (a sweep holds several).
"""

from __future__ import annotations

from typing import Any

from workbench.core.foundation.results import RequestResult
from workbench.core.result_files import guidellm_report
from workbench.core.result_files._common import (
    ImportedRun,
    RequestFigures,
    ResultFileError,
    count,
    mapping,
    number,
    request_row,
    sequence,
    text,
)

_STATS = {"mean": "mean", "median": "median", "std_dev": "std", "min": "min", "max": "max"}


def looks_like_guidellm(document: dict[str, Any]) -> bool:
    benchmarks = document.get("benchmarks")
    return (
        isinstance(benchmarks, list)
        and bool(benchmarks)
        and all(isinstance(b, dict) and ("metrics" in b or "requests" in b) for b in benchmarks)
    )


def _version(document: dict[str, Any], file_name: str) -> str | None:
    metadata = mapping(document.get("metadata"), file_name, "metadata")
    for key in ("guidellm_version", "version"):
        if metadata.get(key) is not None:
            return text(metadata[key], file_name, f"metadata.{key}")
    return None


LAYOUTS = "0.2-0.3 (benchmarks[].args.strategy) and 0.8 (report version 2, config.strategy)"


def _is_legacy(document: dict[str, Any]) -> bool:
    benchmarks = document["benchmarks"]
    return isinstance(benchmarks[0], dict) and (
        "args" in benchmarks[0] or "worker" in benchmarks[0]
    )


def read(document: dict[str, Any], file_name: str, sha256: str) -> list[ImportedRun]:
    version = _version(document, file_name)
    if guidellm_report.is_report(document):
        return guidellm_report.read(document, file_name, sha256, version)
    if not _is_legacy(document):
        metadata = document.get("metadata")
        schema = metadata.get("version") if isinstance(metadata, dict) else None
        raise ResultFileError(
            f"{file_name}: a guidellm benchmarks file of a layout not yet read (schema "
            f"{schema if schema is not None else 'unnamed'}, guidellm {version or 'unnamed'}); "
            f"supported: {LAYOUTS}. Import guidellm's per-request data another way, or file "
            "an issue with the file attached"
        )
    runs = []
    for index, benchmark in enumerate(sequence(document["benchmarks"], file_name, "benchmarks")):
        where = f"benchmarks[{index}]"
        args = mapping(benchmark.get("args"), file_name, f"{where}.args")
        strategy = mapping(args.get("strategy"), file_name, f"{where}.args.strategy")
        worker = mapping(benchmark.get("worker"), file_name, f"{where}.worker")
        kind = strategy.get("type_")
        streams = 1 if kind == "synchronous" else strategy.get("streams")
        run = ImportedRun(
            tool="guidellm",
            tool_version=version,
            file_name=file_name,
            sha256=sha256,
            index=index,
            model=text(worker.get("backend_model"), file_name, f"{where}.worker.backend_model"),
            base_url=text(
                worker.get("backend_target"), file_name, f"{where}.worker.backend_target"
            ),
            concurrency=count(streams, file_name, f"{where}.args.strategy.streams"),
            request_rate=number(strategy.get("rate"), file_name, f"{where}.args.strategy.rate"),
            extra={"strategy": kind} if kind else {},
        )
        _aggregates(run, mapping(benchmark.get("metrics"), file_name, f"{where}.metrics"), where)
        requests = mapping(benchmark.get("requests"), file_name, f"{where}.requests")
        run.results = _requests(run, requests, where)
        runs.append(run)
    return runs


def _aggregates(run: ImportedRun, metrics: dict[str, Any], where: str) -> None:
    name = run.file_name
    for metric, groups in metrics.items():
        at = f"{where}.metrics.{metric}.successful"
        block = mapping(
            mapping(groups, name, f"{where}.metrics.{metric}").get("successful"), name, at
        )
        for key, stat in _STATS.items():
            if block.get(key) is not None:
                run.aggregates[(metric, stat)] = number(block[key], name, f"{at}.{key}") or 0.0
        percentiles = mapping(block.get("percentiles"), name, f"{at}.percentiles")
        for key, value in percentiles.items():
            if value is not None:
                run.aggregates[(metric, key)] = (
                    number(value, name, f"{at}.percentiles.{key}") or 0.0
                )


def _requests(run: ImportedRun, requests: dict[str, Any], where: str) -> list[RequestResult]:
    name = run.file_name
    rows: list[RequestResult] = []
    for status in ("successful", "errored", "incomplete"):
        for i, record in enumerate(
            sequence(requests.get(status, []), name, f"{where}.requests.{status}")
        ):
            at = f"{where}.requests.{status}[{i}]"
            record = mapping(record, name, at)
            start = number(record.get("start_time"), name, f"{at}.start_time")
            first = number(record.get("first_token_time"), name, f"{at}.first_token_time")
            last = number(record.get("last_token_time"), name, f"{at}.last_token_time")
            end = number(record.get("end_time"), name, f"{at}.end_time")
            error = text(record.get("error"), name, f"{at}.error")
            if status != "successful" and not error:
                error = f"guidellm: {status} request"
            figures = RequestFigures(
                ttft_ms=_since(start, first),
                itls_ms=None,  # guidellm keeps the first and last token times, not each gap
                e2e_ms=_since(start, end),
                prompt_tokens=count(record.get("prompt_tokens"), name, f"{at}.prompt_tokens"),
                completion_tokens=count(record.get("output_tokens"), name, f"{at}.output_tokens"),
                error=error,
                started_at=start,
                text=text(record.get("output"), name, f"{at}.output") or "",
                last_token_ms=_since(start, last),
            )
            rows.append(request_row(run, len(rows), figures))
    return rows


def _since(start: float | None, moment: float | None) -> float | None:
    """Milliseconds from the request's start to `moment` (epoch seconds)."""
    return None if start is None or moment is None else (moment - start) * 1000
