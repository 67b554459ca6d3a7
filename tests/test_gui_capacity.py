"""The Capacity tab (issue 29, item 5): a presenter picks two twins, clicks Search, watches the
progress count the search's schedule, and reads the answer above goodput and latency charts;
the Summary then leads with the same sentence. The presets fill the SLO and the sample trace,
and the trace replays on its own clock. Real window, real built-in provider, real clicks."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from gui_driver import click_tab, make_window, run_for, set_panes, until
from knee_server import knee_server
from PySide6.QtCore import Qt

from workbench.core.datasets import load_dataset
from workbench.core.load.capacity import Rule, step_requests, worst_case
from workbench.core.load.slo import parse_slo
from workbench.resources import resource

MODELS = ["sim-70b-gqa", "sim-70b-mla"]


@pytest.fixture
def window(qapp, loop, tmp_path):
    win = make_window(loop, tmp_path, time_scale=0.02)
    yield win
    win.close()
    loop.run_until_complete(win.session.close())


@pytest.fixture
def knee_url() -> Iterator[str]:
    with knee_server(8, 400.0) as url:  # 20 requests/s
        yield url


def _click(qtbot: Any, widget: Any) -> None:
    qtbot.mouseClick(widget, Qt.MouseButton.LeftButton)


@pytest.mark.slow
def test_a_search_from_the_cli_opens_from_the_history_with_its_charts(
    window, qtbot, tmp_path, knee_url
) -> None:
    """`bench --capacity` writes the history the app reads; Open results shows its search."""
    env = {**os.environ, "WORKBENCH_DATA_DIR": str(tmp_path)}  # the window's history file
    argv = [sys.executable, "-m", "workbench", "bench", "--base-url", knee_url, "--model",
            "knee", "--prompt-tokens", "1K", "--max-tokens", "4", "--capacity", "--slo",
            "ttft_p90:600ms", "--capacity-range", "8:32", "--capacity-requests", "20",
            "--arrivals", "constant", "--csv", str(tmp_path / "rows.csv")]  # fmt: skip
    proc = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    said = next(line for line in proc.stdout.splitlines() if line.startswith("knee "))
    history = window.history_view
    click_tab(window, qtbot, history)
    history.refresh()
    qtbot.waitUntil(lambda: history.table.rowCount() >= 1, timeout=5000)
    rect = history.table.visualItemRect(history.table.item(0, 0))
    qtbot.mouseClick(history.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    _click(qtbot, history.open_button)
    view = window.capacity_view
    click_tab(window, qtbot, view)
    assert view.sentence.text() == said
    assert "knee" in {item.name() for item in view.goodput_plot.getPlotItem().listDataItems()}


@pytest.mark.slow
def test_a_search_on_two_twins_shows_each_capacity_and_the_summary_leads_with_it(
    window, qtbot, loop
) -> None:
    set_panes(window, MODELS)
    view = window.capacity_view
    click_tab(window, qtbot, view)
    assert view.slo.text() == "ttft_p90:3s,tpot_p90:60ms"  # the chat-at-4K preset's
    _click(qtbot, view.run_button)
    task = window.session._task
    assert task is not None, "Search did not start a run"
    rule = Rule(requests=step_requests(parse_slo(view.slo.text())))
    planned = worst_case(rule)[1] * len(MODELS)
    assert f"{worst_case(rule)[1]:,} requests and about" in view.plan.text()  # said first
    run_for(loop, until(lambda: f"of at most {planned} requests" in view.status.text()))
    final = run_for(loop, task, timeout=240)
    assert final is not None and final.status == "finished"
    said = view.sentence.text()
    assert said.startswith(MODELS[0]) or said.startswith(MODELS[1])
    assert all(m in said for m in MODELS), said
    assert "at TTFT p90 ≤ 3 s and TPOT p90 ≤ 60 ms" in said and "at 4K prompts" in said
    for plot in (view.goodput_plot, view.latency_plot):  # a line per model, its knee, the SLO
        named = {item.name() for item in plot.getPlotItem().listDataItems()}
        assert set(MODELS) <= named
    assert len(view.steps[MODELS[0]]) >= 3
    click_tab(window, qtbot, window.summary_view)
    qtbot.waitUntil(lambda: window.summary_view.document is not None, timeout=10_000)
    first = window.summary_view.document.texts()[0]
    assert first == said


@pytest.mark.slow
def test_the_sample_trace_preset_replays_the_trace_through_the_core_reader(
    window, qtbot, loop
) -> None:
    set_panes(window, MODELS[:1])
    view = window.capacity_view
    click_tab(window, qtbot, view)
    _click(qtbot, view.preset)  # open the list, pick the second preset with the keyboard
    qtbot.keyClick(view.preset.view(), Qt.Key.Key_Down)
    qtbot.keyClick(view.preset.view(), Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: view.preset.currentData() == "trace", timeout=3000)
    trace = load_dataset(resource("traces", "mooncake_sample.jsonl"))
    assert view.dataset_path is not None and view.dataset_path.name == "mooncake_sample.jsonl"
    assert f"{len(trace.requests)} requests, with timestamps" in view.status.text()
    assert view.run_button.text() == "Replay trace"
    _click(qtbot, view.run_button)
    task = window.session._task
    assert task is not None
    final = run_for(loop, task, timeout=240)
    assert final is not None and final.status == "finished"
    rows = [r for r in window.session.records.load_run(final.run_id) if r.phase == "measured"]
    assert len(rows) == len(trace.requests)
