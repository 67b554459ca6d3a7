"""History → Import in the real window (issue 16): a vLLM and a guidellm result file join a
local sweep in the Sweep chart, the Results table and the history, and the points drawn are the
files' own figures (read back from the pyqtgraph items). The built-in provider runs on
127.0.0.1; the history is a real SQLite file."""

from __future__ import annotations

import json
import math
import sqlite3
import statistics
from pathlib import Path
from typing import Any

import pytest
from gui_driver import click_tab, make_window, run_for
from PySide6.QtCore import Qt

DATA = Path(__file__).parent / "data" / "results"


@pytest.fixture
def window(qapp, loop, tmp_path):
    win = make_window(loop, tmp_path)
    yield win
    win.close()
    loop.run_until_complete(win.session.close())


def _click(qtbot: Any, widget: Any) -> None:
    qtbot.mouseClick(widget, Qt.MouseButton.LeftButton)


def _plotted(view: Any, figure: str, model: str) -> tuple[list[float], list[float]]:
    """(prompt tokens, value) of the line drawn for `model`, read from the plot's items."""
    for item in view.plots[figure].plotItem.listDataItems():
        if item.name() == model:
            xs, ys = item.getData()
            return [round(10**x) for x in xs], list(ys)
    raise AssertionError(f"no line for {model} in the {figure} chart")


def _import(window: Any, qtbot: Any, path: Path) -> None:
    """History → Import…, pick the file in the dialog, accept."""
    history = window.history_view
    click_tab(window, qtbot, history)
    _click(qtbot, history.import_button)
    dialog = history.import_dialog
    qtbot.waitUntil(dialog.isVisible, timeout=5000)
    dialog.setDirectory(str(path.parent))
    dialog.selectFile(path.name)
    dialog.accept()
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=5000)


def _medians(pairs: list[tuple[int, float]]) -> dict[int, float]:
    by_length: dict[int, list[float]] = {}
    for length, value in pairs:
        by_length.setdefault(length, []).append(value)
    return {n: statistics.median(v) for n, v in sorted(by_length.items())}


def test_imported_vllm_and_guidellm_files_plot_their_own_figures_beside_a_local_sweep(
    window, qtbot, loop
) -> None:
    view = window.sweep_view
    click_tab(window, qtbot, view)
    for n, box in view.length_boxes.items():
        if box.isChecked() != (n in (1024, 4096)):
            _click(qtbot, box)
    view.repeats.setValue(1)
    _click(qtbot, view.run_button)
    assert run_for(loop, window.session._task).status == "finished"
    local_models = set(view.series("ttft_ms"))
    assert local_models
    local_rows = len(window.results_view.results)

    vllm = json.loads((DATA / "vllm_save_detailed.json").read_text())
    _import(window, qtbot, DATA / "vllm_save_detailed.json")
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
    _import(window, qtbot, DATA / "guidellm_benchmarks.json")
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

    _import(window, qtbot, DATA / "guidellm_benchmarks.json")  # again: nothing doubles
    assert "Imported 0 run(s), 2 already" in history.import_status.text()
    assert history.table.rowCount() == len(models)


def test_an_import_into_a_locked_history_says_why_and_the_next_one_works(
    window, qtbot, tmp_path
) -> None:
    history = window.history_view
    rows_before = history.table.rowCount()
    holder = sqlite3.connect(tmp_path / "history.sqlite3", isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # another program holds the history
    try:
        _import(window, qtbot, DATA / "vllm_save_detailed.json")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert "locked by another process" in history.import_status.text()
    assert history.table.rowCount() == rows_before
    _import(window, qtbot, DATA / "vllm_save_detailed.json")
    assert "Imported 1 run(s), 0 already" in history.import_status.text()
    assert history.table.rowCount() == rows_before + 1
