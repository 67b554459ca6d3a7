"""A full disk under `bench --output`: a real tmpfs of a few kilobytes, mounted for the test, and
the real `workbench bench` in a subprocess writing its rows to it.

Before: the last CSV row was torn (cut mid-field, no line end), the requests in flight were
labelled "stopped by the user", a 0-byte run.json was left, and a disk full before the run named
`--csv` when the user gave `--output`, and left the folder behind. Mounting needs root; anywhere
else these tests are skipped, and the skip says why.
"""

from __future__ import annotations

import csv
import io
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from workbench.core.history.csv_export import COLUMNS

WORKBENCH = [sys.executable, "-m", "workbench"]
QUICK = ["--model", "sim-70b-gqa", "--prompt-tokens", "1K", "--max-tokens", "8"]
DISK_BYTES = 48 * 1024  # room for the header and a few dozen rows


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A tmpfs of DISK_BYTES at tmp_path/disk, unmounted again whatever the test does."""
    if os.geteuid() != 0:
        pytest.skip("NOT RUN: mounting a small tmpfs needs root (a full disk cannot be faked)")
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={DISK_BYTES},mode=0755", "tmpfs", str(disk)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if mounted.returncode != 0:
        pytest.skip(f"NOT RUN: cannot mount a tmpfs here ({mounted.stderr.strip()})")
    try:
        yield disk
    finally:
        done = subprocess.run(["umount", str(disk)], capture_output=True, check=False)
        if done.returncode != 0:  # still busy: detach it now, the kernel frees it when unused
            subprocess.run(["umount", "-l", str(disk)], capture_output=True, check=False)
        assert not os.path.ismount(disk)


def _env(tmp_path: Path) -> dict[str, str]:
    return {
        **os.environ,
        "WORKBENCH_DATA_DIR": str(tmp_path / "data"),  # the history is on the ordinary disk
        "WORKBENCH_CONFIG_DIR": str(tmp_path / "config"),
    }


def _bench(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*WORKBENCH, "bench", *QUICK, *args],
        capture_output=True, text=True, env=_env(tmp_path), timeout=240, check=False,
    )  # fmt: skip


def test_a_disk_that_fills_mid_run_keeps_whole_rows_and_says_why(
    tmp_path: Path, small_disk: Path
) -> None:
    out = small_disk / "out"
    args = ["--repeats", "400", "--concurrency", "4", "--time-scale", "0.02"]
    proc = _bench(tmp_path, *args, "--output", str(out))
    assert proc.returncode == 1, proc.stderr[-3000:]
    assert (
        "the disk holding" in proc.stderr
        and "is full: free space or choose another --output" in proc.stderr
    )
    assert "stopped by the user" not in proc.stderr
    raw = (out / "results.csv").read_bytes()
    assert raw.endswith(b"\r\n")  # no torn last row
    rows = list(csv.DictReader(io.StringIO(raw.decode("utf-8"), newline="")))
    assert 3 <= len(rows) < 400
    assert all(set(row) == set(COLUMNS) and None not in row.values() for row in rows)
    assert not (out / "run.json").exists()  # whole or not at all, never 0 bytes
    assert not [p.name for p in out.iterdir() if p.name.startswith(".run.json")]
    with sqlite3.connect(tmp_path / "data" / "history.sqlite3") as db:
        stored = dict(db.execute("SELECT request_id, error_message FROM requests"))
        status = db.execute("SELECT status FROM runs").fetchall()
    assert {row["request_id"] for row in rows} <= set(stored)  # every CSV row is in the history
    assert len(stored) > len(rows)  # and the rows the disk refused are there too
    messages = [m for m in stored.values() if m]
    assert not any("stopped by the user" in m for m in messages)
    assert any("the run stopped (the disk holding" in m for m in messages)
    assert status == [("failed",)]


def test_a_disk_full_before_the_run_names_output_and_creates_nothing(
    tmp_path: Path, small_disk: Path
) -> None:
    with (small_disk / "filler").open("wb", buffering=0) as f, pytest.raises(OSError):
        while True:
            f.write(b"x" * 4096)
    out = small_disk / "new"
    proc = _bench(tmp_path, "--output", str(out))
    assert proc.returncode == 2, proc.stderr[-3000:]
    assert "--output" in proc.stderr and "--csv" not in proc.stderr
    assert "is full: free space or choose another --output" in proc.stderr
    assert not out.exists()
    proc = _bench(tmp_path, "--csv", str(small_disk / "r.csv"))
    assert proc.returncode == 2 and "choose another --csv" in proc.stderr
    assert not (small_disk / "r.csv").exists()


def test_a_history_on_a_full_disk_fails_the_run_and_stays_whole(
    tmp_path: Path, small_disk: Path
) -> None:
    """SQLite on the full disk: before the run, exit 2 naming the file and the fix (a ROLLBACK
    of what SQLite had rolled back hid the cause); mid-run, the run stops (exit 1), the history
    passes its integrity check with every row it committed, and the CSV holds them all."""
    env = {**_env(tmp_path), "WORKBENCH_DATA_DIR": str(small_disk)}
    args = ["--repeats", "400", "--concurrency", "4", "--time-scale", "0.02"]
    proc = subprocess.run(
        [*WORKBENCH, "bench", *QUICK, *args, "--csv", str(tmp_path / "r.csv")],
        capture_output=True, text=True, env=env, timeout=240, check=False,
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr[-3000:]  # 48 KiB: the new history does not fit
    assert "history.sqlite3 is full: free some space" in proc.stderr, proc.stderr[-3000:]
    assert not (tmp_path / "r.csv").exists()
    subprocess.run(["mount", "-o", "remount,size=160k", str(small_disk)], check=True)
    proc = subprocess.run(
        [*WORKBENCH, "bench", *QUICK, *args, "--csv", str(tmp_path / "r.csv")],
        capture_output=True, text=True, env=env, timeout=240, check=False,
    )  # fmt: skip
    assert proc.returncode == 1, proc.stderr[-3000:]  # full mid-run: the run stops
    assert "history.sqlite3 is full: free some space" in proc.stderr
    with sqlite3.connect(small_disk / "history.sqlite3") as db:
        assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        stored = {r for (r,) in db.execute("SELECT request_id FROM requests")}
        assert db.execute("SELECT status FROM runs").fetchall() == [("failed",)]
    with (tmp_path / "r.csv").open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert stored and stored <= {row["request_id"] for row in rows}
