"""The `workbench` command as a user runs it: a real subprocess, real files, real exit codes."""

from __future__ import annotations

import csv
import signal
import sqlite3
import subprocess
import sys
import time

from tests.support.cli_inprocess import run_cli
from tests.support.ports import refusing_port
from tests.support.serve_local import serve_local
from workbench.core.history.csv_export import COLUMNS

WORKBENCH = [sys.executable, "-m", "workbench"]


def _run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    """The command in this process (a start cost ~0.3 s CPU); the SIGKILL test uses a real one."""
    return run_cli(args, env)


def test_bench_on_builtin_provider_prints_table_and_writes_documented_csv(tmp_path, env) -> None:
    out = tmp_path / "out.csv"
    proc = _run(
        [
            "bench",
            "--model",
            "sim-70b-gqa",
            "--model",
            "sim-70b-mla",
            "--prompt-tokens",
            "1K,4K",
            "--max-tokens",
            "16",
            "--time-scale",
            "0.01",
            "--csv",
            str(out),
        ],
        env,
    )
    assert proc.returncode == 0, proc.stderr
    assert "sim-70b-gqa" in proc.stdout and "decode tok/s" in proc.stdout
    with out.open(newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        rows = list(reader)
    assert tuple(reader.fieldnames) == COLUMNS
    # one calibration row per model (its prompt size learned at the first length), then the
    # four measured requests
    calibration = [r for r in rows if r["phase"] == "calibration"]
    assert sorted(r["model"] for r in calibration) == ["sim-70b-gqa", "sim-70b-mla"]
    assert all(r["warmup"] == "true" and r["task"] == "calibration" for r in calibration)
    rows = [r for r in rows if r["phase"] == "measured"]
    assert len(rows) == 4
    assert {(r["model"], r["prompt_tokens_target"]) for r in rows} == {
        ("sim-70b-gqa", "1024"),
        ("sim-70b-gqa", "4096"),
        ("sim-70b-mla", "1024"),
        ("sim-70b-mla", "4096"),
    }
    assert all(float(r["decode_tps"]) > 0 and r["error_class"] == "" for r in rows)
    assert {r["attention"] for r in rows} == {"GQA", "MLA"}


def test_unknown_model_is_refused_with_a_suggestion(tmp_path, env) -> None:
    proc = _run(["bench", "--model", "sim-70b-gqq", "--csv", str(tmp_path / "x.csv")], env)
    assert proc.returncode == 2
    assert "sim-70b-gqq" in proc.stderr and "sim-70b-gqa" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_unreachable_url_is_a_clear_error(tmp_path, env) -> None:
    with refusing_port() as port:
        proc = _run(
            [
                "bench",
                "--base-url",
                f"http://127.0.0.1:{port}/v1",
                "--model",
                "m",
                "--csv",
                str(tmp_path / "x.csv"),
            ],
            env,
        )
    assert proc.returncode == 2
    assert "cannot connect" in proc.stderr and "Fix:" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_bad_flags_exit_non_zero(env) -> None:
    proc = _run(["bench", "--model", "m", "--prompt-tokens", "lots"], env)
    assert proc.returncode == 2 and "not a token count" in proc.stderr
    proc = _run(["bench", "--model", "sim-70b-gqa", "--concurrency", "999"], env)
    assert proc.returncode == 2 and "concurrency must be 1..256" in proc.stderr


def test_partial_failure_exits_3_and_keeps_the_good_rows(tmp_path, env) -> None:
    out = tmp_path / "mixed.csv"
    proc = _run(
        [
            "bench",
            "--model",
            "sim-70b-gla",
            "--model",
            "sim-70b-gqa+500",
            "--prompt-tokens",
            "1K",
            "--max-tokens",
            "8",
            "--time-scale",
            "0.01",
            "--csv",
            str(out),
        ],
        env,
    )
    assert proc.returncode == 3, proc.stderr
    rows = {r["model"]: r for r in csv.DictReader(out.open(encoding="utf-8"))}
    assert rows["sim-70b-gla"]["error_class"] == ""
    assert rows["sim-70b-gqa+500"]["error_class"] == "server_error"


def test_serve_local_and_bench_against_it_with_a_key(tmp_path, env) -> None:
    """A key goes in through an environment variable and comes out nowhere."""
    key = "sk-test-" + "k3y" * 10
    server_env = {**env, "LOCAL_KEY": key}
    flags = ("--time-scale", "0.01", "--api-key-env", "LOCAL_KEY")
    with serve_local(*flags, env=server_env) as server:
        base = server.base_url
        out = tmp_path / "keyed.csv"
        no_key = _run(
            ["bench", "--base-url", base, "--model", "sim-70b-gqa", "--csv", str(out)], env
        )
        assert no_key.returncode == 2 and "rejected the API key" in no_key.stderr
        proc = _run(
            [
                "bench",
                "--base-url",
                base,
                "--api-key-env",
                "LOCAL_KEY",
                "--model",
                "sim-70b-gqa",
                "--model",
                "sim-70b-mla",
                "--prompt-tokens",
                "1K",
                "--max-tokens",
                "8",
                "--csv",
                str(out),
            ],
            server_env,
        )
        assert proc.returncode == 0, proc.stderr
    assert server.proc.returncode == 0  # SIGTERM ends it cleanly
    data_files = list((tmp_path / "data").glob("*"))
    assert data_files
    for path in [out, *data_files]:
        assert key.encode() not in path.read_bytes(), path
    assert key not in proc.stdout + proc.stderr + no_key.stderr


def test_sigkill_during_a_sweep_keeps_every_finished_request(tmp_path, env) -> None:
    proc = subprocess.Popen(
        [
            *WORKBENCH,
            "bench",
            "--model",
            "sim-70b-gqa",
            "--prompt-tokens",
            "1K",
            "--repeats",
            "200",
            "--max-tokens",
            "4",
            "--time-scale",
            "0.05",
            "--csv",
            str(tmp_path / "k.csv"),
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    seen = 0
    deadline = time.monotonic() + 60
    while seen < 5 and time.monotonic() < deadline:
        line = proc.stderr.readline()
        if "done," in line:
            seen = int(line.split("/")[0])
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    db = tmp_path / "data" / "history.sqlite3"
    with sqlite3.connect(db) as conn:
        finished = conn.execute("SELECT COUNT(*) FROM requests WHERE warmup = 0").fetchone()[0]
    # every request the CLI reported as done was already committed
    assert finished >= seen >= 5
    reopen = _run(
        [
            "bench",
            "--model",
            "sim-70b-gla",
            "--prompt-tokens",
            "1K",
            "--max-tokens",
            "4",
            "--time-scale",
            "0.01",
            "--csv",
            str(tmp_path / "k2.csv"),
        ],
        env,
    )
    assert reopen.returncode == 0, reopen.stderr
    with sqlite3.connect(db) as conn:
        statuses = dict(conn.execute("SELECT status, COUNT(*) FROM runs GROUP BY status"))
    assert statuses == {"interrupted": 1, "finished": 1}
