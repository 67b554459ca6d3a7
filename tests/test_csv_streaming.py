"""Rows reach the CSV as requests finish: Ctrl-C, kill -9 or a failing history keep every
finished row in a valid CSV, and every file a run writes is private (0600 in 0700 folders).

Real `workbench bench` subprocesses on the built-in provider, real signals, real SQLite.
"""

from __future__ import annotations

import csv
import io
import signal
import sqlite3
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from workbench.core.foundation.results import RequestResult
from workbench.core.history.csv_export import COLUMNS, CsvWriter

WORKBENCH = [sys.executable, "-m", "workbench"]
# far more than a test lets finish: a run stopped early has fewer rows than this
PLANNED = 2 * 20000
LONG_RUN = [
    "bench",
    "--model",
    "sim-70b-gqa",
    "--model",
    "sim-70b-mla",
    "--prompt-tokens",
    "1K",
    "--repeats",
    "20000",
    "--concurrency",
    "4",
    "--max-tokens",
    "4",
    "--time-scale",
    "0.05",
]


def _start(args: list[str], env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*WORKBENCH, *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _wait_for_done(proc: subprocess.Popen[str], at_least: int, timeout_s: float = 60) -> int:
    """Read progress lines until `at_least` requests are reported done; the last count seen."""
    assert proc.stderr is not None
    seen = 0
    deadline = time.monotonic() + timeout_s
    while seen < at_least and time.monotonic() < deadline:
        line = proc.stderr.readline()
        if not line:
            break
        if " done, " in line:
            seen = int(line.split("/")[0])
    assert seen >= at_least, f"the run reported only {seen} requests done"
    return seen


def _csv_rows(path: Path) -> list[dict[str, str]]:
    raw = path.read_bytes().decode("utf-8")
    reader = csv.DictReader(io.StringIO(raw, newline=""))
    rows = list(reader)
    assert tuple(reader.fieldnames or ()) == COLUMNS
    assert raw.endswith("\r\n")  # no half-written last row
    assert all(None not in row and len(row) == len(COLUMNS) for row in rows)
    return rows


def _db_rows(db: Path) -> tuple[set[str], list[str]]:
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        ids = {
            r[0] for r in conn.execute("SELECT request_id FROM requests WHERE phase != 'warmup'")
        }
        statuses = [r[0] for r in conn.execute("SELECT status FROM runs")]
    return ids, statuses


def test_ctrl_c_mid_run_keeps_every_finished_row_in_a_valid_csv(tmp_path: Path, env) -> None:
    out = tmp_path / "run.csv"
    proc = _start([*LONG_RUN, "--csv", str(out)], env)
    seen = _wait_for_done(proc, 12)
    proc.send_signal(signal.SIGINT)
    _stdout, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr and "interrupted:" in stderr
    rows = _csv_rows(out)
    assert seen <= len(rows) < PLANNED
    assert f"Wrote {len(rows)} rows" in _stdout
    # the requests in flight became 'cancelled' rows; the rest succeeded
    assert {r["error_class"] for r in rows} <= {"", "cancelled"}
    db_ids, statuses = _db_rows(tmp_path / "data" / "history.sqlite3")
    assert statuses == ["cancelled"]
    assert {r["request_id"] for r in rows} == db_ids  # the CSV and the history agree


def test_kill_9_mid_run_keeps_the_finished_rows_and_leaves_no_temp_files(
    tmp_path: Path, env
) -> None:
    out = tmp_path / "run.csv"
    proc = _start([*LONG_RUN, "--csv", str(out)], env)
    seen = _wait_for_done(proc, 12)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    rows = _csv_rows(out)
    assert len(rows) >= seen  # each row is on disk before its progress line is printed
    csv_ids = {r["request_id"] for r in rows}
    db_ids, _statuses = _db_rows(tmp_path / "data" / "history.sqlite3")
    assert csv_ids <= db_ids  # stored first, then written: never a CSV row the history lacks
    assert len(db_ids - csv_ids) <= 8  # at most the rows between store and CSV at the kill
    leftovers = [p for p in [*tmp_path.rglob("*.tmp"), *tmp_path.rglob("*.tmp.*")]]
    assert leftovers == []


@pytest.mark.slow  # the history is retried for 10 s before the run fails
def test_a_history_locked_mid_run_fails_the_run_loudly_and_the_csv_keeps_the_rows(
    tmp_path: Path, env
) -> None:
    """Another process holds the history's lock for good: retried ~10 s, then exit 1 naming
    the file and the fix; every request sent before that is a row in the CSV."""
    out = tmp_path / "run.csv"
    # ten times slower than LONG_RUN: rows still finish while the history is retried, and the
    # run's ~10 s of retries no longer burn seconds of CPU that a neighbour worker waits for
    slower = [*LONG_RUN[:-1], "0.5"]
    proc = _start([*slower, "--csv", str(out)], env)
    seen = _wait_for_done(proc, 6)
    holder = sqlite3.connect(tmp_path / "data" / "history.sqlite3", isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        _stdout, stderr = proc.communicate(timeout=60)
    finally:
        holder.rollback()
        holder.close()
    assert proc.returncode == 1, stderr
    assert "the run stopped early" in stderr and "locked by another process" in stderr
    assert str(tmp_path / "data" / "history.sqlite3") in stderr
    assert "WORKBENCH_DATA_DIR" in stderr and "Traceback" not in stderr
    rows = _csv_rows(out)
    assert seen <= len(rows) < PLANNED
    db_ids, _statuses = _db_rows(tmp_path / "data" / "history.sqlite3")
    assert db_ids < {r["request_id"] for r in rows}  # the CSV has what the store could not take


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_history_calibration_and_csv_are_private_and_the_csv_folder_is_left_alone(
    tmp_path: Path, env
) -> None:
    results = tmp_path / "results"
    results.mkdir(mode=0o755)
    results.chmod(0o755)
    out = results / "run.csv"
    data = tmp_path / "nested" / "data"
    env = {**env, "WORKBENCH_DATA_DIR": str(data)}
    proc = subprocess.run(
        [*WORKBENCH, *LONG_RUN[:7], "--max-tokens", "4", "--time-scale", "0.01", "--csv", str(out)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert _mode(data) == 0o700 and _mode(data.parent) == 0o700  # folders we created
    files = sorted(p.name for p in data.iterdir())
    assert "history.sqlite3" in files and "calibration.json" in files
    for name in files:
        assert _mode(data / name) == 0o600, name
    assert _mode(out) == 0o600
    assert _mode(results) == 0o755  # the user's own folder keeps its mode


def test_each_appended_row_is_on_disk_before_the_next_request_finishes(tmp_path: Path) -> None:
    path = tmp_path / "live.csv"
    with CsvWriter(path) as writer:
        assert _csv_rows(path) == []  # the header alone is already a valid CSV
        for i in range(3):
            writer.append(RequestResult(model=f"m{i}", error_message='a, "quoted"\nline'))
            rows = _csv_rows(path)  # read by another handle while the writer stays open
            assert [r["model"] for r in rows] == [f"m{j}" for j in range(i + 1)]
    assert rows[0]["error_message"] == 'a, "quoted"\nline'
