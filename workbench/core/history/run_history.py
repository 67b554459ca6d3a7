"""Run history in SQLite: every request is committed the moment it is recorded (an imported
run is added whole, in one transaction: `add_whole_run`).

WAL mode with synchronous=NORMAL: a killed process loses nothing it recorded (only a power cut
can lose the last commits). A run whose owner process died while it was "running" is marked
"interrupted" the next time a store opens. Derived metrics are stored beside the raw timestamps,
each in its own column, so plain SQL can query them; the raw record round-trips exactly.
"""

from __future__ import annotations

import contextlib
import json
import operator
import os
import sqlite3
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, get_args

from workbench.core.foundation.metrics import derive
from workbench.core.foundation.redaction import redact as secrets_redact
from workbench.core.foundation.results import RequestResult
from workbench.core.history.run_history_columns import (
    METRIC_COLUMNS,
    MIGRATIONS,
    RESULT_COLUMNS,
    ROW_NAMES,
    STORED_COLUMNS,
    add_missing_columns,
    decode_row,
    encode_real,
    requests_columns_sql,
)
from workbench.core.system.data_dir import DATA_DIR_ENV, default_data_dir
from workbench.core.system.private_files import private_dir, private_file
from workbench.core.system.process_alive import owner_alive, process_start_marker

DB_FILENAME = "history.sqlite3"
SCHEMA_VERSION = 3
BUSY_TIMEOUT_MS = 5000
# `record` and `finish_run` wait this long for a lock, blocking the caller's thread (the
# event loop): the runner retries with asynchronous back-off instead of waiting here.
RECORD_BUSY_MS = 200
_BASE_URL, _ERROR = ROW_NAMES.index("base_url"), ROW_NAMES.index("error_message")
_STORED_VALUES = operator.attrgetter(*(c.name for c in STORED_COLUMNS))  # one C call a row
_ENCODERS = tuple(c.encode for c in STORED_COLUMNS)

RunKind = Literal["comparison", "sweep", "replay"]
RunStatus = Literal["running", "finished", "cancelled", "interrupted", "failed"]


class StoreError(RuntimeError):
    """The history database cannot be used as asked; the message names the file and the fix.

    `transient` is true when waiting may help (another process holds the lock).
    """

    transient = False


class StoreBusy(StoreError):
    """Another process holds the database's lock."""

    transient = True


def _explain(error: BaseException, path: Path) -> StoreError:
    """A StoreError that says what is wrong with the history file at `path` and what to do."""
    if isinstance(error, StoreError):
        return error
    text = str(error)
    low = text.lower()
    elsewhere = f"or set {DATA_DIR_ENV} to use another folder"
    if "locked" in low or "busy" in low:
        return StoreBusy(
            f"the history database {path} is locked by another process: close the program "
            f"that holds it (another workbench, a SQLite browser), {elsewhere}"
        )
    if "full" in low or getattr(error, "errno", None) == 28:
        return StoreError(
            f"the disk that holds the history database {path} is full: free some space, "
            f"{elsewhere} on another disk"
        )
    if "readonly" in low or "read-only" in low or isinstance(error, PermissionError):
        return StoreError(
            f"the history database {path} cannot be written ({text}): make it and its "
            f"folder writable, {elsewhere}"
        )
    if "not a database" in low or "malformed" in low or "encrypted" in low:
        return StoreError(
            f"the history database {path} is damaged ({text}): move it aside "
            f"(e.g. mv '{path}' '{path}.corrupt') and a new one starts next time, {elsewhere}"
        )
    if "unable to open" in low or isinstance(error, OSError):
        return StoreError(
            f"cannot open the history database {path} ({text}): check that its folder exists "
            f"and is writable, {elsewhere}"
        )
    return StoreError(f"the history database {path} failed ({text}): {elsewhere}")


# A history kept in memory for as long as its store is open: a run that keeps no history
# (the app when the file cannot be opened) still has its rows in one place to read and export.
IN_MEMORY = ":memory:"


