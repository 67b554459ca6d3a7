"""vLLM `vllm bench serve --save-result [--save-detailed]` JSON: read it, and write ours in it.

Fields as `vllm/benchmarks/serve.py` (vLLM 0.10-0.11; `benchmarks/benchmark_serving.py`
before) saves them: run settings (date, backend, model_id, tokenizer_id, num_prompts,
request_rate, burstiness, max_concurrency), totals (duration, completed, failed,
total_input_tokens, total_output_tokens, request_throughput, output_throughput,
total_token_throughput), `{mean,median,std,pNN}_{ttft,tpot,itl,e2el}_ms`, and with
--save-detailed the per-request lists input_lens, output_lens, ttfts and itls (seconds),
generated_texts, errors and, since 0.10, start_times.

Our export adds one list vLLM does not write, `workbench_last_token_s` (seconds from the
request's start to its last token, a finish chunk without text included), so that our decode
speed comes back whole; vLLM's own readers ignore it.
"""

from __future__ import annotations

import functools
import itertools
import math
import re
import statistics
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from workbench.core.foundation.metrics import derive, inter_token_latencies_ms, percentile
from workbench.core.foundation.reported_figures import TOTALS
from workbench.core.foundation.results import RequestResult
from workbench.core.result_files._common import (
    ImportedRun,
    RequestFigures,
    count,
    fail,
    number,
    numbers,
    request_row,
    sequence,
    text,
)
from workbench.core.system.bounded_read import open_regular
from workbench.core.system.json_stream import elements

_STAT = re.compile(r"^(mean|median|std|p\d+(?:\.\d+)?)_(ttft|tpot|itl|e2el)_ms$")
_SETTINGS = (
    "date",
    "backend",
    "endpoint_type",
    "label",
    "tokenizer_id",
    "num_prompts",
    "burstiness",
)
_DETAILED = ("input_lens", "output_lens", "ttfts", "itls")
LAST_TOKEN = "workbench_last_token_s"
_OPTIONAL = ("errors", "generated_texts", "start_times", LAST_TOKEN)
LISTS = (*_DETAILED, *_OPTIONAL)  # the per-request lists: what a large file is made of
# a per-request list: its length, and a way to read it from its start
Column = tuple[int, Callable[[], Iterable[Any]]]


def looks_like_vllm(document: dict[str, Any]) -> bool:
    keys = set(document)
    return "ttfts" in keys or ("mean_ttft_ms" in keys and "completed" in keys)


def read(
    document: dict[str, Any],
    file_name: str,
    sha256: str,
    columns: dict[str, Column] | None = None,
) -> list[ImportedRun]:
    """The run in a vLLM file: `document` holds its values, but for the per-request lists that
    `columns` gives as streams (a large file's, read by json_stream); the requests are read
    when the run is stored, one at a time."""
    rate_value = document.get("request_rate")
    rate = None
    if isinstance(rate_value, str) and rate_value.lower() != "inf":
        raise fail(file_name, "request_rate", f"is {rate_value!r}, expected a number or 'inf'")
    if not isinstance(rate_value, str):
        rate = number(rate_value, file_name, "request_rate")
        rate = None if rate is not None and math.isinf(rate) else rate
    concurrency = count(document.get("max_concurrency"), file_name, "max_concurrency")
    run = ImportedRun(
        tool="vllm",
        tool_version=text(document.get("vllm_version"), file_name, "vllm_version"),
        file_name=file_name,
        sha256=sha256,
        index=0,
        model=text(document.get("model_id"), file_name, "model_id"),
        base_url=text(document.get("base_url"), file_name, "base_url"),
        concurrency=concurrency,
        request_rate=rate,
        extra={k: document[k] for k in _SETTINGS if document.get(k) is not None},
        date=_date(document.get("date"), file_name),
    )
    for key, value in document.items():
        match = _STAT.match(key)
        if match and value is not None:
            stat, metric = match.groups()
            run.aggregates[(metric, stat)] = number(value, file_name, key) or 0.0
        elif key in TOTALS and value is not None:
            run.aggregates[(key, "value")] = number(value, file_name, key) or 0.0
    columns = dict(columns or {})
    if any(k in document or k in columns for k in _DETAILED):
        for key in (*_DETAILED, *_OPTIONAL):
            if key not in columns and (key in _DETAILED or document.get(key) is not None):
                values = sequence(document.get(key), file_name, key)
                columns[key] = (len(values), functools.partial(iter, values))
        total = columns["ttfts"][0]
        for key, (length, _) in columns.items():
            if length != total:
                raise fail(file_name, key, f"has {length} entries where ttfts has {total}")
        run.request_count = total
        lengths = (count(v, file_name, "input_lens") for v in _open(columns["input_lens"]))
        run.prompt_lengths = sorted({n for n in lengths if n})
        run.rows = lambda: _requests(columns, run)
    return [run]


