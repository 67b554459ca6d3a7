"""Colours never collide on screen (issue 25, item 9): a model keeps its colour across sessions,
no two models shown together share one, and the Kernels tab colours its attention variants by
the same rule. The real window on the built-in provider, clicked as a presenter does."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt

from tests.support.gui_driver import (
    click_run,
    click_tab,
    opened_window,
    run_sweep,
    set_panes,
)
from workbench.ui import colors
from workbench.ui.compare_controller import LOCAL_PROVIDER

FOUR = ["sim-70b-mha", "sim-70b-gqa", "sim-70b-mla", "sim-70b-gla"]


def _remembered() -> dict[str, str]:
    path = Path(os.environ["WORKBENCH_DATA_DIR"]) / colors.FILENAME
    return json.loads(path.read_text(encoding="utf-8"))


def _seen_before(pairs: dict[str, str]) -> None:
    """model_colors.json as earlier sessions left it."""
    folder = Path(os.environ["WORKBENCH_DATA_DIR"])
    folder.mkdir(parents=True, exist_ok=True)
    (folder / colors.FILENAME).write_text(json.dumps(pairs), encoding="utf-8")
    colors._by_dir.clear()


def _shown(win: Any) -> dict[str, str]:
    """model -> colour as the panes' top borders, their curves and their bars show it."""
    out = {}
    bars = [str(b) for b in win.plots._bars[0].opts["brushes"]]
    for i, (widget, pane) in enumerate(zip(win.pane_set.widgets, win.session.panes, strict=True)):
        pen = win.plots._curves[i].opts["pen"].color().name()
        assert widget.color in widget.styleSheet() and pen == bars[i] == widget.color
        out[pane.target.model] = widget.color
    return out


def test_thirteen_and_more_models_seen_never_share_a_colour_among_those_shown_together(
    tmp_path,
) -> None:
    remembered = colors.ModelColors(tmp_path / colors.FILENAME)
    seen = [f"model-{i}" for i in range(45)]
    for name in seen:  # each alone, as earlier sessions showed them
        remembered.color("p", name)
    assert len(set(remembered.colors([("p", m) for m in seen[:32]]))) == 32
    for start in range(0, 45, 3):  # any eight shown together, past the palette's 32 too
        together = [("p", seen[(start + k * 5) % 45]) for k in range(8)]
        assert len(set(remembered.colors(together))) == 8, together
    again = colors.ModelColors(tmp_path / colors.FILENAME)  # a new session, same data dir
    assert [again.color("p", m) for m in seen] == [remembered.color("p", m) for m in seen]


def test_four_panes_that_share_a_remembered_colour_are_shown_in_four_and_keep_them(
    qapp, loop, tmp_path, qtbot
) -> None:
    # two pairs that earlier sessions left alike: the purple, and one of today's palette
    _seen_before(
        {
            f"{LOCAL_PROVIDER}|sim-70b-mha": colors.PALETTE[0],
            f"{LOCAL_PROVIDER}|sim-70b-gqa": colors.PALETTE[0],
            f"{LOCAL_PROVIDER}|sim-70b-mla": "#7f3c8d",
            f"{LOCAL_PROVIDER}|sim-70b-gla": "#7f3c8d",
        }
    )
    with opened_window(loop, tmp_path) as win:
        set_panes(win, FOUR)
        click_run(win, qtbot, loop)
        first = _shown(win)
        assert len(set(first.values())) == 4
        assert first["sim-70b-mha"] == colors.PALETTE[0]  # kept: only the clash was reassigned
        assert set(first.values()) <= set(colors.PALETTE)
        click_tab(win, qtbot, win.summary_view)
        assert win.summary_view.document.colors == first
    colors._by_dir.clear()  # a restart: a new window reads the data dir afresh
    with opened_window(loop, tmp_path) as again:
        set_panes(again, list(reversed(FOUR)))  # another order, the same colours
        click_run(again, qtbot, loop)
        assert _shown(again) == first
    remembered = {k.partition("|")[2]: v for k, v in _remembered().items()}
    assert {m: remembered[m] for m in FOUR} == first


def test_a_sweep_of_models_with_a_shared_colour_draws_each_in_its_own(
    qapp, loop, tmp_path, qtbot
) -> None:
    _seen_before({f"{LOCAL_PROVIDER}|{m}": colors.PALETTE[3] for m in FOUR})
    with opened_window(loop, tmp_path) as win:
        set_panes(win, FOUR)
        assert run_sweep(win, qtbot, loop, lengths=(1024,)).status == "finished"
        win.sweep_view.flush()
        legend = win.sweep_view.legend.text()
        drawn = {m: colors.model_color(LOCAL_PROVIDER, m) for m in FOUR}
        assert len(set(drawn.values())) == 4
        for model, color in drawn.items():
            assert f"color:{color}; font-size:16px'>■</span> {model}" in legend


def test_the_kernels_tab_colours_each_variant_by_the_models_rule(qapp, loop, qtbot) -> None:
    from workbench.ui.kernels_view import KernelsView

    view = KernelsView()
    view.resize(1400, 900)
    view.show()
    try:
        qtbot.mouseClick(view.csv_row.preset_button, Qt.MouseButton.LeftButton)
        view.redraw()
        pens = {
            item.name(): item.opts["pen"].color().name()
            for item in view.latency_plot.plotItem.listDataItems()
            if not item.name().endswith("roofline")
        }
        assert len(pens) == 8
        assert len(set(pens.values())) == 8  # eight variants on one chart, eight colours
        for variant, color in pens.items():
            assert color == colors.variant_colors([variant])[0]
        bars = next(i for i in view.kv_plot.plotItem.items if type(i).__name__ == "BarGraphItem")
        names = [name for _x, name in view.kv_plot.getAxis("bottom")._tickLevels[0]]
        brushes = [b.color().name() for b in bars.opts["brushes"]]
        assert brushes == colors.variant_colors(names)
    finally:
        loop.run_until_complete(asyncio.wait_for(view.aclose(), 15))
        view.close()
        view.deleteLater()


def test_a_variant_on_the_kernels_tab_is_the_colour_of_its_twin_in_compare() -> None:
    variants = ["MHA", "MQA", "GQA", "GTA", "MLA", "GLA", "NSA", "MOBA"]
    colours = colors.variant_colors(variants)
    assert len(set(colours)) == 8
    pairs = [(LOCAL_PROVIDER, f"sim-70b-{v.lower()}") for v in variants]
    assert colors.model_colors(pairs) == colours
