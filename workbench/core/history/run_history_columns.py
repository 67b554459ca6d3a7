"""How each RequestResult field and derived metric is kept in the history's `requests` table.

Derived from the dataclass, so a new field is either stored or fails loudly at import, never
silently dropped. Encoders never raise: a value a broken server sent (a 2**70 token count, an
object where an id belongs, a lone surrogate in text) is stored as near as SQLite allows and
never costs its row.
"""

from __future__ import annotations

import dataclasses
import json
import math
import sqlite3
import sys
import types
import typing
import zlib
from array import array
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from workbench.core.foundation.metrics import RequestMetrics
from workbench.core.foundation.results import ErrorClass, Prices, RequestResult


@dataclass(frozen=True)
class Column:
    name: str
    sql_type: str
    encode: Callable[[Any], Any]
    decode: Callable[[Any], Any]


def _same(value: Any) -> Any:
    return value


def _to_bool(value: Any) -> bool | None:
    return None if value is None else bool(value)


def _to_int_flag(value: Any) -> int | None:
    return None if value is None else int(bool(value))


_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


def _encode_int(value: Any) -> Any:
    """An int as INTEGER; beyond int64 as the nearest REAL (NULL beyond a double)."""
    if value is None:
        return None
    if isinstance(value, int) and _INT64_MIN <= value <= _INT64_MAX:
        return int(value)  # a bool becomes 0 or 1
    return encode_real(value)


def _decode_int(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)  # stored as REAL because it did not fit in 64 bits
    return value


def encode_real(value: Any) -> Any:
    if value is None:
        return None
    if type(value) is float:  # the common case first: a history import encodes millions
        return value if math.isfinite(value) else None
    if isinstance(value, int | float):
        try:
            number = float(value)
        except OverflowError:
            return None
        return number if math.isfinite(number) else None
    return _encode_text(value)


def _encode_text(value: Any) -> str | None:
    if value is None:
        return None
    text: str
    if type(value) is str and value.isascii():  # no surrogate can hide in ASCII
        return value
    if isinstance(value, str):
        text = value
    else:
        try:
            text = json.dumps(value, ensure_ascii=False, default=str)
        except (ValueError, RecursionError):
            text = repr(value)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate from a JSON escape: SQLite cannot take it
        text = text.encode("utf-8", "replace").decode("utf-8")
    return text


def _encode_times(times: list[int]) -> bytes:
    """Compact blob: version byte, then zlib'd little-endian int64 first value and deltas."""
    if not times:
        return _NO_TIMES
    deltas = array("q", (b - a for a, b in zip([0, *times], times, strict=False)))
    if sys.byteorder != "little":
        deltas.byteswap()
    raw = deltas.tobytes()
    # a window no larger than the data compresses it as well, and costs 1/20 of the time to set
    # up (zlib.compress clears a 32 KiB window and 256 KiB of state for 100 bytes)
    wbits = max(9, min(15, (len(raw) - 1).bit_length()))
    packer = zlib.compressobj(6, zlib.DEFLATED, wbits, max(1, min(8, wbits - 7)))
    return b"\x01" + packer.compress(raw) + packer.flush()


_NO_TIMES = b"\x01" + zlib.compress(b"", 6)


def _decode_times(blob: bytes | None) -> list[int]:
    if not blob:
        return []
    if blob[0] != 1:
        raise ValueError(f"unknown event_times encoding {blob[0]}")
    deltas = array("q")
    deltas.frombytes(zlib.decompress(blob[1:]))
    if sys.byteorder != "little":
        deltas.byteswap()
    times: list[int] = []
    total = 0
    for delta in deltas:
        total += delta
        times.append(total)
    return times


def _decode_error_class(value: str | None) -> ErrorClass | None:
    if value is None:
        return None
    try:
        return ErrorClass(value)
    except ValueError:  # a class from a newer or older version of the app
        return ErrorClass.INTERNAL


def _base_type(hint: Any) -> Any:
    """int | None -> int; anything else unchanged."""
    if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        if len(args) == 1:
            return args[0]
    return hint