def streamed_columns(path: Path, arrays: dict[str, tuple[int, int]]) -> dict[str, Column]:
    """The per-request lists json_stream.scan found in the file at `path`, each read from its
    offset on a handle of its own when the run is stored."""

    def column(offset: int) -> Iterator[Any]:
        with open_regular(path, "a result file") as f:
            yield from elements(f, offset)

    return {
        key: (length, functools.partial(column, offset))
        for key, (offset, length) in arrays.items()
        if key in LISTS
    }


def _open(column: Column) -> Iterator[Any]:
    return iter(column[1]())


def _date(value: Any, file_name: str) -> float | None:
    """vLLM's `date`, "%Y%m%d-%H%M%S" in the local time of the machine that ran it."""
    if value is None:
        return None
    try:
        return time.mktime(time.strptime(text(value, file_name, "date") or "", "%Y%m%d-%H%M%S"))
    except (ValueError, OverflowError):
        raise fail(file_name, "date", f"is {value!r}, expected YYYYMMDD-HHMMSS") from None


def _requests(columns: dict[str, Column], run: ImportedRun) -> Iterator[RequestResult]:
    name = run.file_name

    def optional(key: str, default: Any) -> Iterator[Any]:
        return _open(columns[key]) if key in columns else itertools.repeat(default)

    lists = zip(
        _open(columns["ttfts"]),
        _open(columns["itls"]),
        _open(columns["input_lens"]),
        _open(columns["output_lens"]),
        optional("errors", None),
        optional("start_times", None),
        optional("generated_texts", ""),
        optional(LAST_TOKEN, None),
        strict=False,  # the lengths were compared before; repeat() never ends
    )
    for i, (ttft_s, gaps, said_in, said_out, error_s, start, said, last_s) in enumerate(lists):
        error = text(error_s, name, f"errors[{i}]")
        itls = numbers(gaps, name, f"itls[{i}]", scale=1000)
        ttft = number(ttft_s, name, f"ttfts[{i}]")
        output = None if error else count(said_out, name, f"output_lens[{i}]")
        last = number(last_s, name, f"{LAST_TOKEN}[{i}]")
        figures = RequestFigures(
            # vLLM writes ttft 0 and no ITLs for a request that failed before its first token
            ttft_ms=None if ttft is None or (error and not itls and ttft == 0) else ttft * 1000,
            itls_ms=itls,
            e2e_ms=None,
            prompt_tokens=count(said_in, name, f"input_lens[{i}]"),
            completion_tokens=output,
            error=error or None,
            started_at=number(start, name, f"start_times[{i}]"),
            text=text(said, name, f"generated_texts[{i}]") or "",
            last_token_ms=None if last is None or error else last * 1000,
        )
        yield request_row(run, i, figures)


def export_aggregates(figures: dict[str, float]) -> dict[str, float]:
    """The figures (reported_figures' vocabulary) that vLLM's file has a field for."""
    return {k: v for k, v in figures.items() if k in TOTALS or _STAT.match(k)}


