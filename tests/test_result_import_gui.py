"""History → Import in the real window (issue 16): a vLLM and a guidellm result file join a
local sweep in the Sweep chart, the Results table and the history, and the points drawn are the
files' own figures (read back from the pyqtgraph items). The built-in provider runs on
127.0.0.1; the history is a real SQLite file."""

from __future__ import annotations

import json
import math
import sqlite3
import statistics
import time
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QLineEdit

from tests.support.gui_driver import click_tab, click_tab_until_painted, run_for, run_sweep, until
from tests.support.large_results import large_vllm_file

DATA = Path(__file__).parent / "data" / "results"


def _click(qtbot: Any, widget: Any) -> None:
    qtbot.mouseClick(widget, Qt.MouseButton.LeftButton)


def _plotted(view: Any, figure: str, model: str) -> tuple[list[float], list[float]]:
    """(prompt tokens, value) of the line drawn for `model`, read from the plot's items."""
    for item in view.plots[figure].plotItem.listDataItems():
        if item.name() == model:
            xs, ys = item.getData()
            return [round(10**x) for x in xs], list(ys)
    raise AssertionError(f"no line for {model} in the {figure} chart")


def _import(window: Any, qtbot: Any, path: Path, loop: Any) -> None:
    """History → Import…, pick the file in the dialog, accept; wait for the import to end."""
    history = window.history_view
    click_tab(window, qtbot, history)
    _click(qtbot, history.import_button)
    dialog = history.import_dialog
    qtbot.waitUntil(dialog.isVisible, timeout=5000)
    dialog.setDirectory(str(path.parent))
    # typed into the file name field, as a user does (selectFile leaves a focused field be)
    dialog.findChild(QLineEdit, "fileNameEdit").setText(path.name)
    qtbot.waitUntil(lambda: dialog.selectedFiles() == [str(path)], timeout=5000)
    dialog.accept()
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=5000)
    run_for(loop, history.import_task)


def _medians(pairs: list[tuple[int, float]]) -> dict[int, float]:
    by_length: dict[int, list[float]] = {}
    for length, value in pairs:
        by_length.setdefault(length, []).append(value)
    return {n: statistics.median(v) for n, v in sorted(by_length.items())}


def test_imported_vllm_and_guidellm_files_plot_their_own_figures_beside_a_local_sweep(
    window, qtbot, loop
) -> None:
    view = window.sweep_view
    assert run_sweep(window, qtbot, loop).status == "finished"
    local_models = set(view.series("ttft_ms"))
    assert local_models
    local_rows = len(window.results_view.results)

    vllm = json.loads((DATA / "vllm_save_detailed.json").read_text())
    _import(window, qtbot, DATA / "vllm_save_detailed.json", loop)
    ok = [i for i, e in enumerate(vllm["errors"]) if not e]  # failed requests are not averaged
    ttft = _medians([(vllm["input_lens"][i], vllm["ttfts"][i] * 1000) for i in ok])
    decode = _medians(
        [(vllm["input_lens"][i], (vllm["output_lens"][i] - 1) / sum(vllm["itls"][i])) for i in ok]
    )
    model = vllm["model_id"]
    xs, ys = _plotted(view, "ttft_ms", model)
    assert xs == list(ttft) == [1024, 4096]
    assert ys == pytest.approx(list(ttft.values()))
    assert _plotted(view, "decode_tps", model)[1] == pytest.approx(list(decode.values()))

    guide = json.loads((DATA / "guidellm_benchmarks.json").read_text())
    _import(window, qtbot, DATA / "guidellm_benchmarks.json", loop)
    records = [
        r for b in guide["benchmarks"] for r in b["requests"]["successful"]
    ]  # every benchmark of the report: one run each, one model
    g_ttft = _medians(
        [(r["prompt_tokens"], (r["first_token_time"] - r["start_time"]) * 1000) for r in records]
    )
    g_decode = _medians(
        [
            (
                r["prompt_tokens"],
                (r["output_tokens"] - 1) / (r["last_token_time"] - r["first_token_time"]),
            )
            for r in records
        ]
    )
    g_model = guide["benchmarks"][0]["worker"]["backend_model"]
    xs, ys = _plotted(view, "ttft_ms", g_model)
    assert xs == list(g_ttft) == [1024, 2048, 4096]
    assert ys == pytest.approx(list(g_ttft.values()))
    assert _plotted(view, "decode_tps", g_model)[1] == pytest.approx(list(g_decode.values()))

    # the local sweep is still drawn beside them, and its axis spans every length
    for local in local_models:
        assert _plotted(view, "ttft_ms", local)[0] == [1024, 4096]
    low, high = view.plots["ttft_ms"].viewRange()[0]
    assert low < math.log10(1024) and high > math.log10(4096)
    assert model in view.legend.text() and g_model in view.legend.text()
    # the Results table holds them too; the history lists the three imported runs
    assert len(window.results_view.results) == local_rows + 6 + 7
    history = window.history_view
    models = [history.table.item(r, 3).text() for r in range(history.table.rowCount())]
    assert models.count(model) == 1 and models.count(g_model) == 2
    kinds = [history.table.item(r, 1).text() for r in range(history.table.rowCount())]
    assert sum(k.endswith("imported from vllm") for k in kinds) == 1
    assert sum(k.endswith("imported from guidellm") for k in kinds) == 2
    assert "Imported 2 run(s), 0 already" in history.import_status.text()

    # the stakeholder summary puts them beside the local models
    click_tab(window, qtbot, window.summary_view)
    summarised = window.summary_view.document.report.models
    assert {model, g_model} | local_models <= set(summarised)

    _import(window, qtbot, DATA / "guidellm_benchmarks.json", loop)  # again: nothing doubles
    assert "Imported 0 run(s), 2 already" in history.import_status.text()
    assert history.table.rowCount() == len(models)


