"""The seeded monkey (issue 25), run by test_gui_monkey.py on an offscreen screen of 1600x1000.

Each seed drives the real window on the built-in provider with random clicks, wheel turns, key
presses, resizes down to 1024x700, tab, theme and language switches, runs, stops, replays and
imports. After every step it checks what a presenter relies on: no exception; the window fits
its screen; each pane's figures belong to the model its picker names and the prompt its slider
shows; progress never goes back within a run; no two models on screen share a colour. A failing
check names its seed and step; `WORKBENCH_MONKEY_SEED=<seed>` replays that seed alone.
"""

from __future__ import annotations

import asyncio
import os
import random
import re
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPoint, QPointF, QSize, Qt
from PySide6.QtGui import QDesktopServices, QWheelEvent
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractSlider,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QFileDialog,
    QLineEdit,
    QTabBar,
    QWidget,
)

from tests.support.gui_driver import click_actions
from workbench.ui.panes_model import PaneState, split_pane_key

SCREEN = QSize(1600, 1000)  # test_gui_monkey.py makes the screen this size
SEEDS = [int(os.environ["WORKBENCH_MONKEY_SEED"])] if "WORKBENCH_MONKEY_SEED" in os.environ else [
    11, 23, 37, 41, 59, 67, 73, 89, 97, 101
]  # fmt: skip
STEPS = int(os.environ.get("WORKBENCH_MONKEY_STEPS", "40"))
VLLM_FILE = Path(__file__).parents[1] / "data" / "results" / "vllm_save_detailed.json"
KEYS = [Qt.Key.Key_Tab, Qt.Key.Key_Backtab, Qt.Key.Key_Up, Qt.Key.Key_Down, Qt.Key.Key_Left,
        Qt.Key.Key_Right, Qt.Key.Key_PageUp, Qt.Key.Key_PageDown, Qt.Key.Key_Home,
        Qt.Key.Key_End, Qt.Key.Key_Space, Qt.Key.Key_Return, Qt.Key.Key_Escape, Qt.Key.Key_1,
        Qt.Key.Key_4, Qt.Key.Key_A]  # fmt: skip
# Ctrl+Q would quit and F1 opens a browser: the rest of the window's shortcuts are fair game
SHORTCUTS = [(Qt.Key.Key_R, Qt.KeyboardModifier.ControlModifier),
             (Qt.Key.Key_Period, Qt.KeyboardModifier.ControlModifier)]  # fmt: skip


@pytest.fixture
def window_time_scale():
    return 0.02


@pytest.fixture
def window(window, qapp, monkeypatch):
    """tests/support/gui.py's window, which also leaves English and a light palette after it."""
    assert qapp.primaryScreen().availableGeometry().size() == SCREEN
    # what cannot exist here: a modal file dialog (a presenter cancels it) and a browser
    for name in ("getOpenFileName", "getSaveFileName"):
        monkeypatch.setattr(QFileDialog, name, staticmethod(lambda *a, **k: ("", "")))
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", staticmethod(lambda *a, **k: ""))
    monkeypatch.setattr(QDesktopServices, "openUrl", staticmethod(lambda *a, **k: False))
    window.resize(1280, 860)
    return window


