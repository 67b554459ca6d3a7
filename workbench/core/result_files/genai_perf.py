"""GenAI-Perf's `profile_export.json`: the per-request timestamps Perf Analyzer records
(GenAI-Perf 0.0.x in triton-inference-server/client, `genai_perf/profile_data_parser`).

{"service_kind", "endpoint", "experiments": [{"experiment": {"mode": "concurrency" |
"request_rate", "value": N}, "requests": [{"timestamp": ns, "request_inputs": {"payload":
"<the request's JSON>"} | {"text_input": ...}, "response_timestamps": [ns, ...],
"response_outputs": [{"response": "data: <SSE chunk>"} | {"text_output": ...}]}]}],
"version"}. One run per experiment. A response without text (the role chunk, the usage chunk,
[DONE]) is no token, as GenAI-Perf counts them. Token counts are not in the file (GenAI-Perf
tokenizes the text to count them), so they stay blank.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

from workbench.core.result_files._common import (
    ImportedRun,
    RequestFigures,
    count,
    fail,
    mapping,
    number,
    request_row,
    sequence,
    text,
)

_NS_PER_MS = 1e6


def looks_like_genai_perf(document: dict[str, Any]) -> bool:
    experiments = document.get("experiments")
    return (
        isinstance(experiments, list)
        and bool(experiments)
        and all(isinstance(e, dict) and "requests" in e for e in experiments)
    )


def _chunk_text(output: Any, file_name: str, where: str) -> str:
    """The text one response carried ("" for none)."""
    output = mapping(output, file_name, where)
    if "text_output" in output:
        return text(output["text_output"], file_name, f"{where}.text_output") or ""
    raw = (text(output.get("response"), file_name, f"{where}.response") or "").strip()
    raw = raw.removeprefix("data:").strip()
    if not raw or raw == "[DONE]":
        return ""
    try:
        chunk = json.loads(raw)
    except ValueError:
        return ""  # not a JSON chunk: no token, as GenAI-Perf skips it
    choices = chunk.get("choices") if isinstance(chunk, dict) else None
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return ""
    delta = choices[0].get("delta")
    piece = delta.get("content") if isinstance(delta, dict) else choices[0].get("text")
    return piece if isinstance(piece, str) else ""


def _model(request: dict[str, Any]) -> str | None:
    inputs = request.get("request_inputs")
    payload = inputs.get("payload") if isinstance(inputs, dict) else None
    try:
        body = json.loads(payload) if isinstance(payload, str) else None
    except ValueError:
        return None
    model = body.get("model") if isinstance(body, dict) else None
    return model if isinstance(model, str) else None


def read(document: dict[str, Any], file_name: str, sha256: str) -> list[ImportedRun]:
    version = text(document.get("version"), file_name, "version") or None
    runs = []
    for index, experiment in enumerate(sequence(document["experiments"], file_name, "experiments")):
        where = f"experiments[{index}]"
        setting = mapping(experiment.get("experiment"), file_name, f"{where}.experiment")
        mode, value = setting.get("mode"), setting.get("value")
        at = f"{where}.experiment.value"
        requests = sequence(experiment.get("requests"), file_name, f"{where}.requests")
        first = requests[0] if requests and isinstance(requests[0], dict) else {}
        run = ImportedRun(
            tool="genai-perf",
            tool_version=version,
            file_name=file_name,
            sha256=sha256,
            index=index,
            model=_model(first),
            base_url=None,  # the file keeps the endpoint's path only, not where it was
            concurrency=count(value, file_name, at) if mode == "concurrency" else None,
            request_rate=number(value, file_name, at) if mode == "request_rate" else None,
        )
        for i, request in enumerate(requests):
            figures = _figures(request, file_name, f"{where}.requests[{i}]")
            run.results.append(request_row(run, i, figures))
        runs.append(run)
    return runs


def _stamp(value: Any, file_name: str, where: str) -> float:
    """A nanosecond timestamp; kept an int (a double cannot hold today's ns exactly)."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**63:
        return value
    return number(value, file_name, where, optional=False) or 0.0


def _figures(request: Any, file_name: str, at: str) -> RequestFigures:
    request = mapping(request, file_name, at)
    sent = _stamp(request.get("timestamp"), file_name, f"{at}.timestamp")
    stamps = sequence(
        request.get("response_timestamps", []), file_name, f"{at}.response_timestamps"
    )
    outputs = sequence(request.get("response_outputs", []), file_name, f"{at}.response_outputs")
    if len(outputs) != len(stamps):
        raise fail(
            file_name,
            f"{at}.response_outputs",
            f"has {len(outputs)} entries where response_timestamps has {len(stamps)}",
        )
    times = [_stamp(t, file_name, f"{at}.response_timestamps[{j}]") for j, t in enumerate(stamps)]
    pieces = [
        _chunk_text(o, file_name, f"{at}.response_outputs[{j}]") for j, o in enumerate(outputs)
    ]
    tokens = [(t, piece) for t, piece in zip(times, pieces, strict=True) if piece]
    gaps = [(b[0] - a[0]) / _NS_PER_MS for a, b in itertools.pairwise(tokens)]
    return RequestFigures(
        ttft_ms=(tokens[0][0] - sent) / _NS_PER_MS if tokens else None,
        itls_ms=gaps if tokens else None,
        e2e_ms=(times[-1] - sent) / _NS_PER_MS if times else None,
        prompt_tokens=None,
        completion_tokens=None,
        text="".join(piece for _, piece in tokens),
    )
