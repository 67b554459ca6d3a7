"""The demo a presenter gives, clicked and typed through the real window (issue 12).

Every number on screen belongs to its model, failures look like failures, the clock moves, and
the summary is a page a stakeholder can read alone. pytest-qt drives real widgets against the
built-in provider (its own process, on 127.0.0.1); nothing calls a slot directly.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QPoint, Qt

from tests.support.gui_driver import (
    click_action,
    click_run,
    click_tab,
    opened_window,
    run_for,
    set_panes,
    until,
)
from workbench.core.foundation.token_counts import tokens_label
from workbench.ui import colors
from workbench.ui.compare_controller import LOCAL_PROVIDER
from workbench.ui.panes_model import PaneState
from workbench.ui.prompt_slider import STOPS, handle_centre

# ---- 2. numbers stay with their model --------------------------------------------------------


def test_switching_preset_after_a_run_clears_the_old_models_figures(window, qtbot, loop) -> None:
    final = click_run(window, qtbot, loop)
    assert final.status == "finished"
    assert window.pane_set.widgets[1].figures.text("decode").endswith("tok/s")
    window.preset.setFocus()
    qtbot.keyClick(window.preset, Qt.Key.Key_Down)  # the attention-only preset
    assert [k.split("|")[1] for k in window.pane_set.keys][:2] == ["sim-70b-mha", "sim-70b-gqa"]
    for widget in window.pane_set.widgets[:4]:
        assert all(widget.figures.text(k) == "–" for k in ("ttft", "decode", "elapsed", "cost"))
        assert widget.text.toPlainText() == ""
    assert [w.badge.text() for w in window.pane_set.widgets[:4]] == ["MHA", "GQA", "MLA", "GLA"]
    assert window.plots.points() == 0  # the old curves are gone with their models


def test_panes_cannot_change_model_mid_run(window, qtbot, loop) -> None:
    window.prompt.max_tokens.setValue(2000)
    click_action(window, qtbot, window.run_action)
    run_for(loop, until(lambda: any(p.state is PaneState.STREAMING for p in window.session.panes)))
    assert not window.preset.isEnabled() and not window.pane_set.widgets[0].picker.isEnabled()
    click_action(window, qtbot, window.stop_action)
    run_for(loop, window.session._task)
    assert window.preset.isEnabled() and window.pane_set.widgets[0].picker.isEnabled()


def test_stop_after_watching_the_tokens_stream_ends_the_run_as_cancelled(
    qapp, loop, tmp_path, qtbot
) -> None:
    with opened_window(loop, tmp_path, time_scale=0.2) as win:  # 2,000 tokens stream for seconds
        win.prompt.max_tokens.setValue(2000)
        click_action(win, qtbot, win.run_action)
        panes = win.session.panes
        run_for(loop, until(lambda: any(p.state is PaneState.STREAMING for p in panes)))
        seen = sum(p.events for p in panes)
        # the presenter watches: Qt handles the tokens' events, as the app does
        qtbot.waitUntil(lambda: sum(p.events for p in panes) > seen, timeout=10_000)
        click_action(win, qtbot, win.stop_action)
        final = run_for(loop, win.session._task)
        assert final is not None and final.status == "cancelled"
        assert PaneState.STOPPED in {p.state for p in panes}
        assert win.run_action.isEnabled() and not win.stop_action.isEnabled()


# ---- 7, 8. failures drawn as failures; one colour per model ----------------------------------


def test_a_failed_model_is_a_marked_bar_and_the_status_counts_it(window, qtbot, loop) -> None:
    set_panes(window, ["sim-70b-gqa+500", "sim-70b-mla"])
    final = click_run(window, qtbot, loop)
    assert final.status == "finished"
    assert window.eta.text().endswith("finished, 1 failed")
    marks = [
        item.toPlainText()
        for item in window.plots.ttft_plot.plotItem.items
        if type(item).__name__ == "TextItem"
    ]
    assert marks == ["failed: server_error"]
    ticks = window.plots.ttft_plot.getAxis("bottom")._tickLevels[0]
    assert [label for _x, label in ticks] == ["gqa+500", "mla"]  # names, their shared part cut


def _pen_color(item: Any) -> str:
    return item.opts["pen"].color().name()


def test_each_model_keeps_one_colour_everywhere_and_across_sessions(
    qapp, loop, tmp_path, qtbot
) -> None:
    with opened_window(loop, tmp_path) as win:
        set_panes(win, ["sim-70b-mha", "sim-70b-gqa"])
        click_run(win, qtbot, loop)
        first = {}
        for widget, pane, curve in zip(
            win.pane_set.widgets, win.session.panes, win.plots._curves, strict=False
        ):
            color = colors.model_color(LOCAL_PROVIDER, pane.target.model)
            first[pane.target.model] = color
            assert color in widget.badge.styleSheet() and color in widget.styleSheet()
            assert _pen_color(curve) == color
        bars = win.plots._bars[0].opts["brushes"]
        assert [str(b) for b in bars] == list(first.values())
        assert len(set(first.values())) == 2
        click_tab(win, qtbot, win.summary_view)
        assert win.summary_view.document.colors == first
        set_panes(win, ["sim-70b-gqa", "sim-70b-mha"])  # order changes, colours do not
        assert [_pen_color(c) for c in win.plots._curves] == [
            first["sim-70b-gqa"],
            first["sim-70b-mha"],
        ]
    colors._by_dir.clear()  # a new session reads the remembered colours from the data dir
    assert colors.model_color(LOCAL_PROVIDER, "sim-70b-mha") == first["sim-70b-mha"]
    assert colors.model_color(LOCAL_PROVIDER, "sim-70b-gqa") == first["sim-70b-gqa"]


# ---- 6. slider stops and what will not fit ---------------------------------------------------


def test_every_prompt_stop_sits_under_its_label_and_dragging_there_selects_it(
    window, qtbot
) -> None:
    slider, labels = window.prompt.slider, window.prompt.stops
    qtbot.waitExposed(window)
    centres = labels.centres()
    for i, n in enumerate(STOPS):
        x = (
            centres[i]
            + labels.mapTo(window, QPoint(0, 0)).x()
            - slider.mapTo(window, QPoint(0, 0)).x()
        )
        assert abs(x - handle_centre(slider, i)) <= 1, tokens_label(n)
    y = slider.height() // 2
    for i in (len(STOPS) - 1, 8, 10, 0):  # 1M, 32K, 128K, 128: drag the handle onto the label
        start = QPoint(handle_centre(slider, slider.value()), y)
        target = QPoint(centres[i] + labels.x() - slider.x(), y)
        qtbot.mousePress(slider, Qt.MouseButton.LeftButton, pos=start)
        qtbot.mouseMove(slider, pos=target)
        qtbot.mouseRelease(slider, Qt.MouseButton.LeftButton, pos=target)
        assert window.prompt.tokens() == STOPS[i], tokens_label(STOPS[i])
        assert window.prompt.value_label.text() == f"{tokens_label(STOPS[i])} tokens"


def test_a_prompt_that_overflows_the_window_is_flagged_before_sending_and_clamped_in_one_click(
    window, qtbot
) -> None:
    set_panes(window, ["sim-llama-3-70b", "sim-deepseek-v3"])
    window.prompt.max_tokens.setValue(256)
    window.prompt.slider.setFocus()
    qtbot.keyClick(window.prompt.slider, Qt.Key.Key_End)  # 1M
    for _ in range(3):
        qtbot.keyClick(window.prompt.slider, Qt.Key.Key_Left)
    assert window.prompt.tokens() == 131072
    pane = window.pane_set.widgets[0]
    assert pane.fit.text().startswith("Will not fit: prompt 131,072 + output 256 = 131,328")
    assert pane.clamp_button.isVisible()
    qtbot.mouseClick(pane.clamp_button, Qt.MouseButton.LeftButton)
    tokens = window.prompt.tokens()
    assert tokens + 256 <= 131072 and tokens > 128_000
    assert window.prompt.value_label.text() == f"{tokens:,} tokens"
    assert pane.fit.text().startswith("Fits the 128K context window")
    assert not pane.clamp_button.isVisible()


def test_a_kv_cache_larger_than_the_deployment_is_flagged_before_sending(window, qtbot) -> None:
    set_panes(window, ["sim-70b-mha", "sim-70b-gqa"])
    window.prompt.set_tokens(512 * 1024)
    mha, gqa = window.pane_set.widgets[:2]
    assert mha.fit.text().startswith("Will not fit in memory: MHA at 524,288 tokens needs")
    assert "H200s (8 here)" in mha.fit.text() and "GQA" in mha.fit.text()
    assert gqa.fit.text().startswith("Fits the 1032K context window")
    assert "its KV cache fits" in gqa.fit.text()


# ---- 5. the clock moves during prefill -------------------------------------------------------


def test_elapsed_eta_and_progress_move_while_a_pane_waits_for_its_first_token(
    qapp, loop, tmp_path, qtbot
) -> None:
    with opened_window(loop, tmp_path, time_scale=0.2) as win:
        set_panes(win, ["sim-70b-mla", "sim-70b-gqa"])
        win.mode.setCurrentIndex(win.mode.findData("sequential"))
        win.prompt.set_tokens(65536)
        win.prompt.max_tokens.setValue(8)
        click_action(win, qtbot, win.run_action)
        second = win.session.panes
        run_for(
            loop,
            until(
                lambda: (
                    second[0].result is not None
                    and second[1].state is PaneState.WAITING
                    and second[1].t_send_ns is not None
                )
            ),
        )

        def sample() -> tuple[str, str, int, int]:
            return (
                win.pane_set.widgets[1].figures.text("elapsed"),
                win.eta.text(),
                win.progress_bar.value(),
                win.progress_bar.maximum(),
            )

        run_for(loop, until(lambda: sample()[0].endswith(" s"), 10))  # the clock shows
        before = sample()

        def moved() -> bool:
            now = sample()
            filling = now[3] == 0 or now[2] > before[2]  # busy, or filling
            return now[0] != before[0] and now[1] != before[1] and filling

        run_for(loop, until(moved, 10))
        after = sample()
        assert second[1].state is PaneState.WAITING, "the prefill ended too soon to watch"
        assert after[0].endswith(" s") and "elapsed" in after[1] and "ETA" in after[1]
        click_action(win, qtbot, win.stop_action)  # the rest of the 64K prefill proves nothing
        run_for(loop, win.session._task)
