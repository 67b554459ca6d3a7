"""Files the peer tools wrote for real (tests/data/peers/, made by scripts/make_peer_fixtures.sh)
import through the real CLI, and `history show --json` gives each file's own figures: guidellm's
medians (one of the values, not an interpolation), AIPerf's summary with its model, URL and
concurrency, vLLM's totals beside its rows, each file's own date (issue 26)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

import pytest
import yaml

from tests.support.cli_inprocess import run_cli

PEERS = Path(__file__).parent / "data" / "peers"
RESULTS = Path(__file__).parent / "data" / "results"
GUIDELLM = PEERS / "guidellm-0.8.1"
AIPERF = PEERS / "aiperf-0.13.0"
WORKBENCH = [sys.executable, "-m", "workbench"]


def _run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """The command in this process (a start cost ~0.3 s CPU): what it reads is the subject."""
    return run_cli(args, env)


def _import(env: dict[str, str], *paths: Path) -> list[dict]:
    proc = _run(["import-results", "--json", *map(str, paths)], env)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def _show(env: dict[str, str], run_id: str) -> dict:
    proc = _run(["history", "show", run_id, "--json"], env)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)  # valid JSON, or this fails


def _when(epoch: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(epoch))


@pytest.mark.parametrize("name", ["benchmarks.json", "benchmarks.yaml"])
def test_guidellm_08_report_shows_guidellms_own_figures_per_concurrency(env, name) -> None:
    path = GUIDELLM / name
    report = (
        # libyaml's safe loader when built (6x the pure-Python one on this 370 KB report)
        yaml.load(path.read_text(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
        if name.endswith("yaml")
        else json.loads(path.read_text())
    )
    outcomes = _import(env, path)
    assert [o["requests"] for o in outcomes] == [12, 12]
    for outcome, benchmark in zip(outcomes, report["benchmarks"], strict=True):
        doc = _show(env, outcome["run_id"])
        metrics = benchmark["metrics"]
        strategy = benchmark["config"]["strategy"]
        assert doc["config"]["concurrency"] == strategy["max_concurrency"]
        assert doc["kind"] == "comparison"  # one data setting: no sweep of real prompt lengths
        assert doc["config"]["prompt_lengths"] == [64]
        assert doc["created_at"] == _when(benchmark["start_time"])
        [(model, figures)] = doc["aggregates"].items()
        assert model == "sim-llama-3-70b"
        assert doc["config"]["targets"][0]["base_url"] == benchmark["config"]["backend"]["target"]
        ttft = metrics["time_to_first_token_ms"]["successful"]
        assert figures["median_ttft_ms"] == ttft["median"]
        assert figures["p99_ttft_ms"] == ttft["percentiles"]["p99"]
        # guidellm's median is one of the request values, as the file has it
        values = [r["time_to_first_token_ms"] for r in benchmark["requests"]["successful"]]
        assert ttft["median"] in values
        itl = metrics["inter_token_latency_ms"]["successful"]
        assert figures["median_itl_ms"] == itl["median"]
        latency = metrics["request_latency"]["successful"]  # seconds
        assert figures["p99_e2el_ms"] == pytest.approx(latency["percentiles"]["p99"] * 1000)
        assert figures["duration"] == benchmark["duration"]
        assert figures["completed"] == metrics["request_totals"]["successful"]
        rps = metrics["requests_per_second"]["successful"]["mean"]
        assert figures["request_throughput"] == rps
        # every figure the file stated is the file's; what we worked out is named
        assert "median_ttft_ms" not in doc["derived"][model]
        assert "num_prompts" in doc["derived"][model]
        text = _run(["history", "show", outcome["run_id"]], env).stdout
        assert f"median_ttft_ms: {ttft['median']:.3f}\n" in text
        assert "num_prompts: 12 (derived)" in text and "***" not in text


@pytest.mark.parametrize("level", [1, 8])
def test_aiperf_summary_keeps_model_url_concurrency_and_every_token_figure(env, level) -> None:
    path = AIPERF / f"c{level}" / "profile_export_aiperf.json"
    summary = json.loads(path.read_text())
    [outcome] = _import(env, path)
    doc = _show(env, outcome["run_id"])
    assert doc["config"]["concurrency"] == level
    assert doc["config"]["targets"][0]["base_url"] == "http://127.0.0.1:18765"
    assert doc["created_at"] == _when(datetime.fromisoformat(summary["start_time"]).timestamp())
    figures = doc["aggregates"]["sim-llama-3-70b"]
    assert figures["median_ttft_ms"] == summary["time_to_first_token"]["p50"]
    assert figures["p99_ttft_ms"] == summary["time_to_first_token"]["p99"]
    assert figures["p99_e2el_ms"] == summary["request_latency"]["p99"]
    assert figures["duration"] == summary["benchmark_duration"]["avg"]
    assert figures["request_throughput"] == summary["request_throughput"]["avg"]
    assert figures["output_throughput"] == summary["output_token_throughput"]["avg"]
    # a field name with "token" in it never masks its figure
    others = doc["tool_figures"]["sim-llama-3-70b"]
    assert others["time_to_second_token"] == {
        k: v for k, v in summary["time_to_second_token"].items() if k != "unit"
    }
    text = _run(["history", "show", outcome["run_id"]], env).stdout
    assert "***" not in text and "time_to_second_token" in text
    exported = _run(["history", "export", outcome["run_id"], "--format", "vllm"], env)
    assert exported.returncode == 0, exported.stderr
    assert json.loads(exported.stdout)["p99_ttft_ms"] == summary["time_to_first_token"]["p99"]


def test_aiperf_records_take_the_servers_token_counts_and_aiperfs_own_totals(env) -> None:
    path = AIPERF / "c8" / "profile_export.jsonl"
    records = [json.loads(line) for line in path.read_text().splitlines()]
    summary = json.loads((AIPERF / "c8" / "profile_export_aiperf.json").read_text())
    [outcome] = _import(env, path)
    doc = _show(env, outcome["run_id"])
    assert doc["kind"] == "comparison" and doc["config"]["prompt_lengths"] == [64]
    # model, URL and load from AIPerf's summary beside the records
    assert doc["config"]["concurrency"] == 8
    [(model, figures)] = doc["aggregates"].items()
    assert model == "sim-llama-3-70b"
    # requests/s and tokens/s as AIPerf reported them, not over a duration of ours
    assert figures["request_throughput"] == summary["request_throughput"]["avg"]
    assert figures["output_throughput"] == summary["output_token_throughput"]["avg"]
    assert figures["p99_ttft_ms"] == summary["time_to_first_token"]["p99"]
    start = min(r["metadata"]["request_start_ns"] for r in records) / 1e9
    assert doc["created_at"] == _when(datetime.fromisoformat(summary["start_time"]).timestamp())
    assert abs(datetime.fromisoformat(summary["start_time"]).timestamp() - start) < 5
    # each request's tokens are the server's usage, not AIPerf's own count
    proc = _run(["history", "export", outcome["run_id"], "--format", "vllm"], env)
    exported = json.loads(proc.stdout)
    usage = [r["metrics"]["usage_completion_tokens"]["value"] for r in records]
    assert sorted(exported["output_lens"]) == sorted(usage)
    assert usage != [r["metrics"]["output_sequence_length"]["value"] for r in records]


def test_aiperf_records_alone_are_dated_by_their_first_request(env, tmp_path) -> None:
    records = (AIPERF / "c1" / "profile_export.jsonl").read_text()
    path = tmp_path / "profile_export.jsonl"  # no summary beside it
    path.write_text(records)
    [outcome] = _import(env, path)
    doc = _show(env, outcome["run_id"])
    starts = [json.loads(line)["metadata"]["request_start_ns"] for line in records.splitlines()]
    assert doc["created_at"] == _when(min(starts) / 1e9)
    [figures] = doc["aggregates"].values()
    [model] = doc["derived"]
    assert "request_throughput" in doc["derived"][model]  # worked out by us, and said so
    assert figures["completed"] == 12


def test_vllm_rows_show_the_files_own_totals_and_percentiles(env, tmp_path) -> None:
    source = json.loads((RESULTS / "vllm_save_detailed.json").read_text())
    [outcome] = _import(env, RESULTS / "vllm_save_detailed.json")
    doc = _show(env, outcome["run_id"])
    figures = doc["aggregates"][source["model_id"]]
    for key in ("p99_ttft_ms", "median_tpot_ms", "duration", "request_throughput"):
        assert figures[key] == source[key]
    assert figures["output_throughput"] == source["output_throughput"]
    assert doc["created_at"] == _when(time.mktime(time.strptime(source["date"], "%Y%m%d-%H%M%S")))
    # export -> import gives the same figures
    proc = _run(["history", "export", outcome["run_id"], "--format", "vllm"], env)
    assert proc.returncode == 0, proc.stderr
    exported = json.loads(proc.stdout)
    assert exported["date"] == source["date"] and exported["p99_ttft_ms"] == source["p99_ttft_ms"]
    again = tmp_path / "again.json"
    again.write_text(json.dumps({**exported, "label": "again"}))
    [back] = _import(env, again)
    back_figures = _show(env, back["run_id"])["aggregates"][source["model_id"]]
    for key, value in figures.items():
        if key in exported:
            assert back_figures[key] == pytest.approx(value), key


def test_vllm_export_leaves_absent_what_the_file_lacked(env, tmp_path) -> None:
    source = json.loads((RESULTS / "vllm_save_detailed.json").read_text())
    bare = {k: v for k, v in source.items() if k not in ("date", "start_times", "duration")}
    path = tmp_path / "bare.json"
    path.write_text(json.dumps(bare))
    [outcome] = _import(env, path)
    proc = _run(["history", "export", outcome["run_id"], "--format", "vllm"], env)
    assert proc.returncode == 0, proc.stderr
    exported = json.loads(proc.stdout)
    assert "date" not in exported and "start_times" not in exported
    assert "duration" not in exported  # never 0, never 1970


def test_an_unknown_guidellm_layout_names_itself_and_the_supported_ones(env, tmp_path) -> None:
    report = json.loads((GUIDELLM / "benchmarks.json").read_text())
    report["metadata"]["version"] = 9
    for benchmark in report["benchmarks"]:
        benchmark["settings"] = benchmark.pop("config")
    path = tmp_path / "benchmarks.json"
    path.write_text(json.dumps(report))
    proc = _run(["import-results", str(path)], env)
    assert proc.returncode == 2
    assert "layout not yet read (schema 9, guidellm 0.8.1)" in proc.stderr
    assert "supported: 0.2-0.3" in proc.stderr and "re-export" not in proc.stderr
