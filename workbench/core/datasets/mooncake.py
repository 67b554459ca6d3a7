"""Mooncake trace JSONL: `{"timestamp": ms, "input_length", "output_length", "hash_ids"}`.

`timestamp` is milliseconds from the trace's start; `hash_ids` name the prompt's 512-token
blocks, so two requests whose leading hash ids are equal share that many prefix blocks
(core/datasets/text.py writes byte-identical text for them)."""

from __future__ import annotations

from typing import Any

from workbench.core.datasets.model import DatasetError, DatasetRequest
from workbench.core.datasets.rows import count, json_lines, moment

KIND = "mooncake"


def looks_like(first: dict[str, Any]) -> bool:
    return "input_length" in first or "hash_ids" in first


def _hash_ids(value: Any, at: str) -> tuple[int, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(
        isinstance(h, int) and not isinstance(h, bool) for h in value
    ):
        raise DatasetError(f"{at}: hash_ids must be a list of whole numbers, e.g. [0, 1, 2]")
    return tuple(value)


def read(text: str, where: str) -> list[DatasetRequest]:
    requests: list[DatasetRequest] = []
    for number, row in json_lines(text, where):
        at = f"{where} line {number}"
        if "timestamp" not in row:
            raise DatasetError(f"{at}: no timestamp; each row needs timestamp (ms from start)")
        stamp = moment(row["timestamp"], at, "timestamp") / 1000.0
        if requests and stamp < (requests[-1].offset_s or 0.0):
            raise DatasetError(f"{at}: timestamp is before the row above; sort by timestamp")
        requests.append(
            DatasetRequest(
                input_tokens=count(row, "input_length", at),
                output_tokens=count(row, "output_length", at),
                hash_ids=_hash_ids(row.get("hash_ids"), at),
                offset_s=stamp,
            )
        )
    return requests
