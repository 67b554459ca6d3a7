"""Summary, replay, sweep, history and export in the real window, clicked as a presenter would
(issue 12). The built-in provider runs in its own process on 127.0.0.1; the history is a real
SQLite file; PDFs are read back in plain Python (tests/support/pdf_text.py).
"""

from __future__ import annotations

import csv
import math
from typing import Any

import pytest
from PySide6.QtCore import QPoint, QSettings, Qt
from PySide6.QtGui import QColor, QImage

from tests.support.gui_driver import (
    click_run,
    click_tab,
    opened_window,
    run_for,
    run_sweep,
    set_panes,
)
from tests.support.pdf_text import read_pdf
from workbench.core.history.run_history import RunStore
from workbench.core.history.summary import build_report
from workbench.ui.compare_controller import CompareController
from workbench.ui.main_window import MainWindow
from workbench.ui.summary_page import MARGIN, PAGE_WIDTH, SummaryDocument, page_height
from workbench.ui.window_late import add_kernels_tab


def _click(qtbot: Any, button: Any) -> None:
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


# ---- 3. the summary is a page a stakeholder can read alone -----------------------------------


def test_summary_names_models_titles_charts_and_gives_a_failed_models_reason(
    window, qtbot, loop, tmp_path
) -> None:
    set_panes(window, ["sim-70b-mla", "sim-70b-gqa+500"])
    click_run(window, qtbot, loop)
    click_tab(window, qtbot, window.summary_view)
    document = window.summary_view.document
    texts = document.texts()
    assert texts[0] == "Model comparison: sim-70b-mla vs sim-70b-gqa+500"
    assert "prompt length 4K tokens" in texts[1] and texts[2].startswith(
        "Endpoint: local (127.0.0.1:"
    )
    for title in ("Time to first token", "TTFT (ms)", "Decode speed", "decode (tokens/s)", "model"):
        assert title in texts
    # one order everywhere: the panes', in the legend, the charts and the table
    assert document.report.models == ("sim-70b-mla", "sim-70b-gqa+500")
    assert [b.label for b in document._bars("ttft_ms")] == list(document.report.models)
    assert [r.cell.model for r in document.report.rows] == list(document.report.models)
    failed = document._bars("ttft_ms")[1]
    assert failed.value is None and failed.failure == "failed: server_error"
    reason = next(t for t in texts if t.startswith("Failed: server_error"))
    assert "500" in reason
    assert any(t.startswith("sim-70b-gqa+500 failed at 4K: 1 of 1 requests") for t in texts)
    # the app shows whole pages at once, never a squashed first render
    canvas = window.summary_view.canvas
    scale = canvas.scale(canvas.width())
    assert canvas.height() >= page_height(canvas.paper) * scale
    assert scale * PAGE_WIDTH >= 560
    for paper, size in (("A4", (595.0, 842.0)), ("Letter", (612.0, 792.0))):
        out = window.summary_view.export(tmp_path / f"s-{paper}.pdf", paper)
        pdf = read_pdf(out)
        assert len(pdf.pages) == len(document.pages(paper)) == 1
        assert pdf.media_boxes == [size]
        assert "Model comparison: sim-70b-mla vs sim-70b-gqa+500" in pdf.text
        assert "failed: server_error" in pdf.text and "Time to first token" in pdf.text
    png = QImage(str(window.summary_view.export(tmp_path / "s.png", "A4")))
    assert png.width() == 1600 and abs(png.height() - page_height("A4") * 1.6) <= 1


def test_a_long_summary_flows_onto_pages_that_hold_every_block_at_a4_and_letter(
    qapp, tmp_path
) -> None:
    from workbench.core.foundation.results import RequestResult

    models = [f"very-long-model-name-number-{i}-with-a-suffix-{'x' * 20}" for i in range(8)]
    results = [
        RequestResult(
            model=m, provider="p", base_url="http://127.0.0.1:9/v1", run_id="r",
            prompt_tokens_target=n, t_send=0, t_first_token=10**8, t_last_token=2 * 10**8,
            t_done=2 * 10**8, completion_tokens=10, prompt_tokens=n, started_at=1.7e9,
        )
        for m in models
        for n in (1024, 4096, 16384, 32768, 65536)
    ]  # fmt: skip
    document = SummaryDocument(build_report(results), models[0])
    for paper in ("A4", "Letter"):
        pages = document.pages(paper)
        assert len(pages) >= 2  # 40 table rows do not fit one page
        bottom = page_height(paper) - MARGIN
        for page in pages:
            for block, y in page:
                assert MARGIN <= y and y + block.height <= bottom, (paper, block.texts[:1])
        for page in pages:  # every page with table rows shows the table's header
            blocks = [b for b, _y in page]
            if any(b.repeat_header for b in blocks):
                assert any(b.table_header for b in blocks)
        out = tmp_path / f"long-{paper}.pdf"
        from workbench.ui.summary_page import render_pdf

        assert render_pdf(document, str(out), paper) == len(pages)
        text = read_pdf(out).text
        assert all(m in text for m in models)  # a title this long wraps; nothing is cut
        assert f"page {len(pages)} of {len(pages)}" in text


