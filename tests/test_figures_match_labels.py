"""Every figure on screen belongs to what it is labelled (issue 25, items 4 and 6): a replay
shows the recorded models' names with the recorded data, and the Compare panes never show
figures of a prompt other than the one their slider and notes describe. The real window on the
built-in provider, clicked as a presenter does."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QPoint, Qt

from tests.support.gui_driver import (
    click_action,
    click_run,
    click_tab,
    run_for,
    run_sweep,
    set_panes,
    until,
)
from workbench.ui import colors
from workbench.ui.compare_controller import LOCAL_PROVIDER
from workbench.ui.panes_model import PaneState


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
    fourth = window.pane_set.widgets[3]
    assert fourth.picker.currentText().startswith("sim-70b-gqa+500")
    assert fourth.error.isVisible()
    fourth.picker.setFocus()
    above = fourth.picker.itemData(fourth.picker.currentIndex() - 1)
    qtbot.keyClick(fourth.picker, Qt.Key.Key_Up)  # the presenter picks another model
    assert fourth.picker.currentData() == above != f"{LOCAL_PROVIDER}|sim-70b-gqa+500"
    assert window.session.panes[3].target.model == above.split("|")[1]
    assert not fourth.error.isVisible()

    click_tab(window, qtbot, window.history_view)
    table = window.history_view.table
    _click(qtbot, table.viewport(), table.visualRect(table.model().index(0, 0)).center())
    _click(qtbot, window.history_view.replay_button)
    run_for(loop, window.session._task)

    assert [w.picker.currentText().split()[0] for w in window.pane_set.widgets[:4]] == recorded
    assert fourth.picker.currentData() == f"{LOCAL_PROVIDER}|sim-70b-gqa+500"
    assert window.session.panes[3].state is PaneState.ERROR
    assert fourth.error.isVisible() and "500" in fourth.error.text()
    assert fourth.color == colors.pane_colors([p.target for p in window.session.panes])[3]
    ticks = window.plots.ttft_plot.getAxis("bottom")._tickLevels[0]
    assert [label for _x, label in ticks][-1].replace("\n", "").endswith("gqa+500")  # wrapped


def test_a_replay_moves_the_prompt_slider_to_the_recorded_prompt(window, qtbot, loop) -> None:
    """Found by the monkey (seed 67): a run at 1K replayed under the 4K slider showed its 1K
    figures under "4K". The header names the recorded prompt, as the pickers its models."""
    set_panes(window, ["sim-70b-gqa", "sim-70b-mla"])
    window.prompt.set_tokens(1024)
    click_run(window, qtbot, loop)
    window.prompt.slider.setFocus()
    qtbot.keyClick(window.prompt.slider, Qt.Key.Key_Right)  # the presenter moves on: 2K
    assert window.prompt.tokens() == 2048
    click_tab(window, qtbot, window.history_view)
    table = window.history_view.table
    _click(qtbot, table.viewport(), table.visualRect(table.model().index(0, 0)).center())
    _click(qtbot, window.history_view.replay_button)
    run_for(loop, window.session._task)
    assert window.replay_banner.isVisible()
    assert window.prompt.tokens() == 1024
    for pane in window.session.panes:
        assert pane.result is not None and pane.result.prompt_tokens_target == 1024


def test_the_prompt_is_locked_while_a_run_is_in_flight(window, qtbot, loop) -> None:
    """Found by the monkey (seed 2): a click on the slider mid-run moved it to 2K while the
    panes kept drawing their 4K requests under it. Like the pickers, it waits for the run."""
    set_panes(window, ["sim-70b-gqa", "sim-70b-mla"])
    window.prompt.max_tokens.setValue(256)
    click_action(window, qtbot, window.run_action)
    task = window.session._task
    slider = window.prompt.slider
    run_for(loop, until(lambda: window.stop_action.isEnabled()), 30)  # the run has begun
    assert window.session.running and not slider.isEnabled()
    qtbot.mouseClick(slider, Qt.MouseButton.LeftButton, pos=slider.rect().topLeft() + QPoint(2, 2))
    slider.setFocus()
    qtbot.keyClick(slider, Qt.Key.Key_Home)
    assert window.prompt.tokens() == 4096
    run_for(loop, task)
    assert slider.isEnabled()
    for pane in window.session.panes:
        assert pane.result is not None and pane.result.prompt_tokens_target == 4096


def test_a_new_run_starts_its_progress_bar_at_zero(window, qtbot, loop) -> None:
    """Found by the monkey (seed 23): the second run's bar showed the first run's 100 % until
    its first reading, then 41 %: progress going back, as a presenter sees it."""
    set_panes(window, ["sim-70b-gqa", "sim-70b-mla"])
    click_run(window, qtbot, loop)
    bar = window.progress_bar
    shown: list[tuple[int, bool]] = []
    window.session.running_changed.connect(
        lambda running: running and shown.append((bar.value(), bar.isHidden()))
    )
    click_action(window, qtbot, window.run_action)
    run_for(loop, window.session._task)
    assert shown == [(0, False)]  # at 0, and shown (a capacity search hides it: no share)


def _empty(widget: Any) -> bool:
    """No figure, no text and no error box: nothing that could be read as a measurement."""
    figures = [widget.figures.text(k) for k in ("ttft", "decode", "elapsed")]
    return figures == ["–", "–", "–"] and not widget.text.toPlainText() and widget.error.isHidden()


def test_after_a_sweep_the_compare_panes_show_no_request_the_slider_does_not_describe(
    window, qtbot, loop
) -> None:
    set_panes(window, ["sim-70b-gqa", "sim-70b-mla"])
    window.prompt.slider.setFocus()
    for _ in range(3):
        qtbot.keyClick(window.prompt.slider, Qt.Key.Key_Right)  # 4K -> 32K
    assert window.prompt.tokens() == 32768
    final = run_sweep(window, qtbot, loop, lengths=(4096,), levels="1,4,16")
    assert final.status == "finished"
    click_tab(window, qtbot, window.tabs.widget(0))
    assert window.prompt.tokens() == 32768
    assert window.eta.text() == f"Run {final.run_id[:8]}: finished"  # not the clock drawn over
    for widget in window.pane_set.widgets[:2]:
        assert _empty(widget), widget.figures.text("ttft")
    assert [list(bar.opts["height"]) for bar in window.plots._bars] == [[0.0, 0.0]] * 2


def test_during_a_sweep_the_compare_panes_show_no_request_at_another_length(
    window, qtbot, loop
) -> None:
    """Found by the monkey (seed 11): mid-sweep, the panes drew a 1K request under the 4K
    slider. A sweep is drawn in its own tab; the panes show only what their header says."""
    set_panes(window, ["sim-70b-gqa", "sim-70b-mla"])
    assert window.prompt.tokens() == 4096
    seen: list[tuple[int, int]] = []

    def look() -> None:  # every frame the window paints, as a presenter's eye would
        for pane in window.session.panes:
            if pane.request_id is not None:
                seen.append((window.prompt.tokens(), len(pane.curve_t)))

    window.session.frame.connect(look)
    final = run_sweep(window, qtbot, loop, lengths=(1024, 2048))
    assert final.status == "finished"
    assert seen == []  # no pane took a sweep request (each was at 1K or 2K, not 4K)
    assert len(window.sweep_view.series("ttft_ms")) == 2  # the Sweep tab drew them


def test_run_all_refuses_a_prompt_the_pane_says_will_not_fit_and_fit_clears_the_refusal(
    window, qtbot, loop
) -> None:
    set_panes(window, ["sim-70b-gqa", "sim-falcon-7b"])  # 128K and 2K context windows
    falcon = window.pane_set.widgets[1]
    assert window.prompt.tokens() == 4096
    assert falcon.fit.text().startswith("Will not fit: prompt 4,096 + output 32")
    final = click_run(window, qtbot, loop)
    assert final.status == "finished"
    sent = window.session.records.load_run(final.run_id)
    assert {r.model for r in sent} == {"sim-70b-gqa"}  # nothing went to the 2K model
    assert window.session.panes[1].state is PaneState.REFUSED
    assert falcon.error.isVisible()
    assert falcon.error.text().startswith("Not sent: Will not fit: prompt 4,096")
    assert window.pane_set.widgets[0].figures.text("ttft") != "–"  # the other pane ran

    _click(qtbot, falcon.clamp_button)  # Fit
    assert falcon.fit.text().startswith("Fits the 2K context window")
    assert falcon.error.isHidden()  # no old refusal (or HTTP 400) beside "Fits"
    assert _empty(window.pane_set.widgets[0])  # its figures were for the 4K prompt

    final = click_run(window, qtbot, loop)
    assert {
        r.model for r in window.session.records.load_run(final.run_id) if r.phase == "measured"
    } == {
        "sim-70b-gqa",
        "sim-falcon-7b",
    }
    assert window.session.panes[1].state is not PaneState.REFUSED  # sent once it fits
