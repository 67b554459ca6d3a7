"""Result files other benchmark tools write, read into our own request rows.

Read: vLLM `bench serve --save-result [--save-detailed]` JSON, guidellm `benchmarks.json`/
`.yaml`, AIPerf `profile_export.jsonl` and GenAI-Perf `profile_export.json` (per request),
and AIPerf / GenAI-Perf `profile_export_*.json` (aggregates). The format is told from the
content, never the name.
Each file gives one or more `ImportedRun`s; what a file lacks stays None (never invented).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from workbench.core.result_files._common import ImportedRun, ResultFileError
from workbench.core.result_files.aiperf import (
    looks_like_aiperf_jsonl,
    looks_like_aiperf_summary,
    with_summary,
)
from workbench.core.result_files.aiperf import read_jsonl as read_aiperf_jsonl
from workbench.core.result_files.aiperf import read_summary as read_aiperf_summary
from workbench.core.result_files.genai_perf import looks_like_genai_perf
from workbench.core.result_files.genai_perf import read as read_genai_perf
from workbench.core.result_files.guidellm import looks_like_guidellm
from workbench.core.result_files.guidellm import read as read_guidellm
from workbench.core.result_files.vllm import looks_like_vllm
from workbench.core.result_files.vllm import read as read_vllm

__all__ = ["ImportedRun", "ResultFileError", "read_result_file"]

MAX_FILE_BYTES = 512 * 1024 * 1024  # a detailed export of a long run; anything bigger is not one

FORMATS_HELP = (
    "a vLLM `bench serve --save-result` JSON, a guidellm benchmarks.json or .yaml, an AIPerf "
    "profile_export.jsonl, a GenAI-Perf profile_export.json, or an AIPerf / GenAI-Perf "
    "profile_export_*.json"
)


def read_result_file(path: Path) -> list[ImportedRun]:
    """Every run in one result file; ResultFileError (cause and fix) when it cannot be read."""
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise ResultFileError(
                f"{path}: {size:,} bytes is larger than any result file ({MAX_FILE_BYTES:,}): "
                f"pass {FORMATS_HELP}"
            )
        data = path.read_bytes()
    except IsADirectoryError:
        raise ResultFileError(f"{path} is a folder: pass the result file inside it") from None
    except OSError as error:
        raise ResultFileError(
            f"cannot read {path} ({error.strerror or error}): check the path"
        ) from None
    sha = hashlib.sha256(data).hexdigest()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ResultFileError(
            f"{path} is not a text file (not UTF-8): pass {FORMATS_HELP}"
        ) from None
    document = _parse(text, path)
    if isinstance(document, list) and looks_like_aiperf_jsonl(document):
        return with_summary(read_aiperf_jsonl(document, path.name, sha), path)
    if isinstance(document, dict):
        if looks_like_vllm(document):
            return read_vllm(document, path.name, sha)
        if looks_like_guidellm(document):
            return read_guidellm(document, path.name, sha)
        if looks_like_genai_perf(document):
            return read_genai_perf(document, path.name, sha)
        if looks_like_aiperf_summary(document):
            return read_aiperf_summary(document, path.name, sha)
    raise ResultFileError(
        f"{path} is in none of the result formats this app reads: pass {FORMATS_HELP}"
    )


def _parse(text: str, path: Path) -> Any:
    """JSON, else JSON Lines, else YAML (guidellm's other output)."""
    try:
        return json.loads(text)
    except ValueError:
        pass
    lines = [line for line in text.splitlines() if line.strip()]
    if lines and lines[0].lstrip().startswith("{"):
        records = []
        for number, line in enumerate(lines, 1):
            try:
                records.append(json.loads(line))
            except ValueError as error:  # a JSONDecodeError, or an integer too long to read
                why = error.msg if isinstance(error, json.JSONDecodeError) else str(error)
                raise ResultFileError(
                    f"{path}, line {number}: not JSON ({why}): a profile_export.jsonl "
                    "holds one JSON record a line; re-export it or remove the broken line"
                ) from None
        return records
    return _parse_yaml(text, path)


def _parse_yaml(text: str, path: Path) -> Any:
    try:
        import yaml  # type: ignore[import-untyped]
    except ImportError:
        raise ResultFileError(
            f"{path} is not JSON or JSON Lines, so it is in none of the result formats this "
            f"app reads: pass {FORMATS_HELP} (a guidellm .yaml report needs PyYAML: "
            "`pip install pyyaml`, or save guidellm's report as benchmarks.json)"
        ) from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise ResultFileError(
            f"{path} is neither JSON, JSON Lines nor YAML ({error}): pass {FORMATS_HELP}"
        ) from None