def test_pdf_reader_reads_back_a_stream_whose_compressed_data_ends_in_a_carriage_return(
    qapp, tmp_path
) -> None:
    """About 1 PDF in 100 has a Flate stream whose last byte is CR (0x0D): a reader that cuts
    the stream at "\\r?\\nendstream" instead of its /Length loses that byte (zlib: truncated
    stream). Qt's engine writes such files; they must read back whole."""
    from PySide6.QtCore import QPointF
    from PySide6.QtGui import QPainter, QPdfWriter

    written = []
    for ms in range(1000):  # bounded: such a file comes within the first few dozen
        out = tmp_path / f"ttft-{ms}.pdf"
        writer, painter = QPdfWriter(str(out)), QPainter()
        assert painter.begin(writer)
        painter.drawText(QPointF(100, 100), f"TTFT {ms} ms")
        painter.end()
        written.append((ms, out))
        if b"\r\nendstream" in out.read_bytes():  # Qt ends data with LF: this CR is data
            break
    else:
        pytest.fail("no PDF with a stream ending in CR was written: nothing was checked")
    for ms, out in written:
        assert read_pdf(out).text == f"TTFT {ms} ms"


# ---- 4, 9. replay and the sweep keep their own data -----------------------------------------


def test_sweep_shows_only_sweeps_and_replay_is_labelled_never_doubles_rows(
    window, qtbot, loop
) -> None:
    view = window.sweep_view
    assert run_sweep(window, qtbot, loop, repeats=3).status == "finished"
    swept = list(view.results)
    assert len(swept) == 2 * 2 * 3
    assert all(p.plotItem.legend is None for p in view.plots.values())  # never over the lines
    assert "sim-llama-3-70b" in view.legend.text() and "p10–p90" in view.legend.text()

    def bands() -> list[Any]:
        # those in the plots now: a redraw still due (rows summarised in slices, the timer)
        # replaces them, and a band taken out before it was drawn stays an empty path
        return [
            i
            for p in view.plots.values()
            for i in p.plotItem.items
            if type(i).__name__ == "FillBetweenItem"
        ]

    spread = [pt for pts in view.series("ttft_ms").values() for pt in pts if pt[2] != pt[3]]
    assert len(bands()) >= 1 and spread
    # drawn, not an empty path (a band's path is built when the loop gets round to it, and the
    # view redraws only while it is shown: look at it as the user does)
    click_tab(window, qtbot, view)
    qtbot.waitUntil(
        lambda: bool(bands()) and all(band.boundingRect().height() > 0 for band in bands()),
        timeout=10_000,
    )
    for plot in view.plots.values():
        assert plot.viewRange()[1][0] == 0  # from zero

    click_tab(window, qtbot, window.tabs.widget(0))
    final = click_run(window, qtbot, loop)  # a comparison does not land in the sweep
    assert view.results == swept
    # 12 swept, 2 compared, and the sweep's calibration row per model (calibrated once)
    assert len(window.results_view.results) == 12 + 2 + 2
    phases = [r.phase for r in window.results_view.results]
    assert phases.count("calibration") == 2 and phases.count("measured") == 14

    click_tab(window, qtbot, window.history_view)
    table = window.history_view.table
    assert table.item(0, 1).text() == "comparison"
    _click(qtbot, window.history_view.replay_button)
    assert window.replay_banner.isVisible()
    assert window.replay_banner.text().startswith(f"Replay of run {final.run_id[:8]}, recorded")
    replayed = run_for(loop, window.session._task)
    assert replayed.run_id == f"replay-of-{final.run_id}"
    assert len(window.results_view.results) == 2  # the recorded rows, once
    assert view.results == swept  # the sweep's data stays
    for widget, pane in zip(window.pane_set.widgets, window.session.panes, strict=True):
        recorded = (pane.result.t_done - pane.result.t_send) / 1e9
        assert widget.figures.text("elapsed") == f"{recorded:,.1f} s"  # the original, positive
    click_tab(window, qtbot, window.summary_view)
    assert [r.cell.n for r in window.summary_view.document.report.rows] == [1, 1]
    assert window.eta.text() == f"Run replay of {final.run_id[:8]}: finished"


def test_a_sweep_of_one_length_shows_its_spread_as_a_bar(window, qtbot, loop) -> None:
    """A band over one x has no width (pyqtgraph drew nothing); the spread is then a bar
    from p10 to p90 at that length, and the legend says so."""
    view = window.sweep_view
    assert run_sweep(window, qtbot, loop, lengths=(1024,), repeats=3).status == "finished"
    view.flush()
    spread = {m for m, pts in view.series("ttft_ms").items() if pts[0][2] != pts[0][3]}
    assert spread  # three repeats' TTFTs differ
    items = view.plots["ttft_ms"].plotItem.items
    bars = [i for i in items if type(i).__name__ == "ErrorBarItem"]
    assert len(bars) == len(spread)
    assert all(bar.boundingRect().height() > 0 for bar in bars)
    assert not [i for i in items if type(i).__name__ == "FillBetweenItem"]
    assert "bar: p10–p90 over 3 repeat(s)" in view.legend.text()


