"""Run history (SQLite) and CSV export."""

from __future__ import annotations

import csv
import dataclasses
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from workbench.core.foundation.metrics import derive
from workbench.core.foundation.results import ErrorClass, Prices, RequestResult
from workbench.core.history import run_history as store_module
from workbench.core.history.csv_export import (
    COLUMN_DOCS,
    COLUMNS,
    base_url_host,
    iso_utc,
    read_csv,
    row_for,
    write_csv,
)
from workbench.core.history.run_history import RunStore, StoreError, default_db_path
from workbench.core.system.process_alive import process_start_marker

REPO = Path(__file__).resolve().parent.parent

# the columns as docs/csv.md publishes them (tests/test_generated_docs.py holds that page equal
# to what COLUMN_DOCS generates): a column changed in the code alone fails below
EXPECTED_COLUMNS = tuple(
    re.findall(r"^\| `([a-z0-9_]+)` \|", (REPO / "docs" / "csv.md").read_text("utf-8"), re.M)
)


def full_result(run_id: str, **changes: object) -> RequestResult:
    """A result with every field set to something other than its default."""
    t0 = 7_000_000_000_123
    result = RequestResult(
        model="sim-deepseek-v3",
        provider="local",
        base_url="http://127.0.0.1:8765/v1",
        attention="MLA",
        run_id=run_id,
        started_at=1_735_689_600.123456,
        prompt_tokens_target=32_768,
        repeat=2,
        concurrency=4,
        attempt=2,
        warmup=True,
        phase="warmup",
        task="needle@0.50",
        t_intended=t0 - 3_500_000,
        t_send=t0,
        t_headers=t0 + 40_000_000,
        t_first_chunk=t0 + 41_000_000,
        t_first_token=t0 + 250_000_000,
        t_first_content=t0 + 900_000_000,
        t_last_token=t0 + 2_250_000_000,
        t_done=t0 + 2_260_000_000,
        event_times=[t0 + 250_000_000 + i * 19_999_993 + (i % 7) * 1_111 for i in range(101)],
        event_chars=[3 + i % 5 for i in range(101)],
        event_reasoning_chars=[0] * 100 + [7],
        token_events=104,
        text='答案是 QXR-4821。\nDone, "quoted", with commas.',
        reasoning_text="Let me look for the code…",
        prompt_tokens=32_801,
        completion_tokens=120,
        cached_tokens=1024,
        usage_estimated=True,
        usage_suspect=True,
        finish_reason="stop",
        http_status=200,
        response_id="chatcmpl-123",
        error_class=ErrorClass.STALL,
        error_message='stalled, "no token" for 30 s\n第二行',
        retry_after_s=2.5,
        needle_found=False,
        network_baseline_ms=12.5,
        baseline_method="chat",
        route="gateway",
        prices=Prices(input=0.27, output=1.1, cached_input=0.07),
        protocol="anthropic",
        cache_creation_tokens=300,
        reasoning_tokens=64,
        scheduled_s=1.25,
        offered_rate=4.5,
        slo_met=False,
    )
    return dataclasses.replace(result, **changes)


def test_every_request_result_field_differs_from_default_in_the_fixture() -> None:
    # Guards the round-trip test: a new field must be set in full_result too.
    defaults = RequestResult(model="m")
    result = full_result("r")
    for field in dataclasses.fields(RequestResult):
        assert getattr(result, field.name) != getattr(defaults, field.name), field.name


# ---------------------------------------------------------------------------------------------
# Store
# ---------------------------------------------------------------------------------------------


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "history.sqlite3"


def test_full_request_result_round_trips_exactly(db: Path) -> None:
    with RunStore(db) as store:
        run_id = store.start_run("sweep", {"models": ["a", "b"], "sizes": [1024, 4096]})
        first = full_result(run_id)
        second = RequestResult(model="bare", run_id=run_id)  # all defaults, None timestamps
        store.record(first)
        store.record(second)
        assert store.results(run_id) == [first, second]
    with RunStore(db) as reopened:
        assert reopened.results(run_id) == [first, second]


