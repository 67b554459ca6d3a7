"""Results that travel (issue 16): vLLM, guidellm and AIPerf result files become runs and rows
in our history through the real `workbench import-results`, and our runs go out as vLLM JSON
through `workbench history export` and come back with the same figures. Real CLI processes,
real SQLite; the fixtures under tests/data/results/ follow each tool's documented schema
(tests/data/README.md)."""

from __future__ import annotations

import itertools
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.cli_inprocess import run_cli
from workbench.core.foundation.metrics import derive, inter_token_latencies_ms
from workbench.core.history.run_history import RunStore

DATA = Path(__file__).parent / "data" / "results"
WORKBENCH = [sys.executable, "-m", "workbench"]


def _run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """The command in this process (a start cost ~0.3 s CPU): what it reads is the subject."""
    return run_cli(args, env)


def _store(env: dict[str, str]) -> RunStore:
    return RunStore(Path(env["WORKBENCH_DATA_DIR"]) / "history.sqlite3", recover=False)


def _imported(env: dict[str, str], paths: list[Path]) -> list[dict]:
    proc = _run(["import-results", "--json", *map(str, paths)], env)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_vllm_detailed_file_becomes_a_run_with_every_request_and_its_figures(env) -> None:
    path = DATA / "vllm_save_detailed.json"
    doc = json.loads(path.read_text())
    [outcome] = _imported(env, [path])
    assert outcome["tool"] == "vllm" and outcome["requests"] == 6 and outcome["added"]
    with _store(env) as store:
        info = store.run(outcome["run_id"])
        rows = store.results(outcome["run_id"])
        aggregates = store.aggregates(outcome["run_id"])
    source = info.config["imported"]
    assert (source["tool"], source["file"], source["tool_version"]) == (
        "vllm",
        "vllm_save_detailed.json",
        None,  # vLLM does not write its version: left blank, never guessed
    )
    assert info.config["targets"] == [
        {"provider": None, "base_url": None, "model": "meta-llama/Llama-3.1-8B-Instruct"}
    ]
    assert info.config["concurrency"] == 4 and info.config["request_rate"] is None  # "inf"
    assert info.status == "finished" and info.errors == 1
    for i, row in enumerate(rows):
        figures = derive(row)
        assert row.prompt_tokens == doc["input_lens"][i]
        if doc["errors"][i]:
            assert row.error_message == doc["errors"][i]
            assert figures.ttft_ms is None and row.completion_tokens is None
            continue
        assert row.completion_tokens == doc["output_lens"][i]
        assert figures.ttft_ms == pytest.approx(doc["ttfts"][i] * 1000, abs=1e-6)
        gaps = [g * 1000 for g in doc["itls"][i]]
        assert inter_token_latencies_ms(row.event_times) == pytest.approx(gaps, abs=1e-6)
        # vLLM's own latency: TTFT plus every gap; decode: tokens after the first over the span
        assert figures.e2e_ms == pytest.approx((doc["ttfts"][i] + sum(doc["itls"][i])) * 1000)
        assert figures.decode_tps == pytest.approx(
            (doc["output_lens"][i] - 1) / sum(doc["itls"][i])
        )
        assert figures.cost_usd is None  # no price in the file: unknown, never $0
    assert aggregates[("ttft", "p99")] == doc["p99_ttft_ms"]
    assert aggregates[("request_throughput", "value")] == doc["request_throughput"]


