"""Driving the real main window in tests as a presenter does: toolbar clicks, tab clicks, waits.

Shared by the GUI test modules of issue 12; nothing here calls a slot directly.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication, QEvent, QObject, QSettings, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QApplication, QMenu

from tests.support.shared_provider import SharedBuiltIn
from workbench.core.history.run_history import RunStore
from workbench.ui.compare_controller import LOCAL_PROVIDER, CompareController
from workbench.ui.main_window import MainWindow
from workbench.ui.translators import install_translators

TIMEOUT = 90
CLOSE_SECONDS = 30


def make_window(loop: Any, tmp_path: Path, time_scale: float = 0.05) -> MainWindow:
    """The real window on the built-in provider: the real-models preset, 4K prompt, 32 tokens."""
    session = CompareController(store=RunStore(tmp_path / "history.sqlite3"), time_scale=time_scale)
    settings = QSettings(str(tmp_path / "gui.ini"), QSettings.Format.IniFormat)
    win = MainWindow(session, settings)
    session.builtin = SharedBuiltIn(time_scale)  # this process's serve-local, not one per window
    loop.run_until_complete(session.start_local_provider())
    win.pane_set.set_choices(
        [(f"{LOCAL_PROVIDER}|{m.id}", m.id) for m in session.catalog.simulated()]
    )
    win.apply_preset("real")
    win.prompt.set_tokens(4096)
    win.prompt.max_tokens.setValue(32)
    win.show()
    return win


def close_window(loop: Any, win: MainWindow) -> None:
    """Close the window and its session; English and a light palette again (both are the
    app's, not the window's: the next test expects them)."""
    install_translators(QApplication.instance(), "en")  # no-op when already English
    if win.theme.dark:
        win.theme.set_choice("light")
    win.close()
    loop.run_until_complete(asyncio.wait_for(win.session.close(), CLOSE_SECONDS))
    # deleted now, not left for the worker's later tests: a closed window stays alive, and
    # every palette or language switch after it walked all the widgets of all those before
    win.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


@contextmanager
def opened_window(loop: Any, tmp_path: Path, time_scale: float = 0.05) -> Iterator[MainWindow]:
    """make_window for the `with` block, then close_window, however the block ends."""
    win = make_window(loop, tmp_path, time_scale)
    try:
        yield win
    finally:
        close_window(loop, win)


def run_for(loop: Any, coro: Any, timeout: float = TIMEOUT) -> Any:
    return loop.run_until_complete(asyncio.wait_for(coro, timeout))


async def until(condition: Any, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        await asyncio.sleep(0.01)


def click_action(window: MainWindow, qtbot: Any, action: Any) -> None:
    """Click the toolbar button of `action` (Run all, Stop all), as a presenter does."""
    qtbot.mouseClick(window.toolbar.widgetForAction(action), Qt.MouseButton.LeftButton)


def click_run(window: MainWindow, qtbot: Any, loop: Any) -> Any:
    """Click Run all, then wait for the run to end."""
    before = window.session._task
    click_action(window, qtbot, window.run_action)
    assert window.session._task is not before, "Run all did not start a run"
    return run_for(loop, window.session._task)


def click_tab(window: MainWindow, qtbot: Any, widget: Any) -> None:
    bar = window.tabs.tabBar()
    qtbot.mouseClick(
        bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(window.tabs.indexOf(widget)).center()
    )
    assert window.tabs.currentWidget() is widget


class _PaintSeen(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.seen = False

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        self.seen |= event.type() == QEvent.Type.Paint
        return False


def click_tab_until_painted(window: MainWindow, qtbot: Any, widget: Any) -> None:
    """click_tab, then wait until the tab has been painted: what its first show costs (layout,
    paint) is spent before whatever the test measures next."""
    painted = _PaintSeen()
    widget.installEventFilter(painted)
    try:
        click_tab(window, qtbot, widget)
        qtbot.waitUntil(lambda: painted.seen, timeout=10_000)
    finally:
        widget.removeEventFilter(painted)


def run_sweep(
    window: MainWindow,
    qtbot: Any,
    loop: Any,
    lengths: tuple[int, ...] = (1024, 4096),
    repeats: int = 1,
    levels: str | None = None,
) -> Any:
    """A sweep as a user starts one: the Sweep tab, the length boxes and Run sweep clicked;
    returns how the run ended."""
    view = window.sweep_view
    click_tab(window, qtbot, view)
    for n, box in view.length_boxes.items():
        if box.isChecked() != (n in lengths):
            qtbot.mouseClick(box, Qt.MouseButton.LeftButton)
    view.repeats.setValue(repeats)
    if levels is not None:
        view.concurrency.setText(levels)
    qtbot.mouseClick(view.run_button, Qt.MouseButton.LeftButton)
    return run_for(loop, window.session._task)


def set_panes(window: MainWindow, models: list[str]) -> None:
    window.pane_set.set([f"{LOCAL_PROVIDER}|{m}" for m in models])


def panes_on_own_clock(window: MainWindow) -> None:
    """The panes' serve-local as an endpoint of its own ("sim-clock"), not as the built-in
    provider: an SLO is then judged on the server's own clock (the built-in provider at a time
    scale is refused, as bench refuses it)."""
    for pane in window.session.panes:
        assert pane.target is not None
        pane.target = replace(pane.target, provider="sim-clock")


def type_over(qtbot: Any, field: Any, text: str) -> None:
    """Click in a field, select what is there, type over it."""
    qtbot.mouseClick(field, Qt.MouseButton.LeftButton)
    qtbot.keyClick(field, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClicks(field, text)


def click_actions(qtbot: Any, window: MainWindow, *actions: QAction) -> None:
    """Click the menu bar item of actions[0], then each action down the open menus (by the
    actions themselves: their texts change with the language). First a user's pause between
    two menu walks (the behaviour, not a wait): right after a language switch the menus are
    windows that get LanguageChange and the bar lays its new titles out after, and a click at
    once left the menu shut (Help → About just after View → Language → 中文, a CI run)."""
    qtbot.wait(QApplication.doubleClickInterval())
    bar = window.menuBar()
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.actionGeometry(actions[0]).center())
    menu: QMenu = actions[0].menu()
    qtbot.waitUntil(menu.isVisible, timeout=3000)
    for action in actions[1:]:
        qtbot.mouseClick(menu, Qt.MouseButton.LeftButton, pos=menu.actionGeometry(action).center())
        if action.menu() is not None:
            menu = action.menu()
            qtbot.waitUntil(menu.isVisible, timeout=3000)
