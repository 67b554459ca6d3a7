"""`workbench bench --workers N`: one run over several client processes (issue 14, item 2).

Real `workbench bench` subprocesses on the built-in provider, real worker processes, real
signals, real SQLite.
"""

from __future__ import annotations

import csv
import io
import os
import signal
import sqlite3
import statistics
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_gateway_cooldown import KEY, LITELLM_COOLDOWN

from tests.support.cli_inprocess import run_cli
from tests.support.gateway_imitation import Imitation
from tests.support.litellm_gateway import KEY_VARIABLE, cli
from tests.support.loopback import serving_in_thread
from workbench.core.foundation.errors import GATEWAY_COOLDOWN_CAUSE
from workbench.core.history.csv_export import COLUMNS

WORKBENCH = [sys.executable, "-m", "workbench"]
MODEL = "sim-70b-gqa"


def bench_args(csv_path: Path, *extra: str, repeats: int = 12, scale: str = "0.05") -> list[str]:
    return [
        "bench",
        "--model",
        MODEL,
        "--prompt-tokens",
        "1K",
        "--repeats",
        str(repeats),
        "--concurrency",
        "4",
        "--max-tokens",
        "8",
        "--time-scale",
        scale,
        "--csv",
        str(csv_path),
        *extra,
    ]


def run_bench(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*WORKBENCH, *args], env=env, capture_output=True, text=True, timeout=180)


def csv_rows(path: Path) -> list[dict[str, str]]:
    raw = path.read_text(encoding="utf-8")
    reader = csv.DictReader(io.StringIO(raw, newline=""))
    rows = list(reader)
    assert tuple(reader.fieldnames or ()) == COLUMNS
    return rows


def measured(rows: list[dict[str, str]]) -> list[dict[str, str]]:
    return [r for r in rows if r["phase"] == "measured"]


def history(data_dir: Path) -> list[tuple[str, int]]:
    """(run id, its request rows) of every run in the history."""
    with sqlite3.connect(data_dir / "history.sqlite3") as conn:
        runs = [r[0] for r in conn.execute("SELECT run_id FROM runs")]
        return [
            (
                run,
                conn.execute("SELECT COUNT(*) FROM requests WHERE run_id = ?", (run,)).fetchone()[
                    0
                ],
            )
            for run in runs
        ]


def test_two_workers_give_the_same_rows_as_one_process(tmp_path: Path, env) -> None:
    # "one process": this one (run_cli), one process start fewer
    one = run_cli(bench_args(tmp_path / "one.csv", "--workers", "1"), env)
    assert one.returncode == 0, one.stderr
    assert "Workers:" not in one.stderr  # one worker is today's single process
    env2 = {**env, "WORKBENCH_DATA_DIR": str(tmp_path / "data2")}
    two = run_bench(bench_args(tmp_path / "two.csv", "--workers", "2"), env2)
    assert two.returncode == 0, two.stderr
    assert "Workers: 2 worker processes on this machine (concurrency 2 + 2)" in two.stderr

    rows_one, rows_two = csv_rows(tmp_path / "one.csv"), csv_rows(tmp_path / "two.csv")
    assert len(rows_two) == len(rows_one)
    m1, m2 = measured(rows_one), measured(rows_two)
    assert sorted(int(r["repeat"]) for r in m2) == list(range(12))  # numbered as one run
    assert {r["concurrency"] for r in m2} == {"4"}  # the cell's concurrency, not a share
    assert {r["run_id"] for r in rows_two} == {rows_two[0]["run_id"]}
    assert all(r["error_class"] == "" for r in m2)
    # same-sized prompts: the coordinator's calibration reached both workers
    assert {r["prompt_tokens"] for r in m2} == {r["prompt_tokens"] for r in m1}
    assert {r["completion_tokens"] for r in m2} == {"8"}
    ttft_one = statistics.median(float(r["ttft_ms"]) for r in m1)
    ttft_two = statistics.median(float(r["ttft_ms"]) for r in m2)
    assert abs(ttft_two - ttft_one) <= max(25.0, 0.5 * ttft_one), (ttft_one, ttft_two)
    # one run in the history, holding every row the CSV has
    runs = history(tmp_path / "data2")
    assert len(runs) == 1 and runs[0][0] == rows_two[0]["run_id"]
    assert runs[0][1] == len(rows_two)


