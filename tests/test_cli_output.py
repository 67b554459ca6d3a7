"""`--json`, `bench --output DIR`, no silent overwrite, `history list|show`: as users run them."""

from __future__ import annotations

import csv
import json
import signal
import sqlite3
import statistics
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.cli_inprocess import run_cli

WORKBENCH = [sys.executable, "-m", "workbench"]
QUICK = ["--model", "sim-70b-gqa", "--prompt-tokens", "1K", "--max-tokens", "8"]


def _run(
    args: list[str], env: dict[str, str], cwd: Path | None = None
) -> subprocess.CompletedProcess:
    """The command in this process (a start cost ~0.3 s CPU); Ctrl+C below uses a real one."""
    return run_cli(args, env, cwd=cwd)


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def test_bench_json_prints_configuration_aggregates_and_rows_on_stdout(tmp_path, env) -> None:
    args = ["bench", *QUICK, "--repeats", "3", "--warmup", "1", "--json"]
    proc = _run([*args, "--csv", str(tmp_path / "r.csv")], env)
    assert proc.returncode == 0, proc.stderr
    run = json.loads(proc.stdout)  # stdout is the document only: progress is on stderr
    assert "1/" in proc.stderr and "done" in proc.stderr
    assert run["schema"] == "workbench.run/1" and len(run["run_id"]) == 32
    assert run["config"]["prompt_lengths"] == [1024] and run["config"]["repeats"] == 3
    assert run["rows"]["measured"] == 3 and run["rows"]["warmup"] == 1
    figures = run["aggregates"]["sim-70b-gqa"]
    for name in ("ttft", "tpot", "itl", "e2el"):
        for stat in ("mean", "median", "std", "p90", "p99"):
            assert figures[f"{stat}_{name}_ms"] >= 0, (stat, name)
    assert figures["completed"] == 3 and figures["failed"] == 0
    assert figures["request_throughput"] > 0 and figures["output_throughput"] > 0
    measured = [r for r in _rows(tmp_path / "r.csv") if r["phase"] == "measured"]
    mean_ttft = statistics.fmean(float(r["ttft_ms"]) for r in measured)
    assert figures["mean_ttft_ms"] == pytest.approx(mean_ttft, rel=1e-3)


def test_output_dir_gets_the_csv_with_warmups_marked_and_run_json(tmp_path, env) -> None:
    out = tmp_path / "runs" / "first"
    proc = _run(["bench", *QUICK, "--repeats", "2", "--warmup", "2", "--output", str(out)], env)
    assert proc.returncode == 0, proc.stderr
    rows = _rows(out / "results.csv")
    warmups = [r for r in rows if r["phase"] == "warmup"]
    assert len(warmups) == 2 and all(r["warmup"] == "true" for r in warmups)
    assert sum(r["phase"] == "measured" for r in rows) == 2
    run = json.loads((out / "run.json").read_text(encoding="utf-8"))
    assert run["rows"]["warmup"] == 2 and run["rows"]["total"] == len(rows)
    assert run["aggregates"]["sim-70b-gqa"]["completed"] == 2  # warm-ups not aggregated
    assert run["run_id"] == rows[0]["run_id"]


def test_a_non_empty_output_dir_is_refused_unless_force(tmp_path, env) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "results.csv").write_text("precious\n", encoding="utf-8")
    proc = _run(["bench", *QUICK, "--output", str(out)], env)
    assert proc.returncode == 2
    assert "not empty" in proc.stderr and "--force" in proc.stderr
    assert (out / "results.csv").read_text(encoding="utf-8") == "precious\n"
    proc = _run(["bench", *QUICK, "--output", str(out), "--force"], env)
    assert proc.returncode == 0, proc.stderr
    assert len(_rows(out / "results.csv")) >= 1 and (out / "run.json").is_file()


def test_an_existing_csv_is_refused_and_the_default_name_moves_on(tmp_path, env) -> None:
    taken = tmp_path / "mine.csv"
    taken.write_text("precious\n", encoding="utf-8")
    proc = _run(["bench", *QUICK, "--csv", str(taken)], env)
    assert proc.returncode == 2 and "--force" in proc.stderr and "new --csv" in proc.stderr
    assert taken.read_text(encoding="utf-8") == "precious\n"
    (tmp_path / "results.csv").write_text("earlier run\n", encoding="utf-8")
    proc = _run(["bench", *QUICK], env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "results.csv").read_text(encoding="utf-8") == "earlier run\n"
    assert "writing results-1.csv" in proc.stderr and _rows(tmp_path / "results-1.csv")


