"""The hostile server through the real `workbench bench` command, run in-process: a healthy and
a hostile model in the same run. The hostile model's rows carry their class, the healthy model
keeps every row, the history holds them all, and the exit code says that some requests failed.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_hostile_streams import BAD_USAGE, FAILURES

from tests.support.hostile_server import HostileServer, hostile_server_thread
from workbench.cli import main
from workbench.core.history.csv_export import read_csv
from workbench.core.history.run_history import RunStore

REPEATS = 2


@pytest.fixture(scope="module")
def server() -> Iterator[HostileServer]:
    with hostile_server_thread() as srv:
        yield srv


def _bench(server: HostileServer, model: str, csv: Path, *extra: str) -> int:
    return main(
        [
            "bench",
            "--base-url",
            server.base_url,
            "--model",
            "ok",
            "--model",
            model,
            "--repeats",
            str(REPEATS),
            "--max-tokens",
            "8",
            "--prompt-tokens",
            "128",
            "--first-token-timeout",
            "5",
            "--stall-timeout",
            "5",
            "--csv",
            str(csv),
            *extra,
        ]
    )


def _rows(csv: Path, model: str) -> list[dict[str, str]]:
    """The model's measured rows (its calibration row is in the CSV too)."""
    return [r for r in read_csv(csv) if r["model"] == model and r["phase"] == "measured"]


def _stored(run_id: str) -> list[str]:
    """The models of the measured rows the history holds for the run."""
    store = RunStore()
    try:
        return [r.model for r in store.results(run_id) if not r.warmup]
    finally:
        store.close()


@pytest.mark.parametrize(("mode", "expected", "phrase"), FAILURES, ids=[f[0] for f in FAILURES])
def test_bench_with_a_hostile_model_exits_3_and_keeps_the_healthy_rows(
    server: HostileServer,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    mode: str,
    expected: object,
    phrase: str,
) -> None:
    csv = tmp_path / "rows.csv"
    code = _bench(server, mode, csv)
    _, err = capsys.readouterr()
    assert code == 3, err[-2000:]
    healthy, hostile = _rows(csv, "ok"), _rows(csv, mode)
    assert len(healthy) == REPEATS and all(r["error_class"] == "" for r in healthy)
    assert all(r["completion_tokens"] == "8" and r["finish_reason"] == "length" for r in healthy)
    assert len(hostile) == REPEATS
    assert {r["error_class"] for r in hostile} == {str(expected)}
    assert phrase in err  # stderr says why
    run_id = healthy[0]["run_id"]
    assert sorted(_stored(run_id)) == sorted(["ok", mode] * REPEATS)


@pytest.mark.parametrize("mode", BAD_USAGE)
def test_bench_with_bad_usage_values_succeeds_with_estimated_usage(
    server: HostileServer, tmp_path: Path, mode: str
) -> None:
    csv = tmp_path / "rows.csv"
    assert _bench(server, mode, csv) == 0
    hostile = _rows(csv, mode)
    assert len(hostile) == REPEATS and len(_rows(csv, "ok")) == REPEATS
    assert all(r["error_class"] == "" and r["usage_estimated"] == "true" for r in hostile)
    assert {r["completion_tokens"] for r in hostile} == {"3"}
    assert sorted(_stored(hostile[0]["run_id"])) == sorted(["ok", mode] * REPEATS)


def test_bench_ends_a_slow_endless_stream_at_the_default_total_limit(
    server: HostileServer, tmp_path: Path
) -> None:
    csv = tmp_path / "rows.csv"
    # the server's own bound (4 s from the connection) past the client's 4 s, by more than a
    # loaded machine's timer lateness: at 4 s each, the stream's end raced the total limit
    server.max_seconds, bound = 8.0, server.max_seconds
    try:
        code = _slow_endless_bench(server, csv)
    finally:
        server.max_seconds = bound
    assert code == 3
    (slow,) = _rows(csv, "endless-slow")
    assert slow["error_class"] == "total_timeout"
    assert 3800 < float(slow["e2e_ms"]) < 6500  # 1 s + 1 s + 2 tokens x 1 s, and some lateness
    assert len(_rows(csv, "ok")) == 1 and _rows(csv, "ok")[0]["error_class"] == ""


def _slow_endless_bench(server: HostileServer, csv: Path) -> int:
    return main(
        [
            "bench",
            "--base-url",
            server.base_url,
            "--model",
            "ok",
            "--model",
            "endless-slow",
            "--max-tokens",
            "2",
            "--prompt-tokens",
            "128",
            "--first-token-timeout",
            "1",
            "--stall-timeout",
            "1",
            "--csv",
            str(csv),
        ]
    )


def test_bench_refuses_a_key_http_cannot_carry_before_sending(
    server: HostileServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    os.environ["HOSTILE_TEST_KEY"] = "sk-\u201cquoted\u201d"  # curly quotes from a web page
    before = len(server.requests)
    try:
        code = _bench(server, "ok", tmp_path / "rows.csv", "--api-key-env", "HOSTILE_TEST_KEY")
    finally:
        del os.environ["HOSTILE_TEST_KEY"]
    _, err = capsys.readouterr()
    assert code == 2
    assert "HTTP headers cannot carry" in err and "non-ASCII" in err
    assert "quoted" not in err and "Traceback" not in err
    assert len(server.requests) == before  # nothing was sent


def test_bench_names_the_new_address_of_a_redirecting_server(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with hostile_server_thread(everything="redirect-301") as moved:
        code = main(
            ["bench", "--base-url", moved.base_url, "--model", "ok", "--csv", str(tmp_path / "x")]
        )
        _, err = capsys.readouterr()
        elsewhere = [r for r in moved.requests if r[0] == "elsewhere"]
    assert code == 2
    assert f"Try the base URL {moved.elsewhere_url}" in err
    assert elsewhere == []
