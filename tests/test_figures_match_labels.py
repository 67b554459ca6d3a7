"""Every figure on screen belongs to what it is labelled (issue 25, items 4 and 6): a replay
shows the recorded models' names with the recorded data, and the Compare panes never show
figures of a prompt other than the one their slider and notes describe. The real window on the
built-in provider, clicked as a presenter does."""

from __future__ import annotations

from typing import Any

import pytest
from gui_driver import click_run, click_tab, make_window, run_for, set_panes
from PySide6.QtCore import Qt

from workbench.ui import colors
from workbench.ui.compare_controller import LOCAL_PROVIDER
from workbench.ui.panes_model import PaneState


@pytest.fixture
def window(qapp, loop, tmp_path):
    win = make_window(loop, tmp_path)
    yield win
    win.close()
    loop.run_until_complete(win.session.close())


def _click(qtbot: Any, widget: Any, pos: Any = None) -> None:
    if pos is None:
        qtbot.mouseClick(widget, Qt.MouseButton.LeftButton)
    else:
        qtbot.mouseClick(widget, Qt.MouseButton.LeftButton, pos=pos)


def test_a_replay_names_the_recorded_model_in_a_pane_whose_model_was_changed_since(
    window, qtbot, loop
) -> None:
    recorded = ["sim-70b-mha", "sim-70b-gqa", "sim-70b-mla", "sim-70b-gqa+500"]
    set_panes(window, recorded)
    click_run(window, qtbot, loop)
    fourth = window.pane_widgets[3]
    assert fourth.picker.currentText().startswith("sim-70b-gqa+500")
    assert fourth.error.isVisible()
    fourth.picker.setFocus()
    qtbot.keyClick(fourth.picker, Qt.Key.Key_Up)  # the presenter picks another model
    assert fourth.picker.currentData() == f"{LOCAL_PROVIDER}|sim-70b-gla"
    assert window.session.panes[3].target.model == "sim-70b-gla"
    assert not fourth.error.isVisible()

    click_tab(window, qtbot, window.history_view)
    table = window.history_view.table
    _click(qtbot, table.viewport(), table.visualRect(table.model().index(0, 0)).center())
    _click(qtbot, window.history_view.replay_button)
    run_for(loop, window.session._task)

    assert [w.picker.currentText().split()[0] for w in window.pane_widgets[:4]] == recorded
    assert fourth.picker.currentData() == f"{LOCAL_PROVIDER}|sim-70b-gqa+500"
    assert window.session.panes[3].state is PaneState.ERROR
    assert fourth.error.isVisible() and "500" in fourth.error.text()
    assert fourth.color == colors.pane_colors([p.target for p in window.session.panes])[3]
    ticks = window.plots.ttft_plot.getAxis("bottom")._tickLevels[0]
    assert [label for _x, label in ticks][-1].endswith("gqa+500")