def test_ctrl_c_keeps_every_finished_row_in_the_output_dir(tmp_path, env) -> None:
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [
            *WORKBENCH,
            "bench",
            *QUICK,
            "--repeats",
            "200",
            "--time-scale",
            "0.05",
            "--output",
            str(out),
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
            seen = int(line.split("/")[0].split()[-1])
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    rows = _rows(out / "results.csv")
    with sqlite3.connect(tmp_path / "data" / "history.sqlite3") as conn:
        stored = conn.execute("SELECT COUNT(*) FROM requests").fetchone()[0]
    # every request that finished (cancelled ones too) is a row in the CSV
    assert len(rows) == stored and sum(r["phase"] == "measured" for r in rows) >= seen >= 5
    run = json.loads((out / "run.json").read_text(encoding="utf-8"))
    assert run["rows"]["total"] == len(rows)


def test_models_and_providers_list_print_json(tmp_path, env) -> None:
    proc = _run(["models", "--json"], env)
    assert proc.returncode == 0, proc.stderr
    listed = json.loads(proc.stdout)
    gqa = next(m for m in listed["models"] if m["id"] == "sim-70b-gqa")
    assert gqa["attention"] == "GQA" and gqa["context_window"] == 1056768 and gqa["on_server"]
    env = {**env, "GW_KEY": "sk-test-not-printed-123456"}
    add = ["providers", "add", "gw", "--base-url", "http://127.0.0.1:9/v1"]
    assert _run([*add, "--api-key-env", "GW_KEY", "--model", "m1"], env).returncode == 0
    proc = _run(["providers", "list", "--json"], env)
    assert proc.returncode == 0, proc.stderr
    saved = json.loads(proc.stdout)["providers"]
    assert [(p["name"], p["base_url"], p["models"]) for p in saved] == [
        ("gw", "http://127.0.0.1:9/v1", ["m1"])
    ]
    assert "GW_KEY" in saved[0]["key"] and "sk-test" not in proc.stdout


def test_history_list_and_show_describe_past_runs(tmp_path, env) -> None:
    for model in ("sim-70b-gqa", "sim-70b-mla"):
        args = ["bench", "--model", model, "--prompt-tokens", "1K", "--max-tokens", "8"]
        proc = _run([*args, "--repeats", "2", "--csv", str(tmp_path / f"{model}.csv")], env)
        assert proc.returncode == 0, proc.stderr
    proc = _run(["history", "list", "--json"], env)
    assert proc.returncode == 0, proc.stderr
    runs = json.loads(proc.stdout)
    assert [r["models"] for r in runs] == [["sim-70b-mla"], ["sim-70b-gqa"]]  # newest first
    assert all(r["kind"] == "comparison" and r["status"] == "finished" for r in runs)
    assert all(r["requests"] >= 2 and r["errors"] == 0 for r in runs)
    proc = _run(["history", "show", runs[1]["run_id"][:8], "--json"], env)
    assert proc.returncode == 0, proc.stderr
    shown = json.loads(proc.stdout)
    assert shown["run_id"] == runs[1]["run_id"] and shown["config"]["repeats"] == 2
    assert shown["aggregates"]["sim-70b-gqa"]["completed"] == 2
    assert shown["aggregates"]["sim-70b-gqa"]["median_ttft_ms"] > 0
    proc = _run(["history", "show", "zzzz"], env)
    assert proc.returncode == 2 and "history list" in proc.stderr


def test_a_prompt_over_the_context_window_is_refused_with_the_numbers(tmp_path, env) -> None:
    out = tmp_path / "over.csv"
    args = ["bench", "--model", "sim-llama-2-7b", "--prompt-tokens", "4K", "--max-tokens", "64"]
    proc = _run([*args, "--csv", str(out)], env)
    assert proc.returncode == 2
    assert "4,096-token prompt + max_tokens 64 = 4,160" in proc.stderr
    assert "context window of 4,096" in proc.stderr and "--allow-overflow" in proc.stderr
    assert "Run:" not in proc.stderr and not (out.exists() and out.stat().st_size)
    # --allow-overflow sends it: the server's own answer is the row
    proc = _run([*args, "--csv", str(out), "--allow-overflow"], env)
    assert proc.returncode == 3, proc.stderr
    measured = [r for r in _rows(out) if r["phase"] == "measured"]
    assert len(measured) == 1 and measured[0]["http_status"] == "400"
    assert "context window" in measured[0]["error_message"]


def test_a_prompt_that_fits_is_not_refused(tmp_path, env) -> None:
    args = ["bench", "--model", "sim-llama-2-7b", "--prompt-tokens", "2K", "--max-tokens", "64"]
    proc = _run([*args, "--csv", str(tmp_path / "fits.csv")], env)
    assert proc.returncode == 0, proc.stderr
