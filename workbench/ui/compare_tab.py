"""The Compare tab's layout: the prompt slider, the grid of panes above the live charts, and
the banner that marks a replay. The main window fills the panes and drives the charts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QLabel,
    QScrollArea,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from workbench.ui.prompt_slider import PromptPanel
from workbench.ui.run_toolbar import MAX_PANES

if TYPE_CHECKING:
    from workbench.ui.live_plots import LivePlots

MIN_CHART_HEIGHT = 190
MIN_PANES_HEIGHT = 150


class CompareTab(QWidget):
    """Prompt on top, panes (scrolling) over charts in a splitter, a replay banner between."""

    def __init__(self) -> None:
        super().__init__()
        self.prompt = PromptPanel()
        self.panes_host = QWidget()
        self.panes_grid = QGridLayout(self.panes_host)
        self.panes_grid.setContentsMargins(0, 0, 0, 0)
        panes_scroll = QScrollArea()
        panes_scroll.setWidget(self.panes_host)
        panes_scroll.setWidgetResizable(True)
        panes_scroll.setFrameShape(QFrame.Shape.NoFrame)
        panes_scroll.setMinimumHeight(MIN_PANES_HEIGHT)
        self.plots: LivePlots | None = None  # made by build_charts (pyqtgraph takes ~0.4 s)
        charts_place = QWidget()  # the charts' room until then
        charts_place.setMinimumHeight(MIN_CHART_HEIGHT)
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.addWidget(panes_scroll)
        self.splitter.addWidget(charts_place)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        self.splitter.setChildrenCollapsible(False)
        self.replay_banner = QLabel()
        self.replay_banner.setObjectName("replayBanner")
        self.replay_banner.setWordWrap(True)
        self.replay_banner.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.prompt)
        layout.addWidget(self.replay_banner)
        layout.addWidget(self.splitter, 1)

    def build_charts(self) -> LivePlots:
        """The live charts, in the room kept for them below the panes."""
        from workbench.ui.live_plots import LivePlots

        self.plots = LivePlots()
        self.plots.setMinimumHeight(MIN_CHART_HEIGHT)
        sizes = self.splitter.sizes()
        self.splitter.replaceWidget(1, self.plots).deleteLater()
        self.splitter.setSizes(sizes)
        return self.plots

    def place_panes(self, widgets: Sequence[QWidget], count: int) -> None:
        """Show the first `count` panes, two columns up to four panes, then four columns."""
        for widget in widgets[count:]:
            self.panes_grid.removeWidget(widget)
            widget.hide()
        columns = 2 if count <= 4 else 4
        for row in range(MAX_PANES // 2):  # rows share the height: no pane hides another
            self.panes_grid.setRowStretch(row, 1 if row * columns < count else 0)
        for i, widget in enumerate(widgets[:count]):
            self.panes_grid.addWidget(widget, i // columns, i % columns)
            widget.show()

    def split_panes_over_charts(self) -> None:
        """Panes first, charts below: never a 50 px strip of chart (called once, when shown)."""
        total = max(self.splitter.height(), MIN_PANES_HEIGHT + MIN_CHART_HEIGHT)
        self.splitter.setSizes([round(total * 0.6), round(total * 0.4)])