def _result_columns() -> tuple[Column, ...]:
    hints = typing.get_type_hints(RequestResult)
    columns: list[Column] = []
    for field in dataclasses.fields(RequestResult):
        kind = _base_type(hints[field.name])
        name = field.name
        if kind is Prices:
            columns += [
                Column("price_input", "REAL", _same, _same),
                Column("price_output", "REAL", _same, _same),
                Column("price_cached_input", "REAL", _same, _same),
                Column("price_known", "INTEGER", _to_int_flag, _to_bool),
            ]
        elif hints[name] == list[int]:  # event times and per-event sizes: delta-coded blobs
            columns.append(Column(name, "BLOB", _encode_times, _decode_times))
        elif kind is bool:
            columns.append(Column(name, "INTEGER", _to_int_flag, _to_bool))
        elif kind is ErrorClass:
            columns.append(
                Column(name, "TEXT", lambda v: None if v is None else v.value, _decode_error_class)
            )
        elif kind is int:
            columns.append(Column(name, "INTEGER", _encode_int, _decode_int))
        elif kind is float:
            columns.append(Column(name, "REAL", encode_real, _same))
        elif kind is str:
            columns.append(Column(name, "TEXT", _encode_text, _same))
        else:
            raise TypeError(
                f"run_history_columns.py does not know how to keep RequestResult.{name}: {kind}"
            )
    return tuple(columns)


RESULT_COLUMNS = _result_columns()
METRIC_COLUMNS = tuple(field.name for field in dataclasses.fields(RequestMetrics))
# what one stored request row holds, in order: the result's own fields, its prices, its metrics
STORED_COLUMNS = tuple(c for c in RESULT_COLUMNS if not c.name.startswith("price_"))
PRICE_NAMES = ("price_input", "price_output", "price_cached_input", "price_known")
ROW_NAMES = (*(c.name for c in STORED_COLUMNS), *PRICE_NAMES, *METRIC_COLUMNS, "event_count")


def requests_columns_sql() -> list[tuple[str, str]]:
    columns = [(c.name, c.sql_type) for c in RESULT_COLUMNS]
    columns += [(name, "REAL") for name in METRIC_COLUMNS]
    columns += [("event_count", "INTEGER")]  # for SQL only; never read back
    return columns


# Migration hook: MIGRATIONS[n] upgrades a database from schema n to n + 1, inside one
# transaction. Adding a RequestResult field or a metric needs no entry: missing columns are
# added on open (see add_missing_columns); renames and reshapes go here.
def _add_phase(conn: sqlite3.Connection) -> None:
    """Schema 1 -> 2: every request gets its `phase`, read from what schema 1 kept (a
    calibration request was a warm-up with task 'calibration')."""
    add_missing_columns(conn)
    conn.execute(
        "UPDATE requests SET phase = CASE WHEN task = 'calibration' THEN 'calibration'"
        " WHEN warmup = 1 THEN 'warmup' ELSE 'measured' END WHERE phase IS NULL"
    )


def _add_protocol(conn: sqlite3.Connection) -> None:
    """Schema 2 -> 3: every request before protocols existed was a chat completion."""
    add_missing_columns(conn)
    conn.execute("UPDATE requests SET protocol = 'chat' WHERE protocol IS NULL")


MIGRATIONS: dict[int, Callable[[sqlite3.Connection], None]] = {1: _add_phase, 2: _add_protocol}


def add_missing_columns(conn: sqlite3.Connection) -> None:
    present = {row[1] for row in conn.execute("PRAGMA table_info(requests)")}
    for name, sql_type in requests_columns_sql():
        if name not in present:
            conn.execute(f"ALTER TABLE requests ADD COLUMN {name} {sql_type}")


def decode_row(names: list[str], row: tuple[Any, ...]) -> RequestResult:
    """One `requests` row, its columns `names`, back into the request it records. ValueError
    when a value cannot be read (written by a newer version of the app)."""
    raw = dict(zip(names, row, strict=True))
    kwargs = {
        c.name: c.decode(raw[c.name]) for c in RESULT_COLUMNS if not c.name.startswith("price_")
    }
    kwargs["prices"] = Prices(
        input=raw["price_input"],
        output=raw["price_output"],
        cached_input=raw["price_cached_input"],
        known=raw["price_known"] != 0,  # NULL: a row from before prices could be unknown
    )
    return RequestResult(**kwargs)
