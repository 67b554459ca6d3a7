"""The Azure LLM inference trace CSV: `TIMESTAMP,ContextTokens,GeneratedTokens`.

TIMESTAMP is a date and time such as `2023-11-16 18:15:46.6805900` (seconds as a plain
number are read too); a request is due its distance from the first row's."""

from __future__ import annotations

import csv
import io
from datetime import datetime

from workbench.core.datasets.model import DatasetError, DatasetRequest
from workbench.core.datasets.rows import MAX_ROWS, count, moment, too_many

KIND = "azure-csv"
COLUMNS = ("TIMESTAMP", "ContextTokens", "GeneratedTokens")


def looks_like(header: str) -> bool:
    names = {name.strip() for name in header.split(",")}
    return all(column in names for column in COLUMNS)


def _seconds(text: str, at: str) -> float:
    text = text.strip()
    try:
        return moment(float(text), at, "TIMESTAMP")
    except ValueError:
        pass
    head, dot, fraction = text.partition(".")
    try:  # Python reads at most 6 fractional digits; the trace writes 7
        stamp = datetime.fromisoformat(head + (dot + fraction[:6] if dot else ""))
    except ValueError:
        raise DatasetError(
            f"{at}: TIMESTAMP {text!r} is not a date and time; write it as "
            "2023-11-16 18:15:46.680590 (or seconds as a number)"
        ) from None
    return stamp.timestamp()


def _number(text: str | None, key: str, at: str) -> dict[str, int | None]:
    try:
        return {key: int((text or "").strip())}
    except ValueError:
        return {key: None}


def read(text: str, where: str) -> list[DatasetRequest]:
    reader = csv.DictReader(io.StringIO(text))
    stamps: list[tuple[float, int, int]] = []
    for row in reader:
        at = f"{where} line {reader.line_num}"
        if len(stamps) >= MAX_ROWS:
            raise too_many(where)
        context = count(_number(row.get("ContextTokens"), "ContextTokens", at), "ContextTokens", at)
        generated = count(
            _number(row.get("GeneratedTokens"), "GeneratedTokens", at), "GeneratedTokens", at
        )
        stamps.append((_seconds(row.get("TIMESTAMP") or "", at), context, generated))
    if not stamps:
        raise DatasetError(f"{where}: a header but no rows; add rows under {','.join(COLUMNS)}")
    first = stamps[0][0]
    requests = []
    for number, (stamp, context, generated) in enumerate(stamps, 2):
        if stamp < first:
            raise DatasetError(
                f"{where} line {number}: TIMESTAMP is before the first row's; sort the file by "
                "TIMESTAMP"
            )
        requests.append(
            DatasetRequest(input_tokens=context, output_tokens=generated, offset_s=stamp - first)
        )
    return requests