def test_an_aggregate_only_file_keeps_its_figures_and_adds_no_rows(env) -> None:
    [outcome] = _imported(env, [DATA / "vllm_save_result.json"])
    assert outcome["requests"] == 0 and outcome["aggregates"] > 0
    with _store(env) as store:
        assert store.results(outcome["run_id"]) == []
        aggregates = store.aggregates(outcome["run_id"])
        info = store.run(outcome["run_id"])
    assert aggregates[("ttft", "median")] == 140.0 and aggregates[("e2el", "p99")] == 529.0
    assert info.config["request_rate"] == 4.0 and info.config["concurrency"] is None
    # it goes back out as vLLM wrote it: the same figures under the same names
    proc = _run(["history", "export", outcome["run_id"], "--format", "vllm"], env)
    assert proc.returncode == 0, proc.stderr
    original = json.loads((DATA / "vllm_save_result.json").read_text())
    exported = json.loads(proc.stdout)
    # (what the file left null, a label, a goodput never measured, is left out)
    kept = {k: v for k, v in exported.items() if v is not None}
    assert kept == {k: v for k, v in original.items() if v is not None}
    assert exported["max_concurrency"] is None and exported["request_rate"] == 4.0
    # an aggregate-only run of another tool goes out too, its figures under vLLM's names
    [aiperf] = _imported(env, [DATA / "aiperf_profile_export_aiperf.json"])
    proc = _run(["history", "export", aiperf["run_id"], "--format", "vllm"], env)
    assert proc.returncode == 0, proc.stderr
    exported = json.loads(proc.stdout)
    assert exported["median_ttft_ms"] == 160.0 and exported["p99_e2el_ms"] == 289.6
    assert exported["request_throughput"] == 7.5 and exported["output_throughput"] == 37.5


def test_guidellm_report_gives_one_run_per_benchmark_with_target_and_load(env) -> None:
    path = DATA / "guidellm_benchmarks.json"
    doc = json.loads(path.read_text())
    outcomes = _imported(env, [path])
    assert [o["requests"] for o in outcomes] == [4, 3]
    with _store(env) as store:
        infos = [store.run(o["run_id"]) for o in outcomes]
        first = store.results(outcomes[0]["run_id"])
        second = store.results(outcomes[1]["run_id"])
        aggregates = store.aggregates(outcomes[0]["run_id"])
    assert [i.config["concurrency"] for i in infos] == [1, 4]  # synchronous, 4 streams
    assert infos[0].config["targets"][0]["base_url"] == "http://127.0.0.1:8000/v1"
    assert {r.provider for r in first} == {"http://127.0.0.1:8000/v1"}
    for row, record in zip(first, doc["benchmarks"][0]["requests"]["successful"], strict=True):
        figures = derive(row)
        start = record["start_time"]
        assert figures.ttft_ms == pytest.approx((record["first_token_time"] - start) * 1000)
        assert figures.e2e_ms == pytest.approx((record["end_time"] - start) * 1000)
        span = record["last_token_time"] - record["first_token_time"]
        assert figures.decode_tps == pytest.approx((record["output_tokens"] - 1) / span)
        assert figures.itl_p50_ms is None  # guidellm keeps no gaps: none made up
        assert row.prompt_tokens_target == record["prompt_tokens"]
    errored = [r for r in second if not r.ok]
    assert len(errored) == 1 and "503" in (errored[0].error_message or "")
    assert aggregates[("time_to_first_token_ms", "p99")] == 260.0


def test_aiperf_records_keep_warmup_apart_and_failed_requests_with_their_message(env) -> None:
    outcomes = _imported(
        env, [DATA / "aiperf_profile_export.jsonl", DATA / "aiperf_profile_export_aiperf.json"]
    )
    with _store(env) as store:
        rows = store.results(outcomes[0]["run_id"])
        summary = store.run(outcomes[1]["run_id"])
        aggregates = store.aggregates(outcomes[1]["run_id"])
    assert [r.phase for r in rows] == ["warmup", "measured", "measured", "measured"]
    assert rows[0].warmup and not rows[1].warmup
    assert derive(rows[1]).ttft_ms == pytest.approx(150.0)
    assert inter_token_latencies_ms(rows[2].event_times) == pytest.approx([30.0] * 4)
    assert rows[3].error_message == "500 Internal Server Error engine overloaded"
    assert rows[1].model == ""  # the records do not name the model: blank, not guessed
    assert summary.config["targets"][0]["model"] == "Qwen/Qwen2.5-7B-Instruct"
    assert summary.config["concurrency"] == 2 and outcomes[1]["requests"] == 0
    assert aggregates[("time_to_first_token", "p50")] == 160.0


