"""What the functions and objects that build and serve the main window (window_late.py,
window_state.py, menus.py, capacity_tab.py) need of it: its widgets, its session, the objects it
owns (its panes: window_panes.py) and a few of its methods, as a Protocol. They are typed
against it, not against MainWindow, so that main_window.py imports them and none of them imports
main_window.py (no import cycle, tests/test_import_cycles.py). MainWindow is the one class that
has all of it; none of them is mixed into it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from PySide6.QtCore import QByteArray, QSettings
    from PySide6.QtGui import QAction, QIcon
    from PySide6.QtWidgets import QComboBox, QMenuBar, QStatusBar

    from workbench.ui.capacity_view import CapacityView
    from workbench.ui.compare_controller import CompareController
    from workbench.ui.compare_tab import CompareTab
    from workbench.ui.history_view import HistoryView
    from workbench.ui.kernels_view import KernelsView
    from workbench.ui.prompt_slider import PromptPanel
    from workbench.ui.provider_panel import ProviderPanel
    from workbench.ui.reserved_tabs import ReservedTabs
    from workbench.ui.sweep_view import SweepView
    from workbench.ui.theme import Theme
    from workbench.ui.window_panes import PaneSet


class WindowHost(Protocol):
    """The main window as its parts see it."""

    session: CompareController
    settings: QSettings
    theme: Theme
    pane_set: PaneSet
    compare: CompareTab
    prompt: PromptPanel
    preset: QComboBox
    mode: QComboBox
    export_action: QAction
    export_chart_action: QAction
    reserved_tabs: ReservedTabs
    history_view: HistoryView
    sweep_view: SweepView
    capacity_view: CapacityView
    provider_panel: ProviderPanel
    kernels_view: KernelsView

    # its own methods
    def retranslate(self) -> None: ...
    def run_sweep(self, lengths: list[int], repeats: int, levels: list[int]) -> None: ...
    def paint(self) -> None: ...
    def build_run_tabs(self) -> None: ...

    # QMainWindow's, as they use them
    def tr(self, text: str) -> str: ...
    def statusBar(self) -> QStatusBar: ...
    def menuBar(self) -> QMenuBar: ...
    def windowIcon(self) -> QIcon: ...
    def close(self) -> bool: ...
    def saveState(self, version: int = 0) -> QByteArray: ...
    def saveGeometry(self) -> QByteArray: ...
    def restoreState(self, state: QByteArray | bytes, version: int = 0) -> bool: ...
    def restoreGeometry(self, geometry: QByteArray | bytes) -> bool: ...