def test_derived_metrics_are_sql_columns(db: Path) -> None:
    with RunStore(db) as store:
        run_id = store.start_run("comparison", {})
        result = full_result(run_id, error_class=None, error_message=None)
        store.record(result)
        metrics = derive(result)
        (ttft, decode, cost, events) = store.query(
            "SELECT ttft_ms, decode_tps, cost_usd, event_count FROM requests WHERE run_id = ?",
            (run_id,),
        )[0]
        assert ttft == pytest.approx(metrics.ttft_ms)
        assert decode == pytest.approx(metrics.decode_tps)
        assert cost == pytest.approx(metrics.cost_usd)
        assert events == 101


def test_recording_again_replaces_and_keeps_order(db: Path) -> None:
    with RunStore(db) as store:
        run_id = store.start_run("comparison", {})
        a, b = full_result(run_id), full_result(run_id, request_id="b")
        store.record(a)
        store.record(b)
        store.record(dataclasses.replace(a, text="changed"))
        assert [r.text for r in store.results(run_id)] == ["changed", b.text]


def test_record_needs_a_started_run(db: Path) -> None:
    with RunStore(db) as store, pytest.raises(StoreError, match="start_run"):
        store.record(full_result("nope"))


def test_runs_list_and_finish(db: Path) -> None:
    with RunStore(db) as store:
        first = store.start_run("comparison", {"a": 1}, note="first")
        second = store.start_run("sweep", {"b": "中文"}, run_id="fixed-id")
        measured = {"warmup": False, "phase": "measured"}
        store.record(full_result(second))  # a warm-up: counted apart from the measured
        store.record(full_result(second, request_id="m1", **measured))
        store.record(full_result(second, request_id="ok", error_class=None, **measured))
        stop = {"error_class": ErrorClass.CANCELLED, **measured}
        store.record(full_result(second, request_id="stopped", **stop))
        store.finish_run(first, "cancelled")
        runs = store.runs()
        assert [r.run_id for r in runs] == ["fixed-id", first]
        assert runs[0].status == "running" and runs[0].config == {"b": "中文"}
        counts = (runs[0].requests, runs[0].errors, runs[0].stopped, runs[0].warmup)
        assert counts == (3, 1, 1, 1)  # a user's Stop is no failure
        assert runs[1].status == "cancelled" and runs[1].finished_at and runs[1].note == "first"
        assert len(store.runs(limit=1)) == 1
        with pytest.raises(ValueError):
            store.finish_run(first, "running")  # type: ignore[arg-type]
        with pytest.raises(StoreError):
            store.finish_run("missing", "finished")
        with pytest.raises(ValueError):
            store.start_run("party", {})  # type: ignore[arg-type]


def test_pragmas_wal_and_schema_version(db: Path) -> None:
    RunStore(db).close()
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA user_version").fetchone()[0] == store_module.SCHEMA_VERSION
        indexes = {row[1] for row in conn.execute("PRAGMA index_list(requests)")}
        assert "requests_run_id" in indexes
    finally:
        conn.close()
    with RunStore(db) as store:
        assert store.query("PRAGMA foreign_keys")[0][0] == 1
        assert store.query("PRAGMA synchronous")[0][0] == 1  # NORMAL
        assert store.query("PRAGMA busy_timeout")[0][0] == store_module.BUSY_TIMEOUT_MS


def test_newer_schema_is_refused_and_missing_columns_are_added(db: Path) -> None:
    RunStore(db).close()
    conn = sqlite3.connect(db)
    conn.execute("ALTER TABLE requests DROP COLUMN itl_p99_ms")  # as if from an older app
    conn.commit()
    conn.close()
    with RunStore(db) as store:
        run_id = store.start_run("comparison", {})
        store.record(full_result(run_id))
        assert store.query("SELECT itl_p99_ms FROM requests")[0][0] is not None
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA user_version = 99")
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match="newer"):
        RunStore(db)


