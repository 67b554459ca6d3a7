"""Run history in SQLite: every request is committed the moment it is recorded.

WAL mode with synchronous=NORMAL: a killed process loses nothing it recorded (only a power cut
can lose the last commits). A run whose owner process died while it was "running" is marked
"interrupted" the next time a store opens. Derived metrics are stored beside the raw timestamps,
each in its own column, so plain SQL can query them; the raw record round-trips exactly.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sqlite3
import sys
import time
import types
import typing
import uuid
import zlib
from array import array
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, get_args

import platformdirs

from workbench.core.metrics import RequestMetrics, derive
from workbench.core.prompts import Calibration
from workbench.core.results import ErrorClass, Prices, RequestResult
from workbench.core.secrets import redact as secrets_redact

APP_NAME = "attention-workbench"
DATA_DIR_ENV = "WORKBENCH_DATA_DIR"
DB_FILENAME = "history.sqlite3"
SCHEMA_VERSION = 1
BUSY_TIMEOUT_MS = 5000

RunKind = Literal["comparison", "sweep", "replay"]
RunStatus = Literal["running", "finished", "cancelled", "interrupted", "failed"]


class StoreError(RuntimeError):
    """The history database cannot be used as asked (a newer schema, an unknown run, ...)."""


def default_data_dir() -> Path:
    """$WORKBENCH_DATA_DIR when set, else the per-user data directory of the OS."""
    override = os.environ.get(DATA_DIR_ENV)
    if override:
        return Path(override).expanduser()
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def default_db_path() -> Path:
    return default_data_dir() / DB_FILENAME


CALIBRATION_FILENAME = "calibration.json"


def load_calibration(path: Path | None = None) -> Calibration:
    """Learned prompt-size calibrations from earlier runs; an unreadable file starts afresh."""
    path = path or default_data_dir() / CALIBRATION_FILENAME
    try:
        return Calibration.from_dict(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError):
        return Calibration()


def save_calibration(calibration: Calibration, path: Path | None = None) -> None:
    path = path or default_data_dir() / CALIBRATION_FILENAME
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(calibration.to_dict()), encoding="utf-8")
    tmp.replace(path)  # atomic: a crash never leaves half a file


# --------------------------------------------------------------------------------------------
# How each RequestResult field is stored: derived from the dataclass, so a new field is either
# stored or fails loudly at import, never silently dropped.
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Column:
    name: str
    sql_type: str
    encode: Callable[[Any], Any]
    decode: Callable[[Any], Any]


def _same(value: Any) -> Any:
    return value


def _to_bool(value: Any) -> bool | None:
    return None if value is None else bool(value)


def _to_int_flag(value: bool | None) -> int | None:
    return None if value is None else int(value)


def _encode_times(times: list[int]) -> bytes:
    """Compact blob: version byte, then zlib'd little-endian int64 first value and deltas."""
    deltas = array("q", (b - a for a, b in zip([0, *times], times, strict=False)))
    if sys.byteorder != "little":
        deltas.byteswap()
    return b"\x01" + zlib.compress(deltas.tobytes(), 6)


def _decode_times(blob: bytes | None) -> list[int]:
    if not blob:
        return []
    if blob[0] != 1:
        raise StoreError(f"unknown event_times encoding {blob[0]}")
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


def _result_columns() -> tuple[_Column, ...]:
    hints = typing.get_type_hints(RequestResult)
    columns: list[_Column] = []
    for field in dataclasses.fields(RequestResult):
        kind = _base_type(hints[field.name])
        name = field.name
        if kind is Prices:
            columns += [
                _Column("price_input", "REAL", _same, _same),
                _Column("price_output", "REAL", _same, _same),
                _Column("price_cached_input", "REAL", _same, _same),
            ]
        elif hints[name] == list[int]:  # event times and per-event sizes: delta-coded blobs
            columns.append(_Column(name, "BLOB", _encode_times, _decode_times))
        elif kind is bool:
            columns.append(_Column(name, "INTEGER", _to_int_flag, _to_bool))
        elif kind is ErrorClass:
            columns.append(
                _Column(name, "TEXT", lambda v: None if v is None else v.value, _decode_error_class)
            )
        elif kind is int:
            columns.append(_Column(name, "INTEGER", _same, _same))
        elif kind is float:
            columns.append(_Column(name, "REAL", _same, _same))
        elif kind is str:
            columns.append(_Column(name, "TEXT", _same, _same))
        else:
            raise TypeError(f"store.py does not know how to keep RequestResult.{name}: {kind}")
    return tuple(columns)


