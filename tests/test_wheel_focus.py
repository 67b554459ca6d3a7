"""The mouse wheel changes a control only when the user means it (issue 25): over an unfocused
model picker, spin box or slider it scrolls the area around it and changes nothing; after a
click into the control it turns the control. Real QWheelEvents over the real window."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication, QScrollArea, QWidget

from tests.support.gui_driver import click_run, click_tab, run_for
from workbench.ui.kernels_view import KernelsView
from workbench.ui.window_late import add_kernels_tab

NOTCH = -120  # one notch towards the user: down the page, to the next item of a picker


def wheel(widget: QWidget, notches: int = 1) -> None:
    """One wheel turn over the middle of `widget`, as the window system delivers it."""
    centre = QPointF(widget.rect().center())
    event = QWheelEvent(
        centre,
        QPointF(widget.mapToGlobal(centre)),
        QPoint(0, 0),
        QPoint(0, NOTCH * notches),
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(widget, event)


@pytest.fixture
def window(window):
    window.resize(1024, 700)
    return window


def _four_panes(window: Any, qtbot: Any, loop: Any) -> QScrollArea:
    window.pane_count.setValue(4)
    click_run(window, qtbot, loop)
    area = window.compare.panes_host.parentWidget().parentWidget()
    assert isinstance(area, QScrollArea)
    qtbot.waitUntil(lambda: area.verticalScrollBar().maximum() > 0, timeout=5000)
    return area


def _shown(window: Any) -> tuple[list[str], list[str]]:
    """The panes' models and the figures they show."""
    return list(window.pane_set.keys), [w.figures.text("ttft") for w in window.pane_set.widgets[:4]]


def test_the_wheel_over_a_pane_picker_scrolls_the_panes_and_changes_nothing(
    window, qtbot, loop
) -> None:
    area = _four_panes(window, qtbot, loop)
    before = _shown(window)
    assert all(before[1]), before  # every pane shows its run's figures
    picker = window.pane_set.widgets[2].picker
    assert not picker.hasFocus()
    wheel(picker)
    assert _shown(window) == before  # the model and its figures stay
    assert picker.currentData() == window.pane_set.keys[2]
    assert area.verticalScrollBar().value() > 0  # the pane area scrolled instead

    # a click into the picker: now the user means it, and the wheel turns it
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=5000)
    qtbot.mouseClick(picker, Qt.MouseButton.LeftButton)  # opens its list, and focuses it
    qtbot.waitUntil(lambda: picker.view().isVisible(), timeout=3000)
    picker.hidePopup()  # the user closes the list without choosing
    assert picker.hasFocus()
    wheel(picker)
    assert window.pane_set.keys[2] != before[0][2]  # the pane takes the next model
    assert picker.currentData() == window.pane_set.keys[2]


def test_after_a_replay_one_notch_over_a_picker_clears_nothing(window, qtbot, loop) -> None:
    _four_panes(window, qtbot, loop)
    click_tab(window, qtbot, window.history_view)
    qtbot.mouseClick(window.history_view.replay_button, Qt.MouseButton.LeftButton)
    run_for(loop, window.session._task)
    assert window.replay_banner.isVisible()
    before = _shown(window)
    for widget in window.pane_set.widgets[:4]:
        wheel(widget.picker)
    assert _shown(window) == before
    assert window.replay_banner.isVisible()  # still the replay, with its figures


def test_prompt_slider_and_spin_boxes_of_every_tab_ignore_an_unfocused_wheel(
    window, qtbot, loop
) -> None:
    kernels = KernelsView()
    add_kernels_tab(window, kernels)
    try:
        prompt = window.prompt
        tokens, max_tokens = prompt.tokens(), prompt.max_tokens.value()
        wheel(prompt.slider)
        wheel(prompt.max_tokens)
        wheel(prompt.task)
        assert (prompt.tokens(), prompt.max_tokens.value()) == (tokens, max_tokens)
        click_tab(window, qtbot, window.sweep_view)
        repeats = window.sweep_view.repeats.value()
        wheel(window.sweep_view.repeats, -1)
        assert window.sweep_view.repeats.value() == repeats
        click_tab(window, qtbot, kernels)
        batch, iters = kernels.batch.value(), kernels.iters.value()
        wheel(kernels.batch, -1)
        wheel(kernels.iters, -1)
        wheel(kernels.dtype)
        assert (kernels.batch.value(), kernels.iters.value()) == (batch, iters)
        # Tab (the keyboard's way in) focuses the spin box: then the wheel turns it
        kernels.batch.setFocus(Qt.FocusReason.TabFocusReason)
        qtbot.waitUntil(kernels.batch.hasFocus, timeout=3000)
        wheel(kernels.batch, -1)
        assert kernels.batch.value() > batch
        for control in (prompt.slider, prompt.max_tokens, kernels.batch, window.preset):
            assert control.focusPolicy() == Qt.FocusPolicy.StrongFocus  # a wheel never focuses
    finally:
        loop.run_until_complete(asyncio.wait_for(kernels.aclose(), 15))