# ---- 10. history and export -----------------------------------------------------------------


def test_history_is_filled_at_start_with_prompt_length_and_calibration_apart(
    qapp, loop, tmp_path, qtbot
) -> None:
    with opened_window(loop, tmp_path) as first:
        click_run(first, qtbot, loop)
    session = CompareController(store=RunStore(tmp_path / "history.sqlite3"), time_scale=0.05)
    second = MainWindow(session, QSettings(str(tmp_path / "g2.ini"), QSettings.Format.IniFormat))
    try:
        table = second.history_view.table  # no Refresh clicked
        assert table.rowCount() == 1
        headers = [table.horizontalHeaderItem(c).text() for c in range(table.columnCount())]
        row = {h: table.item(0, c).text() for c, h in enumerate(headers)}
        assert row["prompt"] == "4K" and row["status"] == "finished"
        assert row["models"] == "sim-llama-3-70b, sim-deepseek-v3"
        assert row["measured"] == "2" and row["failed"] == "0"
        assert row["calibration / warm-up"] == "2 / 0"  # one per model, not measurements
    finally:
        second.close()
        loop.run_until_complete(session.close())


def _arrow_points_up(header: Any, section: int) -> bool:
    """Read the sort arrow's shape from the header's pixels: wider at the bottom = up."""
    image = header.grab().toImage()
    left = header.sectionViewportPosition(section)
    right = left + header.sectionSize(section)
    widths = []
    for y in range(image.height()):
        dark = sum(
            1 for x in range(right - 24, right) if QColor(image.pixel(x, y)).lightness() < 120
        )
        if dark:
            widths.append(dark)
    assert len(widths) >= 2, "no sort arrow drawn"
    return widths[-1] > widths[0]


def test_sorting_arrow_matches_the_order_and_export_writes_every_shown_row(
    window, qtbot, loop, tmp_path
) -> None:
    click_run(window, qtbot, loop)
    set_panes(window, ["sim-70b-gqa", "sim-70b-mla"])
    click_run(window, qtbot, loop)
    view = window.results_view
    click_tab(window, qtbot, view)
    header, model = view.table.horizontalHeader(), view.table.model()
    column = view.requests_model.columns.index("model")
    position = header.sectionViewportPosition(column) + 5
    qtbot.mouseClick(header.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(position, 5))
    shown = [model.index(r, column).data() for r in range(model.rowCount())]
    ascending = header.sortIndicatorOrder() == Qt.SortOrder.AscendingOrder
    # two runs of two models, each model with its calibration row: eight rows
    assert shown == sorted(shown, reverse=not ascending) and len(shown) == 8
    assert _arrow_points_up(header, column) == ascending
    qtbot.mouseClick(header.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(position, 5))
    shown = [model.index(r, column).data() for r in range(model.rowCount())]
    ascending = header.sortIndicatorOrder() == Qt.SortOrder.AscendingOrder
    assert shown == sorted(shown, reverse=not ascending)
    assert _arrow_points_up(header, column) == ascending
    out = tmp_path / "all.csv"
    assert window.exports.export_csv(out) == 8  # both runs, as the table shows them
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert [r["model"] for r in rows] == shown
    assert len({r["run_id"] for r in rows}) == 2


# ---- 11. small windows ----------------------------------------------------------------------


def test_window_at_1024x700_keeps_panes_and_charts_readable(window, qapp, loop) -> None:
    from workbench.ui.kernels_view import KernelsView

    kernels = KernelsView()
    add_kernels_tab(window, kernels)
    hint = window.minimumSizeHint()
    assert hint.width() <= 1024 and hint.height() <= 700
    window.resize(1024, 700)
    qapp.processEvents()
    assert window.width() == 1024 and window.height() == 700
    for plot in (window.plots.tokens_plot, window.plots.ttft_plot, window.plots.decode_plot):
        assert plot.height() >= 180 and plot.width() >= 200
    for widget in window.pane_set.widgets:
        assert widget.text.height() >= 60 and widget.figures.height() > 0
    window.tabs.setCurrentWidget(kernels)
    qapp.processEvents()
    kernels.set_kv_lens([1024, 4096, 16384])
    kernels.redraw()
    qapp.processEvents()
    for chart in kernels.charts:  # each chart inside its column, its title inside the chart
        widget = chart.widget
        assert widget.geometry().right() < widget.parentWidget().width(), chart.name
        title = widget.plotItem.titleLabel.item.boundingRect().width()
        assert title <= widget.width(), chart.name
    right = kernels.latency_plot.viewRange()[0][1]
    assert right >= math.log10(16384) + 0.05  # the last length and its label inside the frame
    loop.run_until_complete(kernels.aclose())