def test_importing_the_same_file_again_under_another_name_adds_nothing(env, tmp_path) -> None:
    copy = tmp_path / "renamed.json"
    shutil.copy(DATA / "guidellm_benchmarks.json", copy)
    first = _imported(env, [DATA / "guidellm_benchmarks.json"])
    again = _imported(env, [copy, DATA / "guidellm_benchmarks.json"])
    assert all(o["added"] for o in first) and not any(o["added"] for o in again)
    assert {o["run_id"] for o in again} == {o["run_id"] for o in first}
    with _store(env) as store:
        assert len(store.runs(limit=-1)) == 2
        assert store.query("SELECT COUNT(*) FROM requests")[0][0] == 7
        assert store.query("SELECT COUNT(*) FROM run_aggregates")[0][0] == 64


def test_format_is_read_from_content_and_a_foreign_file_is_refused_with_the_fix(
    env, tmp_path
) -> None:
    misnamed = tmp_path / "benchmarks.yaml"  # a vLLM file under guidellm's name
    shutil.copy(DATA / "vllm_save_detailed.json", misnamed)
    other = tmp_path / "profile_export.json"
    other.write_text(json.dumps({"experiments": "?", "hello": 1}))
    proc = _run(["import-results", str(misnamed), str(other)], env)
    assert proc.returncode == 2
    assert "benchmarks.yaml: vllm run" in proc.stdout
    assert "none of the result formats" in proc.stderr and "vLLM" in proc.stderr
    assert "Traceback" not in proc.stderr
    proc = _run(["import-results", str(tmp_path / "missing.json"), str(tmp_path)], env)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "cannot read" in proc.stderr and "check the path" in proc.stderr
    assert "is a folder: pass the result file inside it" in proc.stderr


def test_a_broken_field_is_named_and_nothing_of_that_file_is_stored(env, tmp_path) -> None:
    doc = json.loads((DATA / "vllm_save_detailed.json").read_text())
    doc["ttfts"][2] = "fast"
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(doc))
    proc = _run(["import-results", str(broken)], env)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "field 'ttfts[2]'" in proc.stderr and "'fast'" in proc.stderr
    doc["ttfts"][2] = 0.1
    doc["itls"] = doc["itls"][:-1]
    broken.write_text(json.dumps(doc))
    proc = _run(["import-results", str(broken)], env)
    assert proc.returncode == 2 and "field 'itls' has 5 entries where ttfts has 6" in proc.stderr
    with _store(env) as store:
        assert store.runs(limit=-1) == []