def default_db_path() -> Path:
    return default_data_dir() / DB_FILENAME


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
        for name, sql_type in requests_columns_sql()
    )
    conn.execute(f"CREATE TABLE IF NOT EXISTS requests (\n{body}\n)")
    conn.execute("CREATE INDEX IF NOT EXISTS requests_run_id ON requests(run_id)")
    _add_aggregates_table(conn)


def _add_aggregates_table(conn: sqlite3.Connection) -> None:
    """A run's figures as another tool computed them (an imported result file): kept apart
    from `requests`, which holds only real requests, so counts and exports never mistake a
    mean for a request. One row per (metric, statistic), e.g. ("ttft", "p99") in ms."""
    conn.execute(
        """CREATE TABLE IF NOT EXISTS run_aggregates (
            run_id TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
            metric TEXT NOT NULL,
            statistic TEXT NOT NULL,
            value REAL NOT NULL,
            PRIMARY KEY (run_id, metric, statistic)
        )"""
    )


def _migrate(conn: sqlite3.Connection, path: Path) -> None:
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version > SCHEMA_VERSION:
        raise StoreError(
            f"the history database {path} was written by a newer version of the app "
            f"(schema {version}; this one reads up to {SCHEMA_VERSION}): update the app, "
            f"or set {DATA_DIR_ENV} to use another folder"
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
        add_missing_columns(conn)
        _add_aggregates_table(conn)
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:  # a full disk rolls it back already; ROLLBACK would hide why
            conn.execute("ROLLBACK")
        raise


# --------------------------------------------------------------------------------------------
# The store
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RunInfo:
    """One run as the history list shows it, in the window and in `workbench history list`.

    `requests` counts the measured requests only; of those, `errors` failed and `stopped` were
    stopped by the user (error_class cancelled: neither a failure nor a result). Calibration and
    warm-up requests are counted apart: they are sent but measure nothing."""

    run_id: str
    kind: str
    status: str
    created_at: float
    finished_at: float | None
    note: str | None
    config: dict[str, Any]
    requests: int
    errors: int
    stopped: int = 0
    calibration: int = 0
    warmup: int = 0


class RunStore:
    """SQLite history of runs and their requests.

    `path` defaults to `default_db_path()`. `redact` is applied to what could carry a secret
    pasted by mistake: the run config JSON, run notes, base URLs and error messages; the model's
    own text is kept as it came. The connection may only be used from the thread that opened it.
    Opening marks runs left "running" by dead processes as "interrupted" (see `recovered`).
    `RunStore(IN_MEMORY)` keeps the same history in memory only, gone when it closes.
    """

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        redact: Callable[[str], str] | None = None,
        recover: bool = True,
    ) -> None:
        self.path = Path(path) if path is not None else default_db_path()
        self.in_memory = str(path) == IN_MEMORY
        self._redact = redact or secrets_redact
        self._pid = os.getpid()
        self._into = "main."  # where `record` writes: "staging." while add_whole_run stages
        self._marker = process_start_marker(self._pid)
        try:
            if not self.in_memory:
                private_dir(self.path.parent)
                private_file(self.path)  # SQLite gives its -wal and -shm files the same mode
            self._conn = sqlite3.connect(
                IN_MEMORY if self.in_memory else self.path,
                timeout=BUSY_TIMEOUT_MS / 1000,
                isolation_level=None,
            )
        except (OSError, sqlite3.Error) as error:
            raise _explain(error, self.path) from None
        try:
            self._conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            mode = self._conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if str(mode).lower() != "wal" and not self.in_memory:
                raise StoreError(f"could not switch {self.path} to WAL mode (got {mode!r})")
            self._conn.execute("PRAGMA synchronous = NORMAL")
            self._conn.execute("PRAGMA foreign_keys = ON")
            _migrate(self._conn, self.path)
            self.recovered: list[str] = self.mark_interrupted() if recover else []
        except BaseException as error:
            self._conn.close()
            if isinstance(error, sqlite3.Error | OSError):
                raise _explain(error, self.path) from None
            raise

    @contextlib.contextmanager
    def _explained(self, busy_ms: int = BUSY_TIMEOUT_MS) -> Iterator[None]:
        """SQLite's errors as StoreErrors that name this file and the fix; wait at most
        `busy_ms` for another process's lock (then StoreBusy)."""
        try:
            if busy_ms != BUSY_TIMEOUT_MS:
                self._conn.execute(f"PRAGMA busy_timeout = {busy_ms}")
            try:
                yield
            finally:
                if busy_ms != BUSY_TIMEOUT_MS:
                    self._conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        except sqlite3.Error as error:
            raise _explain(error, self.path) from None

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
        config_json = self._redact(
            json.dumps(config, ensure_ascii=False, sort_keys=True, default=str)
        )
        with self._explained():
            self._insert_run(run_id, kind, config_json, note)
        return run_id

    def _insert_run(self, run_id: str, kind: str, config_json: str, note: str | None) -> None:
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

    def finish_run(self, run_id: str, status: RunStatus = "finished") -> None:
        """Close a run with its final status (StoreBusy, like `record`, when locked)."""
        if status not in get_args(RunStatus) or status == "running":
            raise ValueError(f"a run cannot finish as {status!r}")
        with self._explained(RECORD_BUSY_MS):
            cursor = self._conn.execute(
                "UPDATE runs SET status = ?, finished_at = ? WHERE run_id = ?",
                (status, time.time(), run_id),
            )
        if cursor.rowcount == 0:
            raise StoreError(f"no run {run_id!r} in {self.path}")

    def annotate(self, run_id: str, key: str, value: Any) -> None:
        """Add `key` to a run's config (a capacity search's answer, known at its end)."""
        with self._explained():
            for (text,) in self._conn.execute(
                "SELECT config_json FROM runs WHERE run_id = ?", (run_id,)
            ).fetchall():
                config = {**_load_json(text or "{}"), key: value}
                self._conn.execute(
                    "UPDATE runs SET config_json = ? WHERE run_id = ?",
                    (self._redact(json.dumps(config, ensure_ascii=False, default=str)), run_id),
                )

    def add_whole_run(
        self,
        kind: RunKind,
        config: dict[str, Any],
        run_id: str,
        results: Iterable[RequestResult],
        aggregates: dict[tuple[str, str], float] | None = None,
        created_at: float | None = None,
    ) -> bool:
        """Add a finished run with every row, or nothing: False when a finished run of that id
        is there already (one left unfinished is replaced).

        The rows go first to a private temporary database (unlinked at once, so the OS removes
        it even when this process is killed), holding no lock on the history; one short
        transaction then copies the run in. A kill at any point leaves no part of the run, and
        a bench recording meanwhile waits milliseconds, not the whole import."""
        config_json = self._redact(
            json.dumps(config, ensure_ascii=False, sort_keys=True, default=str)
        )
        with self._explained():
            self._conn.execute("ATTACH DATABASE '' AS staging")
        try:
            with self._explained():
                for table in ("requests", "run_aggregates"):
                    self._conn.execute(
                        f"CREATE TABLE staging.{table} AS SELECT * FROM main.{table} WHERE 0"
                    )
                self._conn.execute("CREATE UNIQUE INDEX staging.ids ON requests(request_id)")
            self._into = "staging."
            self._conn.execute("BEGIN")  # locks the staging database only: nothing else reads it
            batch: list[list[Any]] = []  # rows go in a thousand at a time: one call, not 1000
            for result in results:
                batch.append(self._row(result))
                if len(batch) >= 1000:
                    self._conn.executemany(self._insert_sql(), batch)
                    batch.clear()
            self._conn.executemany(self._insert_sql(), batch)
            self.record_aggregates(run_id, aggregates or {})
            self._conn.execute("COMMIT")
            self._into = "main."
            with self._explained():
                self._conn.execute("BEGIN IMMEDIATE")
                try:
                    return self._copy_staged(run_id, kind, config_json, created_at)
                except BaseException:
                    self._conn.execute("ROLLBACK")
                    raise
        finally:
            self._into = "main."
            if self._conn.in_transaction:  # a row failed while staged
                self._conn.execute("ROLLBACK")
            self._conn.execute("DETACH DATABASE staging")

    def _copy_staged(
        self, run_id: str, kind: str, config_json: str, created_at: float | None
    ) -> bool:
        found = self._conn.execute("SELECT status FROM runs WHERE run_id = ?", (run_id,))
        if found.fetchall() == [("finished",)]:
            self._conn.execute("ROLLBACK")
            return False
        self._conn.execute("DELETE FROM runs WHERE run_id = ?", (run_id,))  # a half-written one
        self._insert_run(run_id, kind, config_json, None)
        if created_at is not None:  # dated when the tool ran it (an import), not when it came in
            self._conn.execute(
                "UPDATE runs SET created_at = ? WHERE run_id = ?", (created_at, run_id)
            )
        for table in ("requests", "run_aggregates"):
            self._conn.execute(  # in the order recorded: `results` reads rows by rowid
                f"INSERT INTO main.{table} SELECT * FROM staging.{table} ORDER BY rowid"
            )
        self._conn.execute(
            "UPDATE runs SET status = 'finished', finished_at = ? WHERE run_id = ?",
            (time.time(), run_id),
        )
        self._conn.execute("COMMIT")
        return True

    def check_deletable(self, run_id: str) -> None:
        """StoreError when run `run_id` may not be deleted (there is none, or it runs): the one
        rule, asked by `delete_run` and, before it asks the user, by `history delete`."""
        if self.run(run_id).status == "running":
            raise StoreError(f"run {run_id} is still running: stop it first, then delete it")

    def delete_run(self, run_id: str) -> None:
        """Remove a run with its requests and aggregates (StoreError when `check_deletable`
        refuses it: the window and `history delete` both ask here)."""
        self.check_deletable(run_id)
        with self._explained():
            cursor = self._conn.execute("DELETE FROM runs WHERE run_id = ?", (run_id,))
        if cursor.rowcount == 0:
            raise StoreError(f"no run {run_id!r} in {self.path}")

    def mark_interrupted(self) -> list[str]:
        """Runs still "running" whose owner process is gone become "interrupted"; their ids."""
        with self._explained():
            return self._mark_interrupted()

    def _mark_interrupted(self) -> list[str]:
        rows = self._conn.execute(
            "SELECT run_id, owner_pid, owner_started FROM runs WHERE status = 'running'"
        ).fetchall()
        dead = [run_id for run_id, pid, marker in rows if not owner_alive(pid, marker)]
        now = time.time()
        for run_id in dead:
            self._conn.execute(
                "UPDATE runs SET status = 'interrupted', finished_at = ?"
                " WHERE run_id = ? AND status = 'running'",
                (now, run_id),
            )
        return dead

    def runs(self, limit: int = 50) -> list[RunInfo]:
        """The newest runs first, with their counts of requests (see `RunInfo`)."""
        measured = "q.phase = 'measured'"
        rows = self._conn.execute(
            f"""SELECT r.run_id, r.kind, r.status, r.created_at, r.finished_at, r.note,
                      r.config_json, TOTAL({measured}),
                      TOTAL({measured} AND q.error_class != 'cancelled'),
                      TOTAL({measured} AND q.error_class = 'cancelled'),
                      TOTAL(q.phase = 'calibration'), TOTAL(q.phase = 'warmup')
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
                requests=int(row[7]),
                errors=int(row[8]),
                stopped=int(row[9]),
                calibration=int(row[10]),
                warmup=int(row[11]),
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
        """Store one finished request and commit at once (recording it again replaces it).

        Raises StoreBusy when another process holds the lock for over RECORD_BUSY_MS (the
        caller retries), StoreError for anything else; the message names the file and the fix.
        """
        with self._explained(RECORD_BUSY_MS):
            try:
                self._conn.execute(self._insert_sql(), self._row(result))
            except sqlite3.IntegrityError as error:
                if "FOREIGN KEY" in str(error):
                    raise StoreError(f"no run {result.run_id!r}: call start_run first") from error
                raise

    def _insert_sql(self) -> str:
        updates = ", ".join(f"{n} = excluded.{n}" for n in ROW_NAMES if n != "request_id")
        return (
            f"INSERT INTO {self._into}requests ({', '.join(ROW_NAMES)})"
            f" VALUES ({', '.join('?' for _ in ROW_NAMES)})"
            f" ON CONFLICT(request_id) DO UPDATE SET {updates}"
        )

    def _row(self, result: RequestResult) -> list[Any]:
        """The values of ROW_NAMES for one request, as the requests table keeps them."""
        values = [encode(v) for encode, v in zip(_ENCODERS, _STORED_VALUES(result), strict=True)]
        prices = result.prices
        values += [encode_real(prices.input), encode_real(prices.output)]
        values += [encode_real(prices.cached_input), int(prices.known)]
        if values[_BASE_URL]:
            values[_BASE_URL] = self._redact(values[_BASE_URL])
        if values[_ERROR] is not None:
            values[_ERROR] = self._redact(values[_ERROR])
        metrics = derive(result)
        values += [encode_real(getattr(metrics, name)) for name in METRIC_COLUMNS]
        values.append(len(result.event_times))
        return values

    def results(self, run_id: str, skip: int = 0) -> list[RequestResult]:
        """Every recorded request of a run, in the order they were recorded; `skip` leaves out
        the first that many (rows a reader holds already)."""
        names = [c.name for c in RESULT_COLUMNS]
        rows = self._conn.execute(
            f"SELECT {', '.join(names)} FROM requests WHERE run_id = ? ORDER BY rowid"
            " LIMIT -1 OFFSET ?",
            (run_id, skip),
        ).fetchall()
        results = []
        for row in rows:
            try:
                results.append(decode_row(names, row))
            except ValueError as error:  # written by a newer version of the app
                request = row[names.index("request_id")]
                raise StoreError(f"{self.path}: request {request}: {error}") from None
        return results

    def request_ids(self, run_id: str) -> list[str]:
        """The ids of a run's recorded requests in the order recorded: what a reader that holds
        some of its rows compares, one short column per row."""
        query = "SELECT request_id FROM requests WHERE run_id = ? ORDER BY rowid"
        return [row[0] for row in self._conn.execute(query, (run_id,))]

    def has_run(self, run_id: str) -> bool:
        return bool(self._conn.execute("SELECT 1 FROM runs WHERE run_id = ?", (run_id,)).fetchall())

    def record_aggregates(self, run_id: str, values: dict[tuple[str, str], float]) -> None:
        """Keep a run's (metric, statistic) -> value figures, replacing any kept before."""
        with self._explained():
            self._conn.executemany(
                f"INSERT OR REPLACE INTO {self._into}run_aggregates"
                " (run_id, metric, statistic, value) VALUES (?, ?, ?, ?)",
                [(run_id, m, s, float(v)) for (m, s), v in values.items()],
            )

    def aggregates(self, run_id: str) -> dict[tuple[str, str], float]:
        rows = self._conn.execute(
            "SELECT metric, statistic, value FROM run_aggregates WHERE run_id = ?"
            " ORDER BY metric, statistic",
            (run_id,),
        ).fetchall()
        return {(m, s): v for m, s, v in rows}

    def query(self, sql: str, parameters: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """Rows of one SQL statement over the history, for reports and tests."""
        return self._conn.execute(sql, parameters).fetchall()


def _load_json(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except ValueError:  # a redaction hook may have cut through the JSON
        return {"_raw": text}
    return value if isinstance(value, dict) else {"_value": value}
