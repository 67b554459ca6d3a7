"""The Results table's "per model and prompt length" view exports the rows it shows, and each
view keeps its own sort arrow (issue 25, item 12). The real window after a real sweep on the
built-in provider; the header, the view picker and Export CSV clicked as a presenter does."""

from __future__ import annotations

import csv
from typing import Any

from PySide6.QtCore import QPoint, Qt, QTimer
from PySide6.QtWidgets import QApplication, QFileDialog, QLineEdit

from tests.support.gui_driver import click_action, click_tab, run_sweep
from workbench.ui.results_view import AGGREGATE_COLUMNS


def _click_header(qtbot: Any, view: Any, name: str) -> None:
    header = view.table.horizontalHeader()
    columns = view.table.model().columns
    x = header.sectionViewportPosition(columns.index(name)) + 5
    qtbot.mouseClick(header.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(x, 5))


def _pick_view(qtbot: Any, view: Any, key: Any) -> None:
    view.view_mode.setFocus()
    qtbot.keyClick(view.view_mode, key)


def _export_from_toolbar(window: Any, qtbot: Any, out: Any) -> None:
    def type_name_and_save() -> None:  # the user types a file name in the dialog, then Save
        dialog = QApplication.activeModalWidget()
        if isinstance(dialog, QFileDialog):
            poll.stop()
            dialog.findChild(QLineEdit, "fileNameEdit").setText(str(out))
            dialog.accept()

    poll = QTimer()
    poll.timeout.connect(type_name_and_save)
    poll.start(50)
    click_action(window, qtbot, window.export_action)
    poll.stop()


def test_export_in_the_per_model_view_writes_the_rows_shown_and_each_view_keeps_its_sort(
    window, qtbot, loop, tmp_path
) -> None:
    assert run_sweep(window, qtbot, loop, lengths=(1024, 4096), repeats=2).status == "finished"
    view = window.results_view
    click_tab(window, qtbot, view)
    header = view.table.horizontalHeader()
    requests = view.table.model()
    _click_header(qtbot, view, "ttft_ms")
    ttft_at = requests.columns.index("ttft_ms")
    assert header.sortIndicatorSection() == ttft_at

    _pick_view(qtbot, view, Qt.Key.Key_Down)  # per model and prompt length
    aggregate = view.table.model()
    qtbot.waitUntil(lambda: aggregate.rowCount() == 4, timeout=10000)
    assert aggregate.columns == list(AGGREGATE_COLUMNS)
    assert header.sortIndicatorSection() == -1  # no arrow over whatever sits at ttft_ms' place
    shown = [
        [aggregate.index(r, c).data() for c in range(aggregate.columnCount())] for r in range(4)
    ]
    assert [(row[0], row[2]) for row in shown] == [
        ("sim-deepseek-v3", "1024"),
        ("sim-llama-3-70b", "1024"),
        ("sim-deepseek-v3", "4096"),
        ("sim-llama-3-70b", "4096"),
    ]  # as summarised: shortest prompt first
    _click_header(qtbot, view, "decode_tps p50")
    decode_at = aggregate.columns.index("decode_tps p50")
    assert header.sortIndicatorSection() == decode_at
    shown = [
        [aggregate.index(r, c).data() for c in range(aggregate.columnCount())] for r in range(4)
    ]

    out = tmp_path / "per-model.csv"
    _export_from_toolbar(window, qtbot, out)
    with out.open(encoding="utf-8", newline="") as handle:
        written = list(csv.reader(handle))
    assert written[0] == list(AGGREGATE_COLUMNS)
    assert written[1:] == shown  # the 4 rows shown, in their order; not the 8 + 2 requests
    assert "Wrote 4 rows" in window.statusBar().currentMessage()

    _pick_view(qtbot, view, Qt.Key.Key_Up)  # back to per request: its own arrow
    assert view.table.model() is requests
    assert header.sortIndicatorSection() == ttft_at
    ttfts = [float(requests.index(r, ttft_at).data() or 0) for r in range(requests.rowCount())]
    ascending = header.sortIndicatorOrder() == Qt.SortOrder.AscendingOrder
    assert ttfts == sorted(ttfts, reverse=not ascending)
