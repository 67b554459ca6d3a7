"""What every reader shares: JSON lines with their numbers, a row cap, and checked fields."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import Any

from workbench.core.datasets.model import DatasetError
from workbench.core.system.bounded_read import json_loads

MAX_ROWS = 100_000  # requests per dataset, as requests per cell (core/load/arrivals.py)
MAX_TOKENS = 1_048_576  # per prompt or output, as a plan's limits


def too_many(where: str) -> DatasetError:
    return DatasetError(
        f"{where}: more than {MAX_ROWS:,} requests; keep the first {MAX_ROWS:,} rows"
    )


def json_lines(text: str, where: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for each non-blank line, at most MAX_ROWS."""
    count = 0
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json_loads(line)
        except ValueError as exc:  # not JSON, an integer too long to read, or nested too deep
            why = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
            raise DatasetError(
                f"{where} line {number}: not JSON ({why}); each line must be one JSON object"
            ) from None
        if not isinstance(row, dict):
            raise DatasetError(f"{where} line {number}: not a JSON object; write {{...}} per line")
        count += 1
        if count > MAX_ROWS:
            raise too_many(where)
        yield number, row


def count(row: dict[str, Any], key: str, at: str, low: int = 1, optional: bool = False) -> int:
    """A whole number of tokens from `row[key]`, low..MAX_TOKENS."""
    value = row.get(key)
    if value is None and optional:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= MAX_TOKENS:
        raise DatasetError(
            f"{at}: {key} must be a whole number {low}..{MAX_TOKENS:,}, got {value!r}; "
            "fix or drop that row"
        )
    return value


def moment(value: Any, at: str, key: str) -> float:
    """A finite, non-negative number from a timestamp field."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise DatasetError(f"{at}: {key} must be a number, got {value!r}; fix or drop that row")
    if value < 0:
        raise DatasetError(f"{at}: {key} is negative ({value}); timestamps count up from 0")
    return float(value)