class Monkey:
    def __init__(
        self, seed: int, window: Any, qtbot: Any, loop: Any, exceptions: list[Any]
    ) -> None:
        self.seed, self.window, self.qtbot, self.loop = seed, window, qtbot, loop
        self.exceptions = exceptions  # raised in Qt's slots and virtual methods (pytest-qt)
        self.rng = random.Random(seed)
        self.step = 0
        self.log: list[str] = []  # the steps taken, printed when a check fails
        self.run_lengths: dict[str, set[int]] = {}
        self.checked: Counter[str] = Counter()  # what the checks found to check, for the log
        self.errors: list[str] = []
        # (the run's task, the last value shown): the task held, so no later run reuses its id
        self.progress: tuple[Any, int] = (None, 0)
        loop.set_exception_handler(lambda _loop, context: self.errors.append(str(context)))

    def fail(self, what: str) -> None:
        raise AssertionError(
            f"monkey seed {self.seed}, step {self.step}: {what}\n"
            f"steps: {'; '.join(self.log[-12:])}\n"
            f"replay: WORKBENCH_MONKEY_SEED={self.seed} pytest tests/test_gui_monkey.py"
        )

    # ---- actions ----

    def pump(self, seconds: float) -> None:
        """A presenter's pause: the app runs (its loop and Qt events) for `seconds`."""
        self.loop.run_until_complete(asyncio.sleep(seconds))

    def visible(self, kinds: tuple[type, ...]) -> list[QWidget]:
        found = [
            w
            for w in self.window.findChildren(QWidget)
            if isinstance(w, kinds) and w.isVisible() and w.isEnabled() and w.width() > 0
        ]
        return sorted(found, key=lambda w: (w.metaObject().className(), w.objectName(),
                                            w.mapTo(self.window, QPoint(0, 0)).y(),
                                            w.mapTo(self.window, QPoint(0, 0)).x()))  # fmt: skip

    def click_widget(self) -> str:
        widgets = self.visible((QAbstractButton, QComboBox, QAbstractSpinBox, QAbstractSlider,
                                QTabBar, QLineEdit))  # fmt: skip
        if not widgets:
            return "click: nothing"
        widget = self.rng.choice(widgets)
        rect = widget.rect()
        pos = QPoint(self.rng.randrange(max(1, rect.width())),
                     self.rng.randrange(max(1, rect.height())))  # fmt: skip
        self.qtbot.mouseClick(widget, Qt.MouseButton.LeftButton, pos=pos)
        name = widget.objectName() or widget.accessibleName()
        return f"click {widget.metaObject().className()} {name!r}"

    def wheel(self) -> str:
        win = self.window
        at = QPoint(self.rng.randrange(win.width()), self.rng.randrange(win.height()))
        target = win.childAt(at) or win
        local = QPointF(target.mapFrom(win, at))
        notches = self.rng.choice([-3, -1, 1, 2])
        event = QWheelEvent(local, QPointF(target.mapToGlobal(local)), QPoint(0, 0),
                            QPoint(0, -120 * notches), Qt.MouseButton.NoButton,
                            Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase,
                            False)  # fmt: skip
        QApplication.sendEvent(target, event)
        return f"wheel {notches} over {target.metaObject().className()}"

    def key(self) -> str:
        target = QApplication.focusWidget() or self.window
        if self.rng.random() < 0.2:
            key, modifier = self.rng.choice(SHORTCUTS)
        else:
            key, modifier = self.rng.choice(KEYS), Qt.KeyboardModifier.NoModifier
        self.qtbot.keyClick(target, key, modifier)
        return f"key {key.name} on {target.metaObject().className()}"

    def resize(self) -> str:
        size = QSize(self.rng.randrange(1024, SCREEN.width() + 1),
                     self.rng.randrange(700, SCREEN.height() - 40))  # fmt: skip
        if self.rng.random() < 0.3:
            size = QSize(1024, 700)
        self.window.resize(size)
        return f"resize {size.width()}x{size.height()}"

    def tab(self) -> str:
        tabs = self.window.tabs
        index = self.rng.randrange(tabs.count())
        bar = tabs.tabBar()
        self.qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(index).center())
        return f"tab {index}"

    def theme(self) -> str:
        menus = self.window.menus
        key = self.rng.choice(list(menus.theme_actions))
        click_actions(self.qtbot, self.window, menus.view_menu.menuAction(),
                      menus.theme_menu.menuAction(), menus.theme_actions[key])  # fmt: skip
        return f"theme {key}"

    def language(self) -> str:
        menus = self.window.menus
        key = self.rng.choice(list(menus.language_actions))
        click_actions(self.qtbot, self.window, menus.view_menu.menuAction(),
                      menus.language_menu.menuAction(), menus.language_actions[key])  # fmt: skip
        return f"language {key}"

    def run(self) -> str:
        win = self.window
        if win.session.running:
            return "run: already running"
        prompt = self.rng.choice([1024, 4096, 16384])
        win.prompt.set_tokens(prompt)
        self.qtbot.mouseClick(win.toolbar.widgetForAction(win.run_action),
                              Qt.MouseButton.LeftButton)  # fmt: skip
        return f"run all at {prompt}"

    def sweep(self) -> str:
        win, view = self.window, self.window.sweep_view
        if win.session.running:
            return "sweep: already running"
        wanted = set(self.rng.sample([1024, 2048, 4096], 2))
        for n, box in view.length_boxes.items():
            if box.isChecked() != (n in wanted):
                box.setChecked(n in wanted)
        view.repeats.setValue(1)
        view.concurrency.setText(self.rng.choice(["1", "1,4"]))
        win.tabs.setCurrentWidget(view)
        self.qtbot.mouseClick(view.run_button, Qt.MouseButton.LeftButton)
        return f"sweep {sorted(wanted)}"

    def stop(self) -> str:
        win = self.window
        self.qtbot.mouseClick(win.toolbar.widgetForAction(win.stop_action),
                              Qt.MouseButton.LeftButton)  # fmt: skip
        return "stop all"

    def replay(self) -> str:
        win, history = self.window, self.window.history_view
        if win.session.running or history.table.rowCount() == 0:
            return "replay: nothing"
        win.tabs.setCurrentWidget(history)
        history.table.selectRow(self.rng.randrange(history.table.rowCount()))
        history.speed.setValue(history.speed.maximum())
        self.qtbot.mouseClick(history.replay_button, Qt.MouseButton.LeftButton)
        return "replay"

    def open_results(self) -> str:
        history = self.window.history_view
        if history.table.rowCount() == 0:
            return "open: nothing"
        self.window.tabs.setCurrentWidget(history)
        history.table.selectRow(self.rng.randrange(history.table.rowCount()))
        self.qtbot.mouseClick(history.open_button, Qt.MouseButton.LeftButton)
        return "open results"

    def import_file(self) -> str:
        history = self.window.history_view
        if history.import_task is not None and not history.import_task.done():
            return "import: busy"
        self.window.tabs.setCurrentWidget(history)
        self.qtbot.mouseClick(history.import_button, Qt.MouseButton.LeftButton)
        dialog = history.import_dialog
        self.qtbot.waitUntil(dialog.isVisible, timeout=5000)
        dialog.setDirectory(str(VLLM_FILE.parent))
        dialog.findChild(QLineEdit, "fileNameEdit").setText(VLLM_FILE.name)
        self.qtbot.waitUntil(lambda: dialog.selectedFiles() == [str(VLLM_FILE)], timeout=5000)
        dialog.accept()
        self.loop.run_until_complete(asyncio.wait_for(history.import_task, 60))
        return "import vllm"

    def wait(self) -> str:
        seconds = self.rng.choice([0.05, 0.1, 0.3, 0.6])
        self.pump(seconds)
        return f"wait {seconds}"

    # ---- checks ----

    def check(self, did: str) -> None:
        self.pump(0.01)  # the step's posted events and callbacks land
        if self.errors or self.exceptions:
            self.fail(f"after {did}: {(self.errors or self.exceptions)[0]}")
        self.fits_screen(did)
        self.panes_match_headers(did)
        self.progress_forward(did)
        self.colours_apart(did)

    def fits_screen(self, did: str) -> None:
        win = self.window
        room = win.screen().availableGeometry()
        if not room.contains(win.frameGeometry()):
            self.fail(f"after {did}: the window {win.frameGeometry()} leaves the screen {room}")
        low = win.minimumSize()
        if low.width() > room.width() or low.height() > room.height():
            self.fail(f"after {did}: minimum size {low} is larger than the screen {room}")

    def panes_match_headers(self, did: str) -> None:
        win = self.window
        replaying = not win.replay_banner.isHidden()
        for i, (widget, pane) in enumerate(
            zip(win.pane_set.widgets[: len(win.pane_set.keys)], win.session.panes, strict=False)
        ):
            result = pane.result
            if result is None or pane.state == PaneState.REFUSED:
                continue
            self.checked["pane figures"] += 1
            # the header: the model picker, and the protocol box (its chip when not chat)
            provider, model, _ = split_pane_key(widget.picker.currentData() or "")
            shown = (provider, model, widget.protocol.currentData() or "chat")
            measured = (result.provider, result.model, result.protocol)
            if shown != measured:
                self.fail(f"after {did}: pane {i + 1} shows {measured} under {shown}")
            # a replay of several prompt lengths (a sweep's) has no one prompt for the header
            if replaying and len(self.lengths(result.run_id)) > 1:
                continue
            if result.prompt_tokens_target != win.prompt.tokens():
                self.fail(
                    f"after {did}: pane {i + 1} shows a {result.prompt_tokens_target}-token "
                    f"request under a {win.prompt.tokens()}-token prompt"
                )

    def lengths(self, run_id: str) -> set[int]:
        """The prompt lengths of a recorded run, as the history holds it."""
        if run_id not in self.run_lengths:
            rows = self.window.session.records.load_run(run_id)
            measured = [r for r in rows if r.phase == "measured"]
            self.run_lengths[run_id] = {r.prompt_tokens_target for r in measured}
        return self.run_lengths[run_id]

    def progress_forward(self, did: str) -> None:
        win = self.window
        if not win.session.running:
            return
        run, value = win.session._task, win.progress_bar.value()
        if value < 0:
            return  # not shown yet this run
        self.checked["progress"] += 1
        if run is self.progress[0] and value < self.progress[1]:
            self.fail(f"after {did}: progress went back from {self.progress[1]} to {value}")
        self.progress = (run, value)

    def colours_apart(self, did: str) -> None:
        win = self.window
        seen: dict[str, str] = {}
        if win.tabs.currentWidget() is win.compare:
            self.checked["compare colours"] += len(win.plots._curves)
            for curve in win.plots._curves:
                colour = curve.opts["pen"].color().name()
                if seen.setdefault(colour, curve.name()) != curve.name():
                    self.fail(f"after {did}: {curve.name()} and {seen[colour]} share {colour}")
        if win.tabs.currentWidget() is win.sweep_view:
            legend = win.sweep_view.legend.text()
            pairs = re.findall(r"color:(#[0-9a-fA-F]{6})[^>]*>■</span> ([^<]+)", legend)
            self.checked["sweep colours"] += len(pairs)
            by_colour: dict[str, set[str]] = {}
            for colour, model in pairs:
                by_colour.setdefault(colour.lower(), set()).add(model.strip())
            shared = {c: m for c, m in by_colour.items() if len(m) > 1}
            if shared:
                self.fail(f"after {did}: Sweep models share a colour: {shared}")

    # ---- the walk ----

    def walk(self, steps: int) -> None:
        actions: list[tuple[Callable[[], str], int]] = [
            (self.click_widget, 6), (self.wheel, 5), (self.key, 4), (self.resize, 2),
            (self.tab, 3), (self.theme, 1), (self.language, 1), (self.run, 3), (self.sweep, 1),
            (self.stop, 1), (self.replay, 1), (self.open_results, 1), (self.import_file, 1),
            (self.wait, 4),
        ]  # fmt: skip
        choices = [a for a, weight in actions for _ in range(weight)]
        for self.step in range(1, steps + 1):
            action = self.rng.choice(choices)
            did = action()
            self.log.append(did)
            self.check(did)
        self.stop()  # the last run ends, and ends well
        deadline = time.monotonic() + 60
        while self.window.session.running and time.monotonic() < deadline:
            self.pump(0.05)
        self.check("the end")


@pytest.mark.parametrize("seed", SEEDS)
def test_the_monkey_finds_every_figure_under_its_label(window, qtbot, loop, seed) -> None:
    with qtbot.captureExceptions() as exceptions:
        monkey = Monkey(seed, window, qtbot, loop, exceptions)
        try:
            monkey.walk(STEPS)
        finally:
            print(f"monkey seed {seed}: {'; '.join(monkey.log)}", file=sys.stderr)
            print(f"monkey seed {seed} checked: {dict(monkey.checked)}", file=sys.stderr)
    assert not exceptions, f"monkey seed {seed}: {exceptions[0]}"
