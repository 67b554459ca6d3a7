"""What the main window's parts (window_panes.py, window_late.py, window_state.py,
window_export.py, menus.py, capacity_tab.py) need of the window: its widgets, its session and
a few of its methods, as a Protocol. They are typed against it, not against MainWindow, so that
main_window.py imports them and none of them imports main_window.py (no import cycle,
tests/test_import_cycles.py). MainWindow is the one class that has all of it."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from PySide6.QtCore import QByteArray, QSettings
    from PySide6.QtGui import QAction, QIcon
    from PySide6.QtWidgets import QComboBox, QLabel, QMenuBar, QSpinBox, QStatusBar

    from workbench.ui.compare_controller import CompareController
    from workbench.ui.compare_tab import CompareTab
    from workbench.ui.history_view import HistoryView
    from workbench.ui.kernels_view import KernelsView
    from workbench.ui.live_plots import LivePlots
    from workbench.ui.pane_widget import PaneWidget
    from workbench.ui.prompt_slider import PromptPanel
    from workbench.ui.provider_panel import ProviderPanel
    from workbench.ui.reserved_tabs import ReservedTabs
    from workbench.ui.results_view import ResultsView
    from workbench.ui.shown_runs import ShownRuns
    from workbench.ui.sweep_view import SweepView
    from workbench.ui.theme import Theme


class WindowHost(Protocol):
    """The main window as its parts see it."""

    session: CompareController
    settings: QSettings
    theme: Theme
    choices: list[tuple[str, str]]
    pane_keys: list[str]
    pane_widgets: list[PaneWidget]
    compare: CompareTab
    prompt: PromptPanel
    replay_banner: QLabel
    preset: QComboBox
    pane_count: QSpinBox
    mode: QComboBox
    export_action: QAction
    export_chart_action: QAction
    reserved_tabs: ReservedTabs
    results_view: ResultsView
    history_view: HistoryView
    sweep_view: SweepView
    shown_runs: ShownRuns
    provider_panel: ProviderPanel
    kernels_view: KernelsView

    @property
    def plots(self) -> LivePlots: ...

    # its own methods, each defined by MainWindow or one of its parts
    def retranslate(self) -> None: ...
    def set_choices(self, choices: Sequence[tuple[str, str]]) -> None: ...
    def set_panes(self, keys: Sequence[str]) -> None: ...
    def export_csv(self, path: str | Path) -> int: ...
    def export_charts(self, folder: str | Path, suffix: str = ".png") -> list[Path]: ...
    def _lay_out_panes(self, keys: Sequence[str]) -> None: ...
    def _set_plot_panes(self, keys: Sequence[str]) -> None: ...
    def _on_choose(self, index: int, key: str) -> None: ...
    def _refresh_context(self) -> None: ...
    def _run_sweep(self, lengths: list[int], repeats: int, levels: list[int]) -> None: ...
    def _paint(self) -> None: ...
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