def _stats(values: Sequence[float], name: str, into: dict[str, Any]) -> None:
    """mean, median, std (population, as numpy's std) and p90/p95/p99 as vLLM names them."""
    into[f"mean_{name}_ms"] = statistics.fmean(values) if values else 0.0
    into[f"median_{name}_ms"] = percentile(values, 50) or 0.0
    into[f"std_{name}_ms"] = statistics.pstdev(values) if values else 0.0
    for q in (90, 95, 99):
        into[f"p{q}_{name}_ms"] = percentile(values, q) or 0.0


def export(results: Sequence[RequestResult], config: dict[str, Any]) -> dict[str, Any]:
    """Our run as vLLM's `--save-result --save-detailed` JSON, so its notebooks read ours.

    Failed requests are listed with their error, as vLLM lists them; `ttfts`/`itls` are in
    seconds; the run's configuration fills the settings vLLM records."""
    rows = [r for r in results if not r.warmup]
    ok = [r for r in rows if r.ok]
    metrics = [derive(r) for r in ok]
    sends = [r.started_at for r in rows if r.started_at]
    ends = [r.started_at + (derive(r).e2e_ms or 0) / 1000 for r in rows if r.started_at]
    duration = (max(ends) - min(sends)) if sends and ends else 0.0
    total_in = sum(r.prompt_tokens or 0 for r in ok)
    total_out = sum(r.completion_tokens or 0 for r in ok)
    targets = [t for t in config.get("targets", ()) if isinstance(t, dict)]
    model = rows[0].model if rows else (targets[0].get("model") if targets else None)
    concurrency = max((r.concurrency for r in rows), default=None)
    out: dict[str, Any] = {
        "backend": "openai-chat",
        "endpoint_type": "openai-chat",
        "label": None,
        "model_id": model,
        "tokenizer_id": model,
        "base_url": (rows[0].base_url or None) if rows else None,
        "num_prompts": len(rows),
        "request_rate": "inf",
        "burstiness": 1.0,
        "max_concurrency": concurrency or None,
        "completed": len(ok),
        "failed": len(rows) - len(ok),
        "total_input_tokens": total_in,
        "total_output_tokens": total_out,
        "request_goodput": None,
    }
    if sends:  # without send times there is no duration: absent, never 0 or 1970
        out["date"] = time.strftime("%Y%m%d-%H%M%S", time.localtime(min(sends)))
        out["duration"] = duration
        out["request_throughput"] = len(ok) / duration if duration > 0 else 0.0
        out["output_throughput"] = total_out / duration if duration > 0 else 0.0
        out["total_token_throughput"] = (total_in + total_out) / duration if duration > 0 else 0.0
    _stats([m.ttft_ms for m in metrics if m.ttft_ms is not None], "ttft", out)
    _stats([m.tpot_ms for m in metrics if m.tpot_ms is not None], "tpot", out)
    all_itls = [gap for r in ok for gap in inter_token_latencies_ms(r.event_times)]
    _stats(all_itls, "itl", out)
    _stats([m.e2e_ms for m in metrics if m.e2e_ms is not None], "e2el", out)
    out["input_lens"] = [r.prompt_tokens or 0 for r in rows]
    out["output_lens"] = [r.completion_tokens or 0 if r.ok else 0 for r in rows]
    out["ttfts"] = [(derive(r).ttft_ms or 0.0) / 1000 if r.ok else 0.0 for r in rows]
    out["itls"] = [
        [gap / 1000 for gap in inter_token_latencies_ms(r.event_times)] if r.ok else []
        for r in rows
    ]
    if sends:
        out["start_times"] = [r.started_at for r in rows]
    out[LAST_TOKEN] = [
        (r.t_last_token - r.t_send) / 1e9
        if r.ok and r.t_last_token is not None and r.t_send is not None
        else None
        for r in rows
    ]
    out["generated_texts"] = [r.text if r.ok else "" for r in rows]
    out["errors"] = ["" if r.ok else (r.error_message or str(r.error_class)) for r in rows]
    return out
