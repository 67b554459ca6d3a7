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

from workbench.core.foundation.i18n import QT_TRANSLATE_NOOP
from workbench.core.result_files._common import ImportedRun, ResultFileError, said
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
from workbench.core.result_files.vllm import LISTS, looks_like_vllm, streamed_columns
from workbench.core.result_files.vllm import read as read_vllm
from workbench.core.system import json_stream
from workbench.core.system.bounded_read import (
    MAX_DEPTH,
    AliasRefused,
    NotARegularFile,
    TooDeep,
    TooLarge,
    check_plain,
    json_loads,
    open_regular,
    read_bounded,
    yaml_load,
)

__all__ = ["ImportedRun", "ResultFileError", "read_result_file"]

MAX_FILE_BYTES = 512 * 1024 * 1024  # a detailed export of a long run; anything bigger is not one
MAX_SETTINGS_CHARS = 64 * 1024  # a tool's run settings, kept in the run config as JSON
MAX_NAME_CHARS = 4096  # a model id, a URL or a version

FORMATS_HELP = said(
    QT_TRANSLATE_NOOP(
        "ResultFile",
        "a vLLM `bench serve --save-result` JSON, a guidellm benchmarks.json or .yaml, an AIPerf "
        "profile_export.jsonl, a GenAI-Perf profile_export.json, or an AIPerf / GenAI-Perf "
        "profile_export_*.json",
    )
)


def read_result_file(path: Path) -> list[ImportedRun]:
    """Every run in one result file; ResultFileError (cause and fix) when it cannot be read.

    A vLLM file is read as a stream (its per-request lists, nearly all of a large file, are
    walked, not held); any other file, or one the stream reader cannot follow, is read whole,
    and the whole read names what is wrong with it."""
    try:
        streamed = _scan_vllm(path)
        if streamed is not None:
            return _checked(streamed, path)
        data = read_bounded(path, MAX_FILE_BYTES, "a result file")
    except NotARegularFile as error:
        if path.is_dir():
            folder = QT_TRANSLATE_NOOP(
                "ResultFile", "{path} is a folder: pass the result file inside it"
            )
            raise ResultFileError(said(folder, path=path)) from None
        special = QT_TRANSLATE_NOOP("ResultFile", "{error}: pass the result file itself")
        raise ResultFileError(said(special, error=error)) from None
    except TooLarge:
        large = QT_TRANSLATE_NOOP(
            "ResultFile", "{path} is larger than any result file ({limit} bytes): pass {formats}"
        )
        raise ResultFileError(
            said(large, path=path, limit=f"{MAX_FILE_BYTES:,}", formats=FORMATS_HELP)
        ) from None
    except OSError as error:
        unread = QT_TRANSLATE_NOOP("ResultFile", "cannot read {path} ({why}): check the path")
        raise ResultFileError(said(unread, path=path, why=error.strerror or error)) from None
    sha = hashlib.sha256(data).hexdigest()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        binary = QT_TRANSLATE_NOOP(
            "ResultFile", "{path} is not a text file (not UTF-8): pass {formats}"
        )
        raise ResultFileError(said(binary, path=path, formats=FORMATS_HELP)) from None
    del data  # the text alone is enough from here; a large file need not be held twice
    document = _parse(text, path)
    del text
    return _checked(_runs(document, path, sha), path)


def _scan_vllm(path: Path) -> list[ImportedRun] | None:
    """The run of a vLLM JSON file, its requests left in the file to be streamed; None when the
    file is not one JSON object of vLLM's (the caller reads it whole)."""
    digest = hashlib.sha256()
    read = [0]

    def seen(chunk: bytes) -> None:
        read[0] += len(chunk)
        if read[0] > MAX_FILE_BYTES:
            raise TooLarge(f"{path} holds more than {MAX_FILE_BYTES:,} bytes")
        digest.update(chunk)

    try:
        with open_regular(path, "a result file") as f:
            found = json_stream.scan(f, LISTS, seen)
    except (ValueError, TooDeep):  # not one JSON object, not UTF-8: the whole read says which
        return None
    if not looks_like_vllm({**found.values, **dict.fromkeys(found.arrays)}):
        return None
    columns = streamed_columns(path, found.arrays)
    return read_vllm(found.values, path.name, digest.hexdigest(), columns)


def _checked(runs: list[ImportedRun], path: Path) -> list[ImportedRun]:
    for run in runs:
        try:  # these go into our run config: only plain data of a bounded size
            check_plain(run.extra, "settings", max_chars=MAX_SETTINGS_CHARS)
            for name in ("model", "base_url", "tool_version"):
                check_plain(getattr(run, name), name, max_chars=MAX_NAME_CHARS)
        except ValueError as error:
            raise ResultFileError(
                f"{path}: {error}: no run setting or name is that large; fix or remove it, or "
                "re-export the file from the tool that wrote it"
            ) from None
    return runs


def _runs(document: Any, path: Path, sha: str) -> list[ImportedRun]:
    if isinstance(document, list) and looks_like_aiperf_jsonl(document):
        return with_summary(read_aiperf_jsonl(document, path.name, sha), path, read_result_file)
    if isinstance(document, dict):
        if looks_like_vllm(document):
            return read_vllm(document, path.name, sha)
        if looks_like_guidellm(document):
            return read_guidellm(document, path.name, sha)
        if looks_like_genai_perf(document):
            return read_genai_perf(document, path.name, sha)
        if looks_like_aiperf_summary(document):
            return read_aiperf_summary(document, path.name, sha)
    unknown = QT_TRANSLATE_NOOP(
        "ResultFile", "{path} is in none of the result formats this app reads: pass {formats}"
    )
    raise ResultFileError(said(unknown, path=path, formats=FORMATS_HELP))


def _too_deep(path: Path, where: str = "") -> ResultFileError:
    return ResultFileError(
        f"{path}{where}: nested deeper than any result file (the limit is {MAX_DEPTH} levels "
        f"for YAML, the JSON reader's own for JSON): pass {FORMATS_HELP}"
    )


def _parse(text: str, path: Path) -> Any:
    """JSON, else JSON Lines, else YAML (guidellm's other output)."""
    try:
        return json_loads(text)
    except TooDeep:
        raise _too_deep(path) from None
    except ValueError:
        pass
    lines = [line for line in text.splitlines() if line.strip()]
    if lines and lines[0].lstrip().startswith("{"):
        records = []
        for number, line in enumerate(lines, 1):
            try:
                records.append(json_loads(line))
            except TooDeep:
                raise _too_deep(path, f", line {number}") from None
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
        return yaml_load(text)
    except TooDeep:
        raise _too_deep(path) from None
    except AliasRefused as error:
        raise ResultFileError(f"{path}, {error}: write the value out in full") from None
    except (yaml.YAMLError, ValueError) as error:  # ValueError: an integer too long to read
        raise ResultFileError(
            said(
                QT_TRANSLATE_NOOP(
                    "ResultFile",
                    "{path} is neither JSON, JSON Lines nor YAML ({why}): pass {formats}",
                ),
                path=path,
                why=error,
                formats=FORMATS_HELP,
            )
        ) from None
