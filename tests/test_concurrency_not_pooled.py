"""A sweep over concurrency levels never pools them (issue 25, item 5): the Summary and the
Results table's "per model and prompt length" view give each level its own row and say which
level a figure is at. A real sweep on the built-in provider, clicked as a presenter does."""

from __future__ import annotations

from PySide6.QtCore import Qt

from tests.support.gui_driver import click_tab, run_sweep, set_panes
from workbench.core.history.summary import summarize
from workbench.ui.summary_page import _plain


def test_a_concurrency_sweep_keeps_each_level_apart_in_the_summary_and_results(
    window, qtbot, loop
) -> None:
    set_panes(window, ["sim-70b-gqa", "sim-70b-mla"])
    final = run_sweep(window, qtbot, loop, lengths=(4096,), levels="1,4,16")
    assert final.status == "finished"
    measured = window.results
    per_level = {n: sum(1 for r in measured if r.concurrency == n) for n in (1, 4, 16)}
    assert all(per_level.values()) and sum(per_level.values()) == len(measured)

    click_tab(window, qtbot, window.summary_view)
    document = window.summary_view.document
    rows = [(r.cell.model, r.cell.concurrency, r.cell.n) for r in document.report.rows]
    want = [
        (m, n, sum(1 for r in measured if r.model == m and r.concurrency == n and r.ok))
        for m in ("sim-70b-gqa", "sim-70b-mla")
        for n in (1, 4, 16)
    ]
    assert rows == want
    texts = document.texts()
    assert any(
        t.startswith("Concurrency 1, 4, 16: medians over up to")
        and "charts show concurrency 16" in t
        for t in texts
    )
    assert any("At 4K and concurrency 16 the MLA model" in t for t in texts)
    # every conclusion names its level: the first ("the first token came soonest from…")
    # pooled the three levels and said none
    conclusions = [_plain(html) for html in document.conclusions]
    assert conclusions and all("and concurrency" in t for t in conclusions), conclusions
    assert any("At 4K and concurrency 1 the MLA model" in t for t in texts)
    header = document.columns
    assert [name for name, _w in header][:4] == ["model", "attention", "prompt", "concurrency"]
    bars = document._bars("decode_tps")  # the charts: the level they say, never a pool
    high = {
        r.cell.model: r.cell.median("decode_tps")
        for r in document.report.rows
        if r.cell.concurrency == 16
    }
    assert [b.value for b in bars] == [high["sim-70b-gqa"], high["sim-70b-mla"]]

    view = window.results_view
    click_tab(window, qtbot, view)
    view.view_mode.setFocus()
    qtbot.keyClick(view.view_mode, Qt.Key.Key_Down)  # "Per model and prompt length"
    assert view.view_mode.currentData() == "aggregate"
    model = view.table.model()
    qtbot.waitUntil(lambda: model.rowCount() == 6, timeout=10000)
    columns = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    shown = {
        (
            model.index(r, columns.index("model")).data(),
            model.index(r, columns.index("concurrency")).data(),
            model.index(r, columns.index("n")).data(),
        )
        for r in range(6)
    }
    assert shown == {(m, str(n), str(k)) for m, n, k in want}
    cells = summarize(measured)
    assert sorted(c.concurrency for c in cells) == [1, 1, 4, 4, 16, 16]
