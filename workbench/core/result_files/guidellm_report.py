"""guidellm 0.8 `benchmarks.json` / `.yaml` (report `metadata.version` 2), as guidellm 0.8.1
writes it (tests/data/peers/guidellm-0.8.1/ holds a real one).

{"metadata": {"version": 2, "guidellm_version"}, "config": {"spec": {"backend": {"target",
"model"}, "data": [{"prompt_tokens", "output_tokens", ...}]}}, "benchmarks": [{"config":
{"strategy": {"type_": "concurrent", "max_concurrency", "streams"} | {"type_": "constant" |
"poisson", "rate"} | {"type_": "synchronous"}, "backend": {...}}, "start_time", "end_time",
"duration" (epoch s, s), "metrics": {"request_totals": {"successful", "errored", "incomplete",
"total"} (counts), NAME: {"successful": {"mean", "median", "std_dev", "min", "max", "count",
"total_sum", "percentiles": {"p001", "p01", ..., "p50", ..., "p999"}}}}, "requests":
{"successful" | "errored" | "incomplete": [{"request_start_time", "request_end_time" (epoch s),
"request_latency" (s), "time_to_first_token_ms", "prompt_tokens", "output_tokens", "output",
"info": {"error", "timings": {"last_token_iteration", ...}}}]}}]}.

guidellm's median is one of the values (the upper middle one), so it is kept as written,
never recomputed. `request_latency` is in seconds: kept as `request_latency_s`.
"""

from __future__ import annotations

from typing import Any

from workbench.core.foundation.results import RequestResult
from workbench.core.result_files._common import (
    ImportedRun,
    RequestFigures,
    count,
    mapping,
    number,
    request_row,
    sequence,
    text,
)

_STATS = ("mean", "median", "std_dev", "min", "max")
_SUMMED = ("prompt_token_count", "output_token_count")  # their sums: the run's token totals
_RENAMED = {"request_latency": "request_latency_s"}  # its figures are seconds


def is_report(document: dict[str, Any]) -> bool:
    """The 0.8 layout: each benchmark's strategy under `config.strategy`."""
    benchmarks = document.get("benchmarks") or [{}]
    first = benchmarks[0] if isinstance(benchmarks[0], dict) else {}
    return isinstance(first.get("config"), dict) and "strategy" in first["config"]


# guidellm's names of the percentiles below 10 and above 99
_PERCENTILES = {"p001": "p0.1", "p01": "p1", "p05": "p5", "p999": "p99.9"}


def read(
    document: dict[str, Any], file_name: str, sha256: str, version: str | None
) -> list[ImportedRun]:
    config = mapping(document.get("config"), file_name, "config")
    spec = mapping(config.get("spec"), file_name, "config.spec")
    data = [
        mapping(d, file_name, f"config.spec.data[{i}]")
        for i, d in enumerate(sequence(spec.get("data", []), file_name, "config.spec.data"))
    ]
    lengths = {d.get("prompt_tokens") for d in data}
    setting = (
        count(lengths.pop(), file_name, "config.spec.data[0].prompt_tokens")
        if len(lengths) == 1
        else None
    )
    runs = []
    for index, benchmark in enumerate(sequence(document["benchmarks"], file_name, "benchmarks")):
        where = f"benchmarks[{index}]"
        benchmark = mapping(benchmark, file_name, where)
        bconfig = mapping(benchmark.get("config"), file_name, f"{where}.config")
        strategy = mapping(bconfig.get("strategy"), file_name, f"{where}.config.strategy")
        backend = mapping(
            bconfig.get("backend") or spec.get("backend"), file_name, f"{where}.config.backend"
        )
        kind = strategy.get("type_")
        streams = (
            1 if kind == "synchronous" else strategy.get("max_concurrency", strategy.get("streams"))
        )
        run = ImportedRun(
            tool="guidellm",
            tool_version=version,
            file_name=file_name,
            sha256=sha256,
            index=index,
            model=text(backend.get("model"), file_name, f"{where}.config.backend.model"),
            base_url=text(backend.get("target"), file_name, f"{where}.config.backend.target"),
            concurrency=count(streams, file_name, f"{where}.config.strategy.max_concurrency"),
            request_rate=number(strategy.get("rate"), file_name, f"{where}.config.strategy.rate"),
            extra={
                k: v for k, v in (("strategy", kind), ("prompt_tokens", setting)) if v is not None
            },
            date=number(benchmark.get("start_time"), file_name, f"{where}.start_time"),
        )
        duration = number(benchmark.get("duration"), file_name, f"{where}.duration")
        if duration is not None:
            run.aggregates[("duration_s", "value")] = duration
        _aggregates(run, mapping(benchmark.get("metrics"), file_name, f"{where}.metrics"), where)
        requests = mapping(benchmark.get("requests"), file_name, f"{where}.requests")
        run.results = _requests(run, requests, where, setting)
        runs.append(run)
    return runs