def test_our_run_exported_as_vllm_json_imports_back_with_the_same_figures(env, tmp_path) -> None:
    bench = _run(
        ["bench", "--model", "sim-70b-gqa", "--prompt-tokens", "1K", "--repeats", "3",
         "--max-tokens", "8", "--time-scale", "0.05", "--csv", str(tmp_path / "r.csv")],
        env,
    )  # fmt: skip
    assert bench.returncode == 0, bench.stderr
    with _store(env) as store:
        [ours] = store.runs(limit=-1)
        original = [r for r in store.results(ours.run_id) if not r.warmup]
    out = tmp_path / "ours-vllm.json"
    proc = _run(["history", "export", ours.run_id[:8], "--format", "vllm", "-o", str(out)], env)
    assert proc.returncode == 0, proc.stderr
    exported = json.loads(out.read_text())
    ok = [r for r in original if r.ok]
    assert exported["model_id"] == "sim-70b-gqa" and exported["completed"] == len(ok)
    assert exported["median_ttft_ms"] == pytest.approx(
        sorted(derive(r).ttft_ms for r in ok)[len(ok) // 2]
    )
    [back] = _imported(env, [out])
    with _store(env) as store:
        imported = store.results(back["run_id"])
    assert len(imported) == len(original)
    for mine, theirs in zip(original, imported, strict=True):
        a, b = derive(mine), derive(theirs)
        assert (theirs.prompt_tokens, theirs.completion_tokens) == (
            mine.prompt_tokens,
            mine.completion_tokens,
        )
        for figure in ("ttft_ms", "decode_tps", "itl_p50_ms", "itl_p99_ms", "tpot_ms"):
            assert getattr(b, figure) == pytest.approx(getattr(a, figure), rel=1e-6), figure


def test_genai_perf_export_counts_only_chunks_with_text_and_leaves_tokens_blank(env) -> None:
    path = DATA / "genai_perf_profile_export.json"
    doc = json.loads(path.read_text())
    outcomes = _imported(env, [path])
    assert [o["tool"] for o in outcomes] == ["genai-perf", "genai-perf"]
    with _store(env) as store:
        infos = [store.run(o["run_id"]) for o in outcomes]
        rows = store.results(outcomes[0]["run_id"])
    assert [(i.config["concurrency"], i.config["request_rate"]) for i in infos] == [
        (2, None),
        (None, 2.0),
    ]
    assert infos[0].config["targets"][0]["model"] == "llama-3.1-8b"  # from the request payload
    for row, request in zip(rows, doc["experiments"][0]["requests"], strict=True):
        sent, stamps = request["timestamp"], request["response_timestamps"]
        # the role chunk before the text and the finish/[DONE] chunks after it are no tokens
        text_stamps = stamps[1:-2]
        figures = derive(row)
        assert figures.ttft_ms == pytest.approx((text_stamps[0] - sent) / 1e6)
        gaps = [(b - a) / 1e6 for a, b in itertools.pairwise(text_stamps)]
        assert inter_token_latencies_ms(row.event_times) == pytest.approx(gaps)
        assert figures.e2e_ms == pytest.approx((stamps[-1] - sent) / 1e6)
        assert row.prompt_tokens is None and row.completion_tokens is None
        assert figures.decode_tps is None  # no token count in the file: no speed made up
    assert [r.text for r in rows] == ["Dogs are very cool", "I like warm tea"]


def test_a_key_in_a_files_target_url_never_reaches_the_history_or_the_output(env, tmp_path) -> None:
    doc = json.loads((DATA / "guidellm_benchmarks.json").read_text())
    password, key = "hunter2-not-a-real-password", "sk-proj-NotARealKey0123456789abcdef"
    for benchmark in doc["benchmarks"]:
        benchmark["worker"]["backend_target"] = (
            f"http://bob:{password}@127.0.0.1:8000/v1?api_key={key}"
        )
    path = tmp_path / "benchmarks.json"
    path.write_text(json.dumps(doc))
    proc = _run(["import-results", "--json", str(path)], env)
    assert proc.returncode == 0, proc.stderr
    outcomes = json.loads(proc.stdout)
    with _store(env) as store:
        info = store.run(outcomes[0]["run_id"])
        rows = store.results(outcomes[0]["run_id"])
    assert info.config["targets"][0]["base_url"] == "http://127.0.0.1:8000/v1"
    assert {r.base_url for r in rows} == {"http://127.0.0.1:8000/v1"}
    data = Path(env["WORKBENCH_DATA_DIR"])
    stored = b"".join(p.read_bytes() for p in data.iterdir() if p.is_file())
    for secret in (password, key):
        assert secret.encode() not in stored
        assert secret not in proc.stdout + proc.stderr


def test_a_history_made_before_imports_gains_the_aggregates_table_on_open(env) -> None:
    db = Path(env["WORKBENCH_DATA_DIR"]) / "history.sqlite3"
    with RunStore(db) as store:
        store.query("DROP TABLE run_aggregates")  # as a history from before this feature
        assert not store.query("SELECT name FROM sqlite_master WHERE name = 'run_aggregates'")
    [outcome] = _imported(env, [DATA / "vllm_save_result.json"])
    with _store(env) as store:
        assert store.aggregates(outcome["run_id"])[("ttft", "p99")] == 409.2
