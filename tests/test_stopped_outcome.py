"""A user's Stop is its own outcome, and the history counts the same in the window and the CLI.

Issue 25 items 8 and 16: Stop all read "cancelled, 2 failed", a pane's Stop "finished, 1 failed",
the Summary "failed at 32K (cancelled)" with a hatched bar; `history list` said 69 requests /
25 failed where the window's History said 66 measured / 22 failed. Real window, real Stop
buttons, the built-in provider, and `workbench history list` as a subprocess on the same file.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt

from tests.support.gui_driver import (
    click_action,
    click_tab,
    opened_window,
    run_for,
    until,
)
from workbench.ui.history_view import COLUMNS
from workbench.ui.main_window import MainWindow
from workbench.ui.panes_model import PaneState
from workbench.ui.theme import error_colors


def _history_list(tmp_path: Path) -> list[dict[str, Any]]:
    env = {**os.environ, "WORKBENCH_DATA_DIR": str(tmp_path)}  # make_window's history file
    proc = subprocess.run(
        [sys.executable, "-m", "workbench", "history", "list", "--json"],
        capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return list(json.loads(proc.stdout))


def _history_text(tmp_path: Path) -> str:
    env = {**os.environ, "WORKBENCH_DATA_DIR": str(tmp_path)}
    proc = subprocess.run(
        [sys.executable, "-m", "workbench", "history", "list"],
        capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def _window_history(window: MainWindow, qtbot: Any) -> dict[str, str]:
    click_tab(window, qtbot, window.history_view)
    qtbot.mouseClick(window.history_view.refresh_button, Qt.MouseButton.LeftButton)
    table = window.history_view.table
    return {c: table.item(0, i).text() for i, c in enumerate(COLUMNS)}


def _marks(window: MainWindow) -> list[str]:
    return [
        item.toPlainText()
        for item in window.plots.ttft_plot.plotItem.items
        if type(item).__name__ == "TextItem"
    ]


def test_stop_all_reads_stopped_everywhere_not_failed(qapp, loop, tmp_path, qtbot) -> None:
    with opened_window(loop, tmp_path, time_scale=0.2) as window:  # 2,000 tokens stream for seconds
        window.prompt.max_tokens.setValue(2000)
        click_action(window, qtbot, window.run_action)
        panes = window.session.panes
        run_for(loop, until(lambda: all(p.state is PaneState.STREAMING for p in panes)))
        click_action(window, qtbot, window.stop_action)
        final = run_for(loop, window.session._task)
        assert final.status == "cancelled"
        assert window.eta.text().endswith(": cancelled, 2 stopped"), window.eta.text()
        assert _marks(window) == ["stopped", "stopped"]  # drawn as stopped, not hatched failures
        click_tab(window, qtbot, window.summary_view)
        text = "\n".join(window.summary_view.document.texts())
        assert "was stopped by the user at 4K" in text
        assert "failed" not in text.replace("ok / failed / stopped", "")
        bars = window.summary_view.document._bars("ttft_ms")
        assert [(b.value, b.stopped, b.failure) for b in bars] == [(None, True, "stopped")] * 2
        row = _window_history(window, qtbot)
        assert row["status"] == "cancelled, 2 stopped"
        assert (row["measured"], row["failed"], row["stopped"]) == ("2", "0", "2")
        (listed,) = _history_list(tmp_path)
        assert (listed["requests"], listed["errors"], listed["stopped"]) == (2, 0, 2)
        assert "   0 failed    2 stopped" in _history_text(tmp_path)


def test_a_panes_stop_finishes_the_run_with_one_stopped(qapp, loop, tmp_path, qtbot) -> None:
    with opened_window(loop, tmp_path, time_scale=0.2) as window:
        window.prompt.max_tokens.setValue(1500)  # seconds of streaming: the Stop lands mid-stream
        click_action(window, qtbot, window.run_action)
        panes = window.session.panes
        run_for(loop, until(lambda: all(p.state is PaneState.STREAMING for p in panes)))
        qtbot.mouseClick(window.pane_set.widgets[1].stop_button, Qt.MouseButton.LeftButton)
        final = run_for(loop, window.session._task)
        assert [p.state for p in panes] == [PaneState.DONE, PaneState.STOPPED]
        assert window.eta.text() == f"Run {final.run_id[:8]}: finished, 1 stopped"
        assert _marks(window) == ["stopped"]
        note = window.pane_set.widgets[1].error
        assert note.isVisible() and note.text() == "Stopped."
        failure_bg = error_colors(window.palette())[0]
        shown = note.grab().toImage().pixelColor(2, note.height() // 2)
        assert shown.name() != failure_bg.name()  # not the error box's red
        click_tab(window, qtbot, window.summary_view)
        text = "\n".join(window.summary_view.document.texts())
        assert "sim-deepseek-v3 was stopped by the user at 4K: 1 of 1 requests." in text
        assert "failed at" not in text


def test_history_list_and_the_window_count_a_run_with_warmup_and_failures_alike(
    qapp, loop, tmp_path, qtbot
) -> None:
    env = {**os.environ, "WORKBENCH_DATA_DIR": str(tmp_path)}
    args = ["bench", "--prompt-tokens", "1K", "--max-tokens", "8", "--repeats", "3"]
    models = ["--model", "sim-70b-gqa", "--model", "sim-70b-gqa+500"]
    proc = subprocess.run(
        [sys.executable, "-m", "workbench", *args, *models, "--warmup", "2", "--json"],
        capture_output=True, text=True, env=env, timeout=180, cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 3 and "3 of 6 requests failed" in proc.stderr, proc.stderr
    (listed,) = _history_list(tmp_path)
    # 3 repeats of each model measured; 3 failed (the +500 model); warm-ups and calibrations apart
    assert (listed["requests"], listed["errors"], listed["stopped"]) == (6, 3, 0)
    assert listed["warmup"] == 4
    with opened_window(loop, tmp_path) as window:
        row = _window_history(window, qtbot)
        assert (row["measured"], row["failed"], row["stopped"]) == ("6", "3", "0")
        assert row["calibration / warm-up"] == f"{listed['calibration']} / 4"
        assert row["status"].endswith(", 3 failed")
