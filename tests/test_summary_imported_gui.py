"""In the real window, an imported run's History row and its Summary show the same median TTFT
(the file's own) and the same date (the file's), issue 26. History → Import… takes the real
guidellm 0.8.1 report and a vLLM detailed file; Open results shows a run; the Summary tab's
page is read back as the window paints it. The history is a real SQLite file."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLineEdit

from tests.support.gui_driver import click_tab, run_for
from workbench.ui.history_view import COLUMNS

DATA = Path(__file__).parent / "data"


def _import(window: Any, qtbot: Any, path: Path, loop: Any) -> None:
    """History → Import…, the file's name typed into the dialog, accepted; the import ends."""
    history = window.history_view
    click_tab(window, qtbot, history)
    qtbot.mouseClick(history.import_button, Qt.MouseButton.LeftButton)
    dialog = history.import_dialog
    qtbot.waitUntil(dialog.isVisible, timeout=5000)
    dialog.setDirectory(str(path.parent))
    dialog.findChild(QLineEdit, "fileNameEdit").setText(path.name)
    qtbot.waitUntil(lambda: dialog.selectedFiles() == [str(path)], timeout=5000)
    dialog.accept()
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=5000)
    run_for(loop, history.import_task)


def _rows(window: Any) -> list[dict[str, str]]:
    table = window.history_view.table
    return [
        {name: table.item(row, i).text() for i, name in enumerate(COLUMNS)}
        for row in range(table.rowCount())
    ]


def _open(window: Any, qtbot: Any, index: int) -> Any:
    """Select the History row, Open results, then the Summary tab: its page when built."""
    history = window.history_view
    click_tab(window, qtbot, history)
    history.table.selectRow(index)
    run_id = history.selected_run()
    qtbot.mouseClick(history.open_button, Qt.MouseButton.LeftButton)
    summary = window.summary_view
    click_tab(window, qtbot, summary)
    qtbot.waitUntil(
        lambda: summary.document is not None and summary.document.report.run_id == run_id,
        timeout=10000,
    )
    return summary.document


def _page_date(when: str) -> str:
    """The page's "2 December 2026, 00:40" of the History's "2026-12-02 00:40:56"."""
    stamp = datetime.strptime(when, "%Y-%m-%d %H:%M:%S")
    return f"{stamp.day} {stamp:%B %Y, %H:%M}"


def test_an_imported_runs_history_row_and_summary_show_the_same_median_ttft_and_date(
    window, qtbot, loop
) -> None:
    report = DATA / "peers/guidellm-0.8.1/benchmarks.json"
    benchmarks = json.loads(report.read_text())["benchmarks"]
    _import(window, qtbot, report, loop)
    rows = _rows(window)
    for benchmark in benchmarks:
        median = benchmark["metrics"]["time_to_first_token_ms"]["successful"]["median"]
        (index,) = [
            i for i, row in enumerate(rows) if row["file's TTFT median ms"] == f"{median:,.0f}"
        ]
        document = _open(window, qtbot, index)
        texts = document.texts()
        # the table's TTFT column, right after "ok / failed / stopped"
        assert texts[texts.index("12 / 0 / 0") + 1] == rows[index]["file's TTFT median ms"]
        assert document.subtitle()[0].startswith(_page_date(rows[index]["when"]) + " · ")


def test_a_vllm_file_is_dated_alike_in_the_history_and_the_summary(
    window, qtbot, loop, tmp_path
) -> None:
    detailed = json.loads((DATA / "results/vllm_save_detailed.json").read_text())
    path = tmp_path / "vllm-no-start-times.json"  # vLLM before 0.10 saved no send times
    path.write_text(json.dumps({k: v for k, v in detailed.items() if k != "start_times"}))
    _import(window, qtbot, path, loop)
    (row,) = _rows(window)
    assert row["when"] == "2026-11-20 10:15:00"  # the file's own "date"
    assert row["file's TTFT median ms"] == "140"  # its median_ttft_ms
    document = _open(window, qtbot, 0)
    assert document.subtitle()[0].startswith("20 November 2026, 10:15 · ")
