"""The Compare charts after a theme switch (issue 25, item 11): a failed bar's label takes the
new scheme's box, and the legend never covers a curve."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import QPointF

from tests.support.gui_driver import click_actions, click_run, set_panes


def theme(qtbot, window, key: str) -> None:
    menus = window.menus
    click_actions(qtbot, window, menus.view_menu.menuAction(), menus.theme_menu.menuAction(),
                  menus.theme_actions[key])  # fmt: skip
    assert menus.theme_actions[key].isChecked()


def failure_labels(plot: pg.PlotWidget) -> list[pg.TextItem]:
    return [i for i in plot.getPlotItem().items if isinstance(i, pg.TextItem)]


def test_after_dark_then_light_a_failed_bar_label_sits_on_a_light_box(window, qtbot, loop) -> None:
    set_panes(window, ["sim-70b-gqa+500", "sim-70b-mla"])
    click_run(window, qtbot, loop)
    theme(qtbot, window, "dark")
    theme(qtbot, window, "light")
    for plot in (window.plots.ttft_plot, window.plots.decode_plot):
        labels = failure_labels(plot)
        assert len(labels) == 1 and labels[0].textItem.toPlainText().startswith("failed:")
        assert labels[0].fill.color().lightness() > 200  # was the dark scheme's box
        assert labels[0].color.lightness() < 160  # its red text reads on it


@pytest.mark.parametrize("scheme", ["dark", "light"])
def test_the_legend_covers_no_point_of_any_curve(window, qtbot, loop, scheme) -> None:
    """The legend is placed for the axes the run ends on: placed when the first curve
    finished, the axes' later growth moved points under it (session 34's merged main). The
    window keeps the suite's 800x600, where the chart is small (about 340x180 px): a run whose
    timings leave no place clear of both curves may cover some, and only then."""
    theme(qtbot, window, scheme)
    # a long prompt and a short model beside one that prefills long: the fast curve reaches the
    # top early, along the chart's top left
    set_panes(window, ["sim-deepseek-v3", "sim-70b-mha"])
    window.prompt.set_tokens(32768)
    window.prompt.max_tokens.setValue(256)
    click_run(window, qtbot, loop)
    # the chart has drawn both finished curves, and the axes' layout has settled
    qtbot.waitUntil(lambda: all(window.plots._curves_done) and len(window.plots._curves_done) == 2)
    qtbot.wait(0)
    plot = window.plots.tokens_plot
    legend = plot.getPlotItem().legend
    box = legend.mapRectToScene(legend.boundingRect())
    view = plot.getPlotItem().vb
    points = [
        (curve.name(), view.mapViewToScene(QPointF(x, y)))
        for curve in window.plots._curves
        for x, y in zip(*curve.getData(), strict=True)
    ]  # fmt: skip
    hidden = [name for name, p in points if box.contains(p)]
    if hidden:  # only where no place of the legend's size in the chart is clear of the curves
        xs = np.array([p.x() for _n, p in points])
        ys = np.array([p.y() for _n, p in points])
        frame = view.sceneBoundingRect()
        # places 10 px inside the chart's edges, as the app keeps it; a place counts as clear
        # with 2 px to spare around it (the app moves the legend on a 2 px grid)
        w, h = box.width() + 4, box.height() + 4
        for left in np.arange(frame.left() + 8, frame.right() - 8 - w, 2.0):
            for top in np.arange(frame.top() + 8, frame.bottom() - 8 - h, 2.0):
                inside = (xs >= left) & (xs <= left + w) & (ys >= top) & (ys <= top + h)
                assert inside.any(), (
                    f"{len(hidden)} points of {sorted(set(hidden))} under the legend at "
                    f"{box.topLeft()}, while ({left}, {top}) is clear"
                )