_RESULT_COLUMNS = _result_columns()
_METRIC_COLUMNS = tuple(field.name for field in dataclasses.fields(RequestMetrics))


def _requests_columns_sql() -> list[tuple[str, str]]:
    columns = [(c.name, c.sql_type) for c in _RESULT_COLUMNS]
    columns += [(name, "REAL") for name in _METRIC_COLUMNS]
    columns += [("event_count", "INTEGER")]  # for SQL only; never read back
    return columns


# --------------------------------------------------------------------------------------------
# Schema and migrations
# --------------------------------------------------------------------------------------------


def _create_schema(conn: sqlite3.Connection) -> None:
    kinds = ", ".join(f"'{k}'" for k in get_args(RunKind))
    statuses = ", ".join(f"'{s}'" for s in get_args(RunStatus))
    conn.execute(
        f"""CREATE TABLE IF NOT EXISTS runs (
            run_id TEXT PRIMARY KEY,
            created_at REAL NOT NULL,
            kind TEXT NOT NULL CHECK (kind IN ({kinds})),
            config_json TEXT NOT NULL,
            status TEXT NOT NULL CHECK (status IN ({statuses})),
            finished_at REAL,
            note TEXT,
            owner_pid INTEGER,
            owner_started TEXT
        )"""
    )
    body = ",\n".join(
        f"{name} {sql_type}"
        + (" PRIMARY KEY" if name == "request_id" else "")
        + (" NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE" if name == "run_id" else "")
        for name, sql_type in _requests_columns_sql()
    )
    conn.execute(f"CREATE TABLE IF NOT EXISTS requests (\n{body}\n)")
    conn.execute("CREATE INDEX IF NOT EXISTS requests_run_id ON requests(run_id)")


# Migration hook: MIGRATIONS[n] upgrades a database from schema n to n + 1, inside one
# transaction. Adding a RequestResult field or a metric needs no entry: missing columns are
# added on open (see _add_missing_columns); renames and reshapes go here.
MIGRATIONS: dict[int, Callable[[sqlite3.Connection], None]] = {}


def _add_missing_columns(conn: sqlite3.Connection) -> None:
    present = {row[1] for row in conn.execute("PRAGMA table_info(requests)")}
    for name, sql_type in _requests_columns_sql():
        if name not in present:
            conn.execute(f"ALTER TABLE requests ADD COLUMN {name} {sql_type}")


def _migrate(conn: sqlite3.Connection) -> None:
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version > SCHEMA_VERSION:
        raise StoreError(
            f"the history database has schema {version}, newer than this app's "
            f"{SCHEMA_VERSION}; update the app or point {DATA_DIR_ENV} elsewhere"
        )
    conn.execute("BEGIN IMMEDIATE")
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version == 0:
            _create_schema(conn)
        else:
            while version < SCHEMA_VERSION:
                MIGRATIONS[version](conn)
                version += 1
        _add_missing_columns(conn)
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


# --------------------------------------------------------------------------------------------
# Process liveness: a run belongs to (pid, start marker) so a reused pid is not mistaken.
# --------------------------------------------------------------------------------------------


