"""The main window split by concern (issue 27): its panes are an object of their own that works
without a window, and no part of the window is mixed into it any more."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QMainWindow

from workbench.core.history.run_history import IN_MEMORY, RunStore
from workbench.core.run.plan import LOCAL_PROVIDER
from workbench.ui.compare_controller import CompareController
from workbench.ui.compare_tab import CompareTab
from workbench.ui.main_window import MainWindow
from workbench.ui.retranslate import Retranslating
from workbench.ui.run_toolbar import RunToolbar
from workbench.ui.window_panes import PaneSet

UI = Path(__file__).resolve().parent.parent / "workbench" / "ui"


def test_the_main_window_mixes_in_none_of_its_parts() -> None:
    assert MainWindow.__bases__ == (Retranslating, QMainWindow)
    mixins = []
    for path in sorted(UI.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                bases = {ast.unparse(b) for b in node.bases}
                if bases & {"_Base", "WindowHost", "MainWindow"}:
                    mixins.append(f"{path.name}: {node.name}")
    assert mixins == [], "a class typed as the window is mixed into it"


def test_the_panes_and_their_targets_work_without_a_window(qtbot: Any) -> None:
    session = CompareController(store=RunStore(IN_MEMORY))
    host = QMainWindow()
    qtbot.addWidget(host)
    compare, bar = CompareTab(), RunToolbar(host)
    panes = PaneSet(session, compare, bar.preset, bar.pane_count)
    keys = [f"{LOCAL_PROVIDER}|sim-70b-gqa", f"{LOCAL_PROVIDER}|sim-70b-mla"]
    panes.set_choices([(k, k) for k in keys])
    panes.set(keys)
    assert [p.target.model for p in session.panes if p.target] == ["sim-70b-gqa", "sim-70b-mla"]
    assert len(panes.widgets) == 2 and bar.pane_count.value() == 2
    bar.pane_count.setValue(3)  # the toolbar's spin box asks the panes for a third
    assert len(panes.keys) == 3 and len(session.panes) == 3
    assert bar.preset.currentData() == "custom"
    assert session.store is not None
    session.store.close()