def test_an_import_into_a_locked_history_says_why_and_the_next_one_works(
    window, qtbot, tmp_path, loop
) -> None:
    history = window.history_view
    rows_before = history.table.rowCount()
    holder = sqlite3.connect(tmp_path / "history.sqlite3", isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # another program holds the history
    try:
        _import(window, qtbot, DATA / "vllm_save_detailed.json", loop)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert "locked by another process" in history.import_status.text()
    assert history.table.rowCount() == rows_before
    _import(window, qtbot, DATA / "vllm_save_detailed.json", loop)
    assert "Imported 1 run(s), 0 already" in history.import_status.text()
    assert history.table.rowCount() == rows_before + 1


def test_importing_a_large_file_keeps_the_window_responsive(window, qtbot, loop, tmp_path) -> None:
    """20,000 requests are parsed and stored on a worker thread, then fill the Sweep chart, the
    Results table and the Summary in slices between the window's events: a 20 ms QTimer keeps
    ticking from the click to the filled views. (Filling them froze the window for 6 s; before
    that, on the GUI thread, the parse and store stood still and no tick saw "Importing"; a
    full garbage collection over the session's heap, run by the parse, and a paint waiting for
    the GIL against the parse held the first tick for half a second.)"""
    big = large_vllm_file(tmp_path / "big_vllm.json", 20_000)
    doc = json.loads(big.read_text())
    history, sweep, table = window.history_view, window.sweep_view, window.results_view
    summary = window.summary_view
    for tab in (sweep, table, summary, history):  # a tab's first show costs what it costs empty
        click_tab_until_painted(window, qtbot, tab)
    ticks: list[tuple[float, str]] = []  # (when, what the status said then)
    timer = QTimer()
    timer.setInterval(20)
    timer.timeout.connect(lambda: ticks.append((time.perf_counter(), history.import_status.text())))
    timer.start()
    started = time.perf_counter()
    history.import_paths([str(big)])
    run_for(loop, history.import_task, 100)
    stored = time.perf_counter()
    click_tab(window, qtbot, sweep)  # a large set is summarised when it is looked at
    run_for(loop, until(lambda: doc["model_id"] in sweep.legend.text(), 60), 70)
    click_tab(window, qtbot, summary)

    def filled() -> bool:
        models = summary.document.report.models if summary.document else ()
        return doc["model_id"] in models and doc["model_id"] in sweep.legend.text()

    run_for(loop, until(filled, 60), 70)
    run_for(loop, until(lambda: not table.requests_model.formatting.pending, 60), 70)
    timer.stop()
    assert "Imported 1 run(s), 0 already" in history.import_status.text()
    assert window.session.store.query("SELECT COUNT(*) FROM requests") == [(20_000,)]
    importing = [when for when, text in ticks if text == "Importing 1 file(s)…"]
    took = importing[-1] - started
    assert took > 0.5, took  # the parse and store took long enough that a freeze would show
    whens = [when for when, _text in ticks]
    gaps = [b - a for a, b in zip([started, *whens], whens, strict=False)]
    # never still for a quarter of a second, and filled within 4 s of the store's end (the
    # goals are 0.1 s and 2 s, benchmarks/import_fill.py: this leaves room for a loaded
    # 2-core machine; it was 0.54 s and 6 s)
    assert max(gaps) < 0.25, (max(gaps), took, len(whens))
    assert whens[-1] - stored < 4.0, whens[-1] - stored

    # what the views hold is the file: its medians per prompt length, every row, in time order
    ttfts: dict[int, list[float]] = {}
    for length, ttft in zip(doc["input_lens"], doc["ttfts"], strict=True):
        ttfts.setdefault(length, []).append(ttft * 1000)
    line = [(x, median) for x, median, _p10, _p90 in sweep.series("ttft_ms")[doc["model_id"]]]
    assert line == [(n, pytest.approx(statistics.median(v))) for n, v in sorted(ttfts.items())]
    model = table.table.model()
    column = table.requests_model.columns.index("started_at")
    shown = [model.index(r, column).data() for r in range(model.rowCount())]
    assert len(shown) == 20_000 and shown == sorted(shown)
    rows = summary.document.report.rows
    assert [(r.cell.prompt_tokens_target, r.cell.n) for r in rows] == [
        (n, len(v)) for n, v in sorted(ttfts.items())
    ]


def _imported_points(view: Any, figure: str, label: str) -> list[tuple[float, float]]:
    for item in view.plots[figure].plotItem.listDataItems():
        if item.name() == label:
            xs, ys = item.getData()
            return [(10**x, y) for x, y in zip(xs, ys, strict=True)]
    raise AssertionError(f"no points named {label!r} in the {figure} chart")


def test_an_aggregate_only_vllm_file_shows_its_own_medians_beside_a_local_sweep(
    window, qtbot, loop
) -> None:
    view = window.sweep_view
    assert run_sweep(window, qtbot, loop).status == "finished"
    local = set(view.series("ttft_ms"))

    doc = json.loads((DATA / "vllm_save_result.json").read_text())
    assert "ttfts" not in doc  # no per-request data: only the tool's own aggregates
    _import(window, qtbot, DATA / "vllm_save_result.json", loop)
    assert "Imported 1 run(s)" in window.history_view.import_status.text()
    click_tab(window, qtbot, view)
    label = f"{doc['model_id']} (imported from vllm)"
    prompt = doc["total_input_tokens"] / doc["completed"]  # the mean prompt it sent
    [(x, ttft)] = _imported_points(view, "ttft_ms", label)
    assert x == pytest.approx(prompt) and ttft == pytest.approx(doc["median_ttft_ms"])
    [(x, decode)] = _imported_points(view, "decode_tps", label)
    assert decode == pytest.approx(1000 / doc["median_tpot_ms"])
    assert set(view.series("ttft_ms")) == local  # our runs are still drawn beside it
    assert label in view.legend.text() and "imported" in view.legend.text()
    # the Summary tab lists it under the pages, with the file's own median and mean
    click_tab(window, qtbot, window.summary_view)
    listed = window.summary_view.imported_label
    assert listed.isVisible()
    assert f"{label}: TTFT median 140 ms, mean 232 ms; decode median 40.0 tok/s" in listed.text()