def _worker_pids(parent: int) -> list[int]:
    """The spawned worker processes of `parent` (not multiprocessing's resource tracker)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == parent and "spawn_main" in cmdline:
            pids.append(int(entry.name))
    return pids


@pytest.mark.skipif(sys.platform != "linux", reason="finds the workers through /proc")
def test_a_killed_worker_process_leaves_classified_rows_and_the_rest_finish(
    tmp_path: Path, env
) -> None:
    csv_path = tmp_path / "kill.csv"
    args = bench_args(csv_path, "--workers", "2", repeats=40, scale="0.5")
    proc = subprocess.Popen(
        [*WORKBENCH, *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        deadline = time.monotonic() + 90
        assert proc.stderr is not None
        while time.monotonic() < deadline:  # a few rows first: the kill lands mid-run
            line = proc.stderr.readline()
            if " done, " in line and int(line.split("/")[0].strip()) >= 4:
                break
        workers = _worker_pids(proc.pid)
        assert len(workers) == 2, workers
        os.kill(workers[0], signal.SIGKILL)
        _out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 3, err  # some requests failed: the documented exit code
    rows = measured(csv_rows(csv_path))
    assert sorted(int(r["repeat"]) for r in rows) == list(range(40))  # none missing
    lost = [r for r in rows if r["error_class"] == "worker_lost"]
    ok = [r for r in rows if r["error_class"] == ""]
    assert lost and len(ok) >= 20  # the other worker finished its whole share
    assert "killed by signal 9" in lost[0]["error_message"]
    assert "Fix:" in lost[0]["error_message"]
    assert "worker_lost" in err


def test_two_workers_name_a_failed_calibration_as_one_process_does_and_keep_the_key(
    tmp_path: Path,
) -> None:
    """The coordinator's calibration failed (a gateway in cooldown): every worker's row says what
    the gateway answered, word for word as in one process; the key reaches the workers but
    nothing they print or write (`cli` checks the output and the CSV)."""
    runs = {}
    with serving_in_thread(Imitation(["gw-model"], [], refuse_chat=LITELLM_COOLDOWN).app()) as url:
        for workers in ("1", "2"):
            csv_path = tmp_path / f"w{workers}.csv"
            runs[workers] = cli(KEY, "bench", "--base-url", url, "--api-key-env", KEY_VARIABLE,
                                "--model", "gw-model", "--prompt-tokens", "128", "--max-tokens",
                                "4", "--concurrency", "4", "--workers", workers, "--csv",
                                str(csv_path), "--no-store", csv_path=csv_path,
                                in_process=workers == "1")  # fmt: skip
    assert runs["1"].returncode == runs["2"].returncode == 3
    assert "Workers: 2 worker processes" in runs["2"].stderr
    messages = {w: sorted(r["error_message"] for r in run.rows) for w, run in runs.items()}
    assert len(messages["2"]) == 4 and messages["2"] == messages["1"]
    # each row is the same cooldown refusal the calibration met: named as such, with no note
    # that it follows the calibration (that note is for a different failure caused by it)
    assert all(f"Cause: {GATEWAY_COOLDOWN_CAUSE}" in m for m in messages["2"])
    assert not any("after the calibration request failed" in m for m in messages["2"])
    (calibration,) = runs["2"].calibration
    assert (
        calibration["http_status"] == "429"
        and "No deployments available" in calibration["error_message"]
    )


@pytest.mark.skipif(sys.platform != "linux", reason="finds the workers through /proc")
def test_ctrl_c_stops_every_worker_and_keeps_every_finished_row(tmp_path: Path, env) -> None:
    csv_path = tmp_path / "stop.csv"
    args = bench_args(csv_path, "--workers", "2", repeats=2000, scale="0.5")
    proc = subprocess.Popen(
        [*WORKBENCH, *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert proc.stderr is not None
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            line = proc.stderr.readline()
            if not line or (" done, " in line and int(line.split("/")[0].strip()) >= 4):
                break
        workers = _worker_pids(proc.pid)
        assert len(workers) == 2, workers
        proc.send_signal(signal.SIGINT)
        _out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    rows = csv_rows(csv_path)
    assert 4 <= len(measured(rows)) < 2000
    assert any(r["error_class"] == "cancelled" for r in rows)  # in flight when stopped
    assert not [r for r in rows if r["error_class"] not in ("", "cancelled")]
    assert history(tmp_path / "data") == [(rows[0]["run_id"], len(rows))]
    for pid in workers:  # no worker outlives the run
        assert not Path(f"/proc/{pid}").exists() or "Z" in Path(f"/proc/{pid}/stat").read_text()
