"""The Summary of an imported run shows what `history show` shows (issue 26): the file's own
median TTFT (guidellm's is one of the values, not the rows' interpolated median) and the file's
own date, in `workbench summary --pdf` as read back from the PDF and in the core report. Real
subprocesses on the real peer fixtures (tests/data/peers/) and a vLLM detailed file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pytest

from tests.support.pdf_text import read_pdf, units_joined
from workbench.core.history.run_facts import run_facts
from workbench.core.history.run_history import DB_FILENAME, RunStore
from workbench.core.history.summary import build_report

DATA = Path(__file__).parent / "data"
WORKBENCH = [sys.executable, "-m", "workbench"]


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    env = {**os.environ, "WORKBENCH_DATA_DIR": str(tmp_path / "data")}
    env["QT_QPA_PLATFORM"] = "offscreen"
    env.pop("DISPLAY", None)
    return env


def _run(args: list[str], env: dict[str, str]) -> str:
    proc = subprocess.run([*WORKBENCH, *args], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def _imported(env: dict[str, str], path: Path) -> list[str]:
    return [o["run_id"] for o in json.loads(_run(["import-results", "--json", str(path)], env))]


def _page(env: dict[str, str], run_id: str, tmp_path: Path) -> list[str]:
    pdf = tmp_path / f"{run_id}.pdf"
    _run(["summary", "--run", run_id, "--pdf", str(pdf)], env)
    return read_pdf(pdf).text.splitlines()


def _page_date(created_at: str) -> str:
    """The page's "2 December 2026, 00:40" of history's "2026-12-02T00:40:56"."""
    when = datetime.fromisoformat(created_at)
    return f"{when.day} {when:%B %Y, %H:%M}"


def _table_ttft(lines: list[str], counts: str) -> str:
    """The TTFT column of the table row whose ok / failed / stopped reads `counts`."""
    return lines[lines.index(counts) + 1]


@pytest.mark.parametrize(
    "path", [DATA / "peers/guidellm-0.8.1/benchmarks.json", DATA / "peers/aiperf-0.13.0/c8"]
)
def test_the_summary_of_an_imported_run_quotes_the_files_median_ttft_and_date(
    env, tmp_path, path
) -> None:
    if path.is_dir():
        path = path / "profile_export.jsonl"
    for run_id in _imported(env, path):
        shown = json.loads(_run(["history", "show", run_id, "--json"], env))
        (model,) = shown["aggregates"]
        median = shown["aggregates"][model]["median_ttft_ms"]
        assert "median_ttft_ms" not in shown["derived"][model]  # the file states it

        with RunStore(Path(env["WORKBENCH_DATA_DIR"]) / DB_FILENAME) as store:
            report = build_report(store.results(run_id), runs=run_facts(store, [run_id]))
        (row,) = report.rows
        assert row.cell.median("ttft_ms") == median  # exactly the file's, not recomputed

        lines = _page(env, run_id, tmp_path)
        assert lines[1].startswith(_page_date(shown["created_at"]) + " · ")
        assert _table_ttft(lines, f"{shown['requests']} / 0 / 0") == f"{median:,.0f}"
        # the figures the file does not state are said to be derived from its requests
        source = units_joined(" ".join(lines))
        assert "TTFT ms as the file reported; decode tok/s, prefill tok/s derived" in source


def test_a_vllm_file_without_send_times_is_dated_by_the_file_in_the_summary(env, tmp_path) -> None:
    detailed = json.loads((DATA / "results/vllm_save_detailed.json").read_text())
    for name, document in (
        ("as-saved.json", detailed),
        ("no-start-times.json", {k: v for k, v in detailed.items() if k != "start_times"}),
    ):
        path = tmp_path / name
        path.write_text(json.dumps(document))
        (run_id,) = _imported(env, path)
        shown = json.loads(_run(["history", "show", run_id, "--json"], env))
        assert shown["created_at"] == "2026-11-20T10:15:00"  # the file's "date"
        lines = _page(env, run_id, tmp_path)
        assert lines[1].startswith("20 November 2026, 10:15 · "), lines[1]
        # two prompt lengths: the file's run-wide medians are no one row's, so none is quoted
        # as the file's, and the rows' are said to be derived
        assert _table_ttft(lines, "3 / 0 / 0") == "120"  # the 1K rows' median, not 140
        assert " ".join(lines).count("every figure derived from its requests") == 2