def _process_start_marker(pid: int) -> str | None:
    """When the process started, where the OS tells cheaply (Linux); None elsewhere."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as handle:
            stat = handle.read()
    except OSError:
        return None
    fields = stat[stat.rfind(")") + 2 :].split()
    return fields[19] if len(fields) > 19 else None  # field 22: starttime in clock ticks


def _pid_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    if sys.platform == "win32":
        import ctypes

        kernel32 = ctypes.windll.kernel32  # type: ignore[attr-defined]
        handle = kernel32.OpenProcess(0x1000, False, pid)  # PROCESS_QUERY_LIMITED_INFORMATION
        if not handle:
            return False
        try:
            code = ctypes.c_ulong()
            ok = kernel32.GetExitCodeProcess(handle, ctypes.byref(code))
            return bool(ok) and code.value == 259  # STILL_ACTIVE
        finally:
            kernel32.CloseHandle(handle)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # alive, someone else's
    try:  # a zombie (dead, not yet reaped) still answers kill(0)
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as handle:
            stat = handle.read()
        return stat[stat.rfind(")") + 2 :][:1] not in ("Z", "X")
    except OSError:
        return True


def _owner_alive(pid: int | None, marker: str | None) -> bool:
    if pid is None or not _pid_alive(pid):
        return False
    if marker is not None:
        current = _process_start_marker(pid)
        if current is not None and current != marker:
            return False  # the pid was reused by another process
    return True


# --------------------------------------------------------------------------------------------
# The store
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RunInfo:
    """One run as the history list shows it."""

    run_id: str
    kind: str
    status: str
    created_at: float
    finished_at: float | None
    note: str | None
    config: dict[str, Any]
    requests: int
    errors: int


class RunStore:
    """SQLite history of runs and their requests.

    `path` defaults to `default_db_path()`. `redact` is applied to what could carry a secret
    pasted by mistake: the run config JSON, run notes, base URLs and error messages; the model's
    own text is kept as it came. The connection may only be used from the thread that opened it.
    Opening marks runs left "running" by dead processes as "interrupted" (see `recovered`).
    """

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        redact: Callable[[str], str] | None = None,
        recover: bool = True,
    ) -> None:
        self.path = Path(path) if path is not None else default_db_path()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._redact = redact or secrets_redact
        self._pid = os.getpid()
        self._marker = _process_start_marker(self._pid)
        self._conn = sqlite3.connect(
            self.path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None
        )
        try:
            self._conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            mode = self._conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise StoreError(f"could not switch {self.path} to WAL mode (got {mode!r})")
            self._conn.execute("PRAGMA synchronous = NORMAL")
            self._conn.execute("PRAGMA foreign_keys = ON")
            _migrate(self._conn)
        except BaseException:
            self._conn.close()
            raise
        self.recovered: list[str] = self.mark_interrupted() if recover else []

    # -- context manager ----------------------------------------------------------------------

    def __enter__(self) -> RunStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._conn.close()

    # -- runs ---------------------------------------------------------------------------------

    def start_run(
        self,
        kind: RunKind,
        config: dict[str, Any],
        run_id: str | None = None,
        note: str | None = None,
    ) -> str:
        """Record a new run as "running", owned by this process; returns its id."""
        if kind not in get_args(RunKind):
            raise ValueError(f"kind must be one of {get_args(RunKind)}, got {kind!r}")
        run_id = run_id or uuid.uuid4().hex
        config_json = self._redact(json.dumps(config, ensure_ascii=False, sort_keys=True))
        self._conn.execute(
            "INSERT INTO runs (run_id, created_at, kind, config_json, status, note, owner_pid,"
            " owner_started) VALUES (?, ?, ?, ?, 'running', ?, ?, ?)",
            (
                run_id,
                time.time(),
                kind,
                config_json,
                None if note is None else self._redact(note),
                self._pid,
                self._marker,
            ),
        )
        return run_id

    def finish_run(self, run_id: str, status: RunStatus = "finished") -> None:
        """Close a run with its final status."""
        if status not in get_args(RunStatus) or status == "running":
            raise ValueError(f"a run cannot finish as {status!r}")
        cursor = self._conn.execute(
            "UPDATE runs SET status = ?, finished_at = ? WHERE run_id = ?",
            (status, time.time(), run_id),
        )
        if cursor.rowcount == 0:
            raise StoreError(f"no run {run_id!r} in {self.path}")

    def set_note(self, run_id: str, note: str | None) -> None:
        self._conn.execute(
            "UPDATE runs SET note = ? WHERE run_id = ?",
            (None if note is None else self._redact(note), run_id),
        )

    def mark_interrupted(self) -> list[str]:
        """Runs still "running" whose owner process is gone become "interrupted"; their ids."""
        rows = self._conn.execute(
            "SELECT run_id, owner_pid, owner_started FROM runs WHERE status = 'running'"
        ).fetchall()
        dead = [run_id for run_id, pid, marker in rows if not _owner_alive(pid, marker)]
        now = time.time()
        for run_id in dead:
            self._conn.execute(
                "UPDATE runs SET status = 'interrupted', finished_at = ?"
                " WHERE run_id = ? AND status = 'running'",
                (now, run_id),
            )
        return dead

    def runs(self, limit: int = 50) -> list[RunInfo]:
        """The newest runs first, with their request and error counts."""
        rows = self._conn.execute(
            """SELECT r.run_id, r.kind, r.status, r.created_at, r.finished_at, r.note,
                      r.config_json, COUNT(q.request_id), COUNT(q.error_class)
               FROM runs r LEFT JOIN requests q ON q.run_id = r.run_id
               GROUP BY r.run_id ORDER BY r.created_at DESC, r.rowid DESC LIMIT ?""",
            (limit,),
        ).fetchall()
        return [
            RunInfo(
                run_id=row[0],
                kind=row[1],
                status=row[2],
                created_at=row[3],
                finished_at=row[4],
                note=row[5],
                config=_load_json(row[6]),
                requests=row[7],
                errors=row[8],
            )
            for row in rows
        ]

    def run(self, run_id: str) -> RunInfo:
        for info in self.runs(limit=-1):
            if info.run_id == run_id:
                return info
        raise StoreError(f"no run {run_id!r} in {self.path}")

    # -- requests -----------------------------------------------------------------------------

    def record(self, result: RequestResult) -> None:
        """Store one finished request and commit at once (recording it again replaces it)."""
        values: dict[str, Any] = {}
        for column in _RESULT_COLUMNS:
            if column.name.startswith("price_"):
                continue
            values[column.name] = column.encode(getattr(result, column.name))
        values["price_input"] = result.prices.input
        values["price_output"] = result.prices.output
        values["price_cached_input"] = result.prices.cached_input
        if result.base_url:
            values["base_url"] = self._redact(result.base_url)
        if result.error_message is not None:
            values["error_message"] = self._redact(result.error_message)
        metrics = derive(result)
        for name in _METRIC_COLUMNS:
            values[name] = getattr(metrics, name)
        values["event_count"] = len(result.event_times)

        names = list(values)
        updates = ", ".join(f"{n} = excluded.{n}" for n in names if n != "request_id")
        sql = (
            f"INSERT INTO requests ({', '.join(names)}) VALUES ({', '.join('?' for _ in names)})"
            f" ON CONFLICT(request_id) DO UPDATE SET {updates}"
        )
        try:
            self._conn.execute(sql, [values[n] for n in names])
        except sqlite3.IntegrityError as error:
            if "FOREIGN KEY" in str(error):
                raise StoreError(f"no run {result.run_id!r}: call start_run first") from error
            raise

    def results(self, run_id: str) -> list[RequestResult]:
        """Every recorded request of a run, in the order they were recorded."""
        names = [c.name for c in _RESULT_COLUMNS]
        rows = self._conn.execute(
            f"SELECT {', '.join(names)} FROM requests WHERE run_id = ? ORDER BY rowid",
            (run_id,),
        ).fetchall()
        results = []
        for row in rows:
            raw = dict(zip(names, row, strict=True))
            kwargs = {
                c.name: c.decode(raw[c.name])
                for c in _RESULT_COLUMNS
                if not c.name.startswith("price_")
            }
            kwargs["prices"] = Prices(
                input=raw["price_input"],
                output=raw["price_output"],
                cached_input=raw["price_cached_input"],
            )
            results.append(RequestResult(**kwargs))
        return results

    def query(self, sql: str, parameters: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """Rows of one SQL statement over the history, for reports and tests."""
        return self._conn.execute(sql, parameters).fetchall()


def _load_json(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except ValueError:  # a redaction hook may have cut through the JSON
        return {"_raw": text}
    return value if isinstance(value, dict) else {"_value": value}
