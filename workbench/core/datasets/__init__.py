"""Datasets and traces for `bench --dataset PATH`: one reader per format behind `load_dataset`,
which tells the format from the content (docs/metrics.md, "Datasets and traces").

- chat-jsonl: OpenAI-style JSONL, `messages` and an optional `max_tokens` per line;
- sharegpt: ShareGPT JSON (or JSONL), `conversations` of `from`/`value` turns;
- mooncake: Mooncake trace JSONL, `timestamp` (ms), `input_length`, `output_length`, `hash_ids`;
- azure-csv: the Azure LLM inference trace, `TIMESTAMP,ContextTokens,GeneratedTokens`.
"""

from __future__ import annotations

import json
from pathlib import Path

from workbench.core.datasets import azure_csv, chat_jsonl, mooncake, sharegpt
from workbench.core.datasets.model import Dataset, DatasetError, DatasetRequest
from workbench.core.datasets.text import trace_text
from workbench.core.system.bounded_read import NotARegularFile, TooLarge, read_bounded

__all__ = ["Dataset", "DatasetError", "DatasetRequest", "load_dataset", "trace_text"]

KINDS = (chat_jsonl.KIND, sharegpt.KIND, mooncake.KIND, azure_csv.KIND)
MAX_BYTES = 256 * 1024 * 1024  # 256 MiB: a day of a busy trace fits, a wrong file does not
_UNKNOWN = (
    "is not a dataset this reads: give OpenAI-style JSONL (messages), ShareGPT JSON "
    "(conversations), a Mooncake trace JSONL (timestamp, input_length, output_length, "
    "hash_ids) or an Azure trace CSV (TIMESTAMP,ContextTokens,GeneratedTokens)"
)


def load_dataset(path: Path, max_bytes: int = MAX_BYTES) -> Dataset:
    """The file's requests, its format told from its content; DatasetError names the line,
    the cause and the fix."""
    where = str(path)
    text = _read_text(path, max_bytes)
    kind, requests = _read(text, where)
    if not requests:
        raise DatasetError(f"{where}: no requests in it; add at least one row")
    return Dataset(kind, tuple(requests))


def _read_text(path: Path, max_bytes: int) -> str:
    """The file's text through the one bounded reader (core/system/bounded_read.py)."""
    try:
        data = read_bounded(path, max_bytes, "a dataset file")
    except NotARegularFile as exc:
        raise DatasetError(f"{exc}; give a dataset file's path") from None
    except TooLarge:
        raise DatasetError(
            f"{path} is over {max_bytes:,} bytes; cut it to fewer rows (head -n N for JSONL or CSV)"
        ) from None
    except OSError as exc:
        raise DatasetError(f"{path}: cannot open it ({exc.strerror}); check the path") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DatasetError(
            f"{path}: byte {exc.start} is not UTF-8; save the file as UTF-8"
        ) from None


def _read(text: str, where: str) -> tuple[str, list[DatasetRequest]]:
    start = text.lstrip()
    if start.startswith("["):
        return sharegpt.KIND, sharegpt.read(text, where)
    first_line = start.split("\n", 1)[0]
    if not start.startswith("{"):
        if azure_csv.looks_like(first_line):
            return azure_csv.KIND, azure_csv.read(start, where)
        raise DatasetError(f"{where} {_UNKNOWN}")
    try:
        first = json.loads(first_line)
    except ValueError:
        first = None
    if not isinstance(first, dict):
        raise DatasetError(f"{where}: its first line is not one JSON object; {_UNKNOWN[3:]}")
    for reader in (mooncake, chat_jsonl, sharegpt):
        if reader.looks_like(first):
            return reader.KIND, reader.read(text, where)
    raise DatasetError(f"{where}: its first line has none of the known fields; {_UNKNOWN[3:]}")