def test_default_path_follows_env_var(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WORKBENCH_DATA_DIR", str(tmp_path / "data"))
    assert default_db_path() == tmp_path / "data" / "history.sqlite3"
    with RunStore() as store:
        assert store.path == tmp_path / "data" / "history.sqlite3"
    assert (tmp_path / "data" / "history.sqlite3").exists()
    monkeypatch.delenv("WORKBENCH_DATA_DIR")
    assert "attention-workbench" in str(default_db_path())


def test_redaction_hook_applies_to_config_and_messages(db: Path) -> None:
    secret = "sk-live-1234567890abcdef"

    def redact(text: str) -> str:
        return text.replace(secret, "sk-…REDACTED")

    with RunStore(db, redact=redact) as store:
        run_id = store.start_run("comparison", {"header": f"Bearer {secret}"}, note=secret)
        store.record(
            full_result(
                run_id,
                base_url=f"https://gw.example.com/v1?key={secret}",
                error_message=f"401: invalid key {secret}",
            )
        )
    assert secret.encode() not in db.read_bytes()
    wal = db.with_name(db.name + "-wal")
    assert not wal.exists() or secret.encode() not in wal.read_bytes()


def test_connection_belongs_to_its_thread(db: Path) -> None:
    errors: list[BaseException] = []
    with RunStore(db) as store:

        def other() -> None:
            try:
                store.runs()
            except BaseException as error:
                errors.append(error)

        thread = threading.Thread(target=other)
        thread.start()
        thread.join()
    assert errors and isinstance(errors[0], sqlite3.ProgrammingError)


def test_live_run_of_this_process_is_not_interrupted(db: Path) -> None:
    with RunStore(db) as store:
        run_id = store.start_run("comparison", {})
        with RunStore(db) as second:
            assert run_id not in second.recovered
            assert second.mark_interrupted() == []
        assert store.runs()[0].status == "running"


@pytest.mark.hardware("a Linux host (/proc gives a process's start time)")
def test_run_with_a_reused_pid_is_interrupted(db: Path) -> None:
    with RunStore(db) as store:
        run_id = store.start_run("comparison", {})
        if process_start_marker(os.getpid()) is None:
            pytest.skip("no process start marker on this OS")
        store.query("UPDATE runs SET owner_started = 'not-this-process'")
        assert store.mark_interrupted() == [run_id]
        assert store.runs()[0].status == "interrupted"


CHILD = textwrap.dedent(
    """
    import os, signal, sys
    from workbench.core.foundation.results import RequestResult
    from workbench.core.history.run_history import RunStore

    store = RunStore(sys.argv[1])
    run_id = store.start_run("sweep", {"sizes": [1024]}, run_id="killed-run")
    for i in range(5):
        store.record(RequestResult(model="m", run_id=run_id, request_id=f"r{i}",
                                   text="x" * 1000, event_times=list(range(i, i + 50))))
    print("recorded", flush=True)
    os.kill(os.getpid(), signal.SIGKILL)
    """
)


@pytest.mark.hardware("a POSIX host (SIGKILL)")
@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_killed_process_keeps_requests_and_run_becomes_interrupted(db: Path) -> None:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    child = subprocess.run(
        [sys.executable, "-c", CHILD, str(db)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert child.returncode == -signal.SIGKILL, child.stderr
    assert "recorded" in child.stdout
    with RunStore(db) as store:
        assert store.recovered == ["killed-run"]
        info = store.runs()[0]
        assert info.status == "interrupted" and info.finished_at is not None
        results = store.results("killed-run")
        assert [r.request_id for r in results] == [f"r{i}" for i in range(5)]
        assert results[4].event_times == list(range(4, 54))
        assert store.mark_interrupted() == []


# ---------------------------------------------------------------------------------------------
# CSV
# ---------------------------------------------------------------------------------------------


def test_every_documented_column_is_filled_from_the_history_and_read_back(
    db: Path, tmp_path: Path
) -> None:
    """A result with every field set, stored in the history and exported from there, fills
    every column COLUMN_DOCS documents, and the file reads back as written: a documented column
    the writer leaves blank, or a field the store drops on the way, fails here. (docs/csv.md
    equals COLUMN_DOCS: tests/test_generated_docs.py.)"""
    with RunStore(db) as store:
        full = full_result(store.start_run("sweep", {}))
        store.record(full)
        stored = store.results(full.run_id)
    path = tmp_path / "out.csv"
    assert write_csv(path, stored) == 1
    (row,) = read_csv(path)
    assert list(row) == [name for name, _ in COLUMN_DOCS]
    assert [name for name, value in row.items() if value == ""] == []
    assert row == row_for(full)


def test_csv_header_and_quoting(tmp_path: Path) -> None:
    path = tmp_path / "out.csv"
    nasty = 'line one, with a comma\n"quoted" line two\r\n第三行：模型不存在'
    results = [
        full_result("run-1", error_message=nasty),
        RequestResult(model="plain", run_id="run-1"),
    ]
    assert write_csv(path, results) == 2
    raw = path.read_bytes()
    assert raw.startswith(b"run_id,request_id,started_at,")
    assert raw.split(b"\r\n", 1)[0].decode() == ",".join(EXPECTED_COLUMNS)
    assert ('"' + nasty.replace('"', '""') + '"').encode() in raw  # RFC 4180 quoting
    rows = read_csv(path)
    assert list(rows[0]) == list(EXPECTED_COLUMNS)
    assert rows[0]["error_message"] == nasty
    with path.open(encoding="utf-8", newline="") as handle:
        assert next(csv.reader(handle)) == list(EXPECTED_COLUMNS)


def test_csv_header_written_even_without_rows(tmp_path: Path) -> None:
    path = tmp_path / "empty.csv"
    assert write_csv(path, []) == 0
    assert path.read_bytes() == (",".join(COLUMNS) + "\r\n").encode()
    assert read_csv(path) == []


def test_row_formats_numbers_flags_and_blanks() -> None:
    result = full_result("run-9", error_class=None, error_message=None)
    row = row_for(result)
    metrics = derive(result)
    assert row["started_at"] == "2025-01-01T00:00:00.123Z"
    assert row["base_url_host"] == "127.0.0.1:8765"
    assert row["ttft_ms"] == "250.000" and row["ttfc_ms"] == "900.000"
    assert row["decode_tps"] == f"{metrics.decode_tps:.2f}"
    assert row["network_baseline_ms"] == "12.500"
    assert "e" not in row["cost_usd"].lower()
    assert float(row["cost_usd"]) == pytest.approx(metrics.cost_usd, rel=1e-7)
    assert row["usage_estimated"] == "true" and row["warmup"] == "true"
    assert row["needle_found"] == "false"
    assert row["error_class"] == "" and row["error_message"] == ""
    bare = row_for(RequestResult(model="m"))
    assert bare["ttft_ms"] == "" and bare["needle_found"] == "" and bare["started_at"] == ""
    assert bare["cost_usd"] == "" and bare["attention"] == ""
    failed = row_for(full_result("r", error_message="key sk-123 bad"), redact=lambda s: "[x]")
    assert failed["error_class"] == "stall_timeout" and failed["error_message"] == "[x]"


def test_tiny_cost_has_no_exponent() -> None:
    result = RequestResult(model="m", prompt_tokens=3, completion_tokens=0)
    result.prices = Prices(input=0.01)
    assert row_for(result)["cost_usd"] == "0.00000003"


@pytest.mark.parametrize(
    ("url", "host"),
    [
        ("https://api.example.com/v1", "api.example.com"),
        ("https://user:sk-secret@API.Example.com:8443/v1?key=sk-abc#frag", "api.example.com:8443"),
        ("http://[::1]:8000/v1", "[::1]:8000"),
        ("localhost:11434/v1", "localhost:11434"),
        ("", ""),
        ("http://bad:port/v1", ""),
    ],
)
def test_base_url_host_keeps_host_and_port_only(url: str, host: str) -> None:
    assert base_url_host(url) == host


def test_iso_utc_rounds_down_to_milliseconds() -> None:
    assert iso_utc(0.0) == ""
    assert iso_utc(1_700_000_000.9999) == "2023-11-14T22:13:20.999Z"


def test_store_results_export_like_live_results(db: Path, tmp_path: Path) -> None:
    with RunStore(db) as store:
        run_id = store.start_run("comparison", {})
        results = [full_result(run_id), full_result(run_id, request_id="2", needle_found=None)]
        for result in results:
            store.record(result)
        write_csv(tmp_path / "live.csv", results)
        write_csv(tmp_path / "stored.csv", store.results(run_id))
    assert (tmp_path / "live.csv").read_bytes() == (tmp_path / "stored.csv").read_bytes()
    assert json.dumps(read_csv(tmp_path / "live.csv"), ensure_ascii=False)
