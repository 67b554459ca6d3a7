"""The Sweep tab's x axis follows what was swept: concurrency levels at one prompt length show
concurrency on the axis (labelled so), a prompt sweep keeps prompt tokens. A real sweep on the
built-in provider (127.0.0.1), a real SQLite history, driven through the tab's controls."""

from __future__ import annotations

import math
from typing import Any

from PySide6.QtCore import Qt

from tests.support.gui_driver import click_tab, run_sweep


def _click(qtbot: Any, widget: Any) -> None:
    qtbot.mouseClick(widget, Qt.MouseButton.LeftButton)


def _sweep(window: Any, qtbot: Any, loop: Any, lengths: tuple[int, ...], levels: str) -> Any:
    view = window.sweep_view
    assert run_sweep(window, qtbot, loop, lengths, levels=levels).status == "finished"
    view.flush()
    return view


def _axis_label(view: Any, key: str) -> str:
    return view.plots[key].getAxis("bottom").labelText


def test_a_concurrency_sweep_puts_concurrency_on_the_x_axis(window, qtbot, loop) -> None:
    view = _sweep(window, qtbot, loop, (1024,), "1,4,16")
    rows = window.session.store.query(
        "SELECT DISTINCT concurrency FROM requests WHERE phase = 'measured' ORDER BY 1"
    )
    assert rows == [(1,), (4,), (16,)]  # the run really went at three levels
    assert view.axis == "concurrency"
    for key in view.plots:
        assert _axis_label(view, key).startswith("concurrency")
        ticks = view.plots[key].getAxis("bottom")._tickLevels[0]
        assert [label for _x, label in ticks] == ["1", "4", "16"]
    series = view.series("ttft_ms")
    assert set(series) == {"sim-llama-3-70b", "sim-deepseek-v3"}
    for model, points in series.items():
        assert [p[0] for p in points] == [1, 4, 16], model
        drawn = next(i for i in view.plots["ttft_ms"].plotItem.listDataItems() if i.name() == model)
        xs, _ys = drawn.getData()
        assert [round(10**x) for x in xs] == [1, 4, 16]
    low, high = view.plots["ttft_ms"].viewRange()[0]
    assert low < 0 < math.log10(16) < high


def test_a_prompt_sweep_keeps_prompt_tokens_on_the_x_axis(window, qtbot, loop) -> None:
    view = _sweep(window, qtbot, loop, (1024, 4096), "2")
    assert view.axis == "prompt"
    assert _axis_label(view, "ttft_ms").startswith("prompt tokens")
    assert [p[0] for p in view.series("ttft_ms")["sim-llama-3-70b"]] == [1024, 4096]


def test_bad_concurrency_levels_are_refused_with_the_fix(window, qtbot, loop) -> None:
    view = window.sweep_view
    click_tab(window, qtbot, view)
    view.concurrency.setText("4,many")
    _click(qtbot, view.run_button)
    assert "e.g. 1,4,16" in view.status.text()
    assert not window.session.running
