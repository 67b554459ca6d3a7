"""Labels a presenter reads stay readable (issue 25, item 13): bar names never run into each
other, and a token count is written one way in the pane, the slider and History."""

from __future__ import annotations

import itertools

from PySide6.QtCore import Qt
from PySide6.QtGui import QImage, QPainter

from tests.support.gui_driver import click_run, click_tab, set_panes
from workbench.core.foundation.token_counts import tokens_label


def drawn_names(axis) -> list[tuple[float, float, str]]:
    """(left, right, text) of each name the axis draws, from pyqtgraph's own draw specs."""
    image = QImage(10, 10, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    try:
        if axis.style["tickFont"]:
            painter.setFont(axis.style["tickFont"])
        _, _, texts = axis.generateDrawSpecs(painter)
    finally:
        painter.end()
    return sorted((r.left(), r.right(), s) for r, _, s in texts)


def test_four_long_model_names_under_the_bars_are_all_drawn_apart(window, qtbot) -> None:
    set_panes(window, ["sim-llama-3-70b", "sim-deepseek-v3", "sim-70b-mla+error", "sim-70b-gqa"])
    window.resize(1024, 700)
    qtbot.waitUntil(lambda: window.width() <= 1100)
    for plot in (window.plots.ttft_plot, window.plots.decode_plot):
        axis = plot.getAxis("bottom")
        # the axis grows to its names' height at its first drawing; then every name is drawn
        qtbot.waitUntil(lambda a=axis: len(drawn_names(a)) == 4, timeout=3000)  # none dropped
        names = drawn_names(axis)
        for (_, right, a), (left, _, b) in itertools.pairwise(names):
            assert right <= left, f"{a!r} runs into {b!r}"
        shown = [n.replace("\n", "") for _, _, n in names]
        assert [n[:4] for n in shown] == ["llam", "deep", "70b-", "70b-"], shown  # each begins
        assert shown[0] == "llama-3-70b" and shown[2] == "70b-mla+error", shown


def test_a_fitted_prompt_length_reads_as_a_whole_count_in_the_pane(window, qtbot) -> None:
    set_panes(window, ["sim-llama-3-70b", "sim-deepseek-v3"])  # 128K windows
    window.prompt.max_tokens.setValue(256)
    window.prompt.slider.setFocus()
    qtbot.keyClick(window.prompt.slider, Qt.Key.Key_End)
    for _ in range(3):
        qtbot.keyClick(window.prompt.slider, Qt.Key.Key_Left)  # 128K, over the window
    pane = window.pane_set.widgets[0]
    qtbot.mouseClick(pane.clamp_button, Qt.MouseButton.LeftButton)
    tokens = window.prompt.tokens()
    assert tokens % 1024  # not a round step: a Fit leaves an odd count
    assert pane.kv.text().endswith(f" at {tokens:,}"), pane.kv.text()  # was "at 126.471K"
    assert window.prompt.value_label.text() == f"{tokens:,} tokens"


def test_token_counts_have_one_written_form() -> None:
    assert [tokens_label(n) for n in (512, 1772, 4096, 129_506, 1 << 20)] == [
        "512", "1,772", "4K", "129,506", "1M",
    ]  # fmt: skip


def test_every_results_column_shows_its_whole_name(window, qtbot, loop) -> None:
    assert click_run(window, qtbot, loop).status == "finished"
    view = window.results_view
    click_tab(window, qtbot, view)
    for mode in range(view.view_mode.count()):
        view.view_mode.setCurrentIndex(mode)
        header = view.table.horizontalHeader()
        for i in range(header.count()):
            name = view.table.model().headerData(i, Qt.Orientation.Horizontal)
            # Qt's own measure of the header's text, margins and sort arrow
            assert header.sectionSize(i) >= header.sectionSizeHint(i), name


def test_a_preset_change_leaves_no_old_axis_behind_the_next_run(window, qtbot, loop) -> None:
    window.prompt.max_tokens.setValue(256)
    assert click_run(window, qtbot, loop).status == "finished"
    window.preset.setFocus()
    qtbot.keyClick(window.preset, Qt.Key.Key_Down)  # the attention-only preset
    assert window.plots.tokens_plot.viewRange()[1][1] <= 10  # the 256-token axis went too
    assert window.plots.ttft_plot.viewRange()[1][1] <= 1  # and the old bars' TTFT axis
    window.prompt.max_tokens.setValue(32)
    assert click_run(window, qtbot, loop).status == "finished"
    (_, x1), (_, y1) = window.plots.tokens_plot.viewRange()
    last_t = max(p.curve_t[-1] for p in window.session.panes if p.curve_t)
    most = max(p.curve_tokens[-1] for p in window.session.panes if p.curve_tokens)
    assert x1 <= 1.35 * last_t, (x1, last_t)  # the curves fill the x axis
    assert y1 <= 32 * 1.1 and most <= y1, (y1, most)  # and this run's 32 tokens, not 256