def _aggregates(run: ImportedRun, metrics: dict[str, Any], where: str) -> None:
    name = run.file_name
    totals = mapping(metrics.get("request_totals"), name, f"{where}.metrics.request_totals")
    for status, ours in (("successful", "completed"), ("errored", "failed")):
        if totals.get(status) is not None:
            at = f"{where}.metrics.request_totals.{status}"
            run.aggregates[(ours, "value")] = float(count(totals[status], name, at) or 0)
    if totals.get("incomplete") is not None:
        at = f"{where}.metrics.request_totals.incomplete"
        run.aggregates[("incomplete", "value")] = float(count(totals["incomplete"], name, at) or 0)
    for metric, groups in metrics.items():
        # a distribution has a "successful" summary; counts and per-modality blocks do not
        block = groups.get("successful") if isinstance(groups, dict) else None
        if not isinstance(block, dict) or "mean" not in block:
            continue
        at = f"{where}.metrics.{metric}.successful"
        ours = _RENAMED.get(metric, metric)
        for key in _STATS + (("total_sum",) if metric in _SUMMED else ()):
            if block.get(key) is not None:
                run.aggregates[(ours, key)] = number(block[key], name, f"{at}.{key}") or 0.0
        for key, value in mapping(block.get("percentiles"), name, f"{at}.percentiles").items():
            if value is not None:
                run.aggregates[(ours, _PERCENTILES.get(key, key))] = (
                    number(value, name, f"{at}.percentiles.{key}") or 0.0
                )


def _requests(
    run: ImportedRun, requests: dict[str, Any], where: str, setting: int | None
) -> list[RequestResult]:
    name = run.file_name
    rows: list[RequestResult] = []
    for status in ("successful", "errored", "incomplete"):
        for i, record in enumerate(
            sequence(requests.get(status) or [], name, f"{where}.requests.{status}")
        ):
            at = f"{where}.requests.{status}[{i}]"
            record = mapping(record, name, at)
            info = mapping(record.get("info"), name, f"{at}.info")
            timings = mapping(info.get("timings"), name, f"{at}.info.timings")
            start = number(record.get("request_start_time"), name, f"{at}.request_start_time")
            latency = number(record.get("request_latency"), name, f"{at}.request_latency")
            last = number(
                timings.get("last_token_iteration"), name, f"{at}.info.timings.last_token_iteration"
            )
            error = text(info.get("error"), name, f"{at}.info.error")
            if status != "successful" and not error:
                error = f"guidellm: {status} request"
            figures = RequestFigures(
                ttft_ms=number(
                    record.get("time_to_first_token_ms"), name, f"{at}.time_to_first_token_ms"
                ),
                itls_ms=None,  # guidellm keeps the first and last token times, not each gap
                e2e_ms=None if latency is None else latency * 1000,
                prompt_tokens=count(record.get("prompt_tokens"), name, f"{at}.prompt_tokens"),
                completion_tokens=count(record.get("output_tokens"), name, f"{at}.output_tokens"),
                error=error,
                started_at=start,
                text=text(record.get("output"), name, f"{at}.output") or "",
                last_token_ms=None if start is None or last is None else (last - start) * 1000,
                prompt_target=setting,
            )
            rows.append(request_row(run, len(rows), figures))
    return rows
