"""The run history is the one source of rows (issue 15, step 5): the Results table, the Sweep
tab, the Summary and File > Export CSV show what the history holds, whether the run just ended,
was reopened from the History tab, or ran without a history file (kept in memory instead).
"""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path
from typing import Any

from PySide6.QtCore import QSettings, Qt

from tests.support.gui_driver import TIMEOUT, click_run, click_tab, make_window, run_for, set_panes
from workbench.core.foundation.results import RequestResult
from workbench.core.history.csv_export import write_csv
from workbench.core.history.run_history import RunStore, default_db_path
from workbench.ui.compare_controller import CompareController
from workbench.ui.history_view import RUN_ID_ROLE
from workbench.ui.main_window import MainWindow


def _rows_by_id(path: Path) -> dict[str, dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return {row["request_id"]: row for row in csv.DictReader(handle)}


def _history_csv(store: RunStore, run_id: str, path: Path) -> Path:
    """What the history holds for a run, written by the CSV writer (warm-ups are no rows)."""
    write_csv(path, [r for r in store.results(run_id) if r.phase != "warmup"])
    return path


def _open_from_history(window: MainWindow, qtbot: Any, run_id: str) -> None:
    click_tab(window, qtbot, window.history_view)
    window.history_view.refresh_button.click()
    table = window.history_view.table
    rows = range(table.rowCount())
    table.selectRow(next(r for r in rows if table.item(r, 0).data(RUN_ID_ROLE) == run_id))
    assert window.history_view.selected_run() == run_id
    qtbot.mouseClick(window.history_view.open_button, Qt.MouseButton.LeftButton)


def _close(window: MainWindow, loop: Any) -> None:
    window.close()
    loop.run_until_complete(window.session.close())


def test_export_after_a_run_writes_the_history_rows(qapp, loop, qtbot, tmp_path) -> None:
    window = make_window(loop, tmp_path)
    try:
        final = click_run(window, qtbot, loop)
        exported = tmp_path / "export.csv"
        assert (
            window.exports.export_csv(exported) == 4
        )  # two models: a calibration and a measured row
        store = window.session.store
        assert store is not None
        expected = _history_csv(store, final.run_id, tmp_path / "history.csv")
        assert _rows_by_id(exported) == _rows_by_id(expected)
        # the table shows the history's rows, and the summary reports the history's requests
        assert window.results_view.results == window.session.records.rows([final.run_id])
        click_tab(window, qtbot, window.summary_view)
        measured = [r for r in store.results(final.run_id) if r.phase == "measured"]
        assert sum(r.cell.n for r in window.summary_view.document.report.rows) == len(measured)
    finally:
        _close(window, loop)


def test_a_run_reopened_from_history_exports_the_same_file(qapp, loop, qtbot, tmp_path) -> None:
    first = make_window(loop, tmp_path)
    try:
        final = click_run(first, qtbot, loop)
        after_run = tmp_path / "after-run.csv"
        first.exports.export_csv(after_run)
    finally:
        _close(first, loop)
    # the app opened again on the same history, the run reopened from the History tab
    session = CompareController(store=RunStore(tmp_path / "history.sqlite3"), time_scale=0.05)
    second = MainWindow(session, QSettings(str(tmp_path / "g2.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(second)
    try:
        _open_from_history(second, qtbot, final.run_id)
        reopened = tmp_path / "reopened.csv"
        assert second.exports.export_csv(reopened) == 4
        assert reopened.read_bytes() == after_run.read_bytes()
    finally:
        _close(second, loop)


def test_a_run_without_a_history_file_still_lists_reopens_and_exports(
    qapp, loop, qtbot, tmp_path
) -> None:
    # as the app after the file failed to open
    session = CompareController(store=None, time_scale=0.05)
    window = MainWindow(session, QSettings(str(tmp_path / "g3.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(window)
    try:
        loop.run_until_complete(session.start_local_provider())
        set_panes(window, ["sim-70b-gqa", "sim-70b-mla"])
        window.prompt.set_tokens(4096)
        window.prompt.max_tokens.setValue(16)
        window.show()
        final = click_run(window, qtbot, loop)
        after_run = tmp_path / "after-run.csv"
        assert window.exports.export_csv(after_run) == 4
        _open_from_history(window, qtbot, final.run_id)
        reopened = tmp_path / "reopened.csv"
        assert window.exports.export_csv(reopened) == 4
        assert reopened.read_bytes() == after_run.read_bytes()
        assert not default_db_path().exists()  # nothing was written to a history file
    finally:
        _close(window, loop)


def test_the_sweep_tab_shows_the_history_rows_of_the_sweep(qapp, loop, qtbot, tmp_path) -> None:
    window = make_window(loop, tmp_path)
    try:
        set_panes(window, ["sim-70b-gqa", "sim-70b-mla"])
        window.prompt.max_tokens.setValue(16)
        view = window.sweep_view
        click_tab(window, qtbot, view)
        for n, box in view.length_boxes.items():
            box.setChecked(n in (1024, 4096))
        view.repeats.setValue(1)
        qtbot.mouseClick(view.run_button, Qt.MouseButton.LeftButton)
        final = run_for(loop, window.session._task, TIMEOUT)
        store = window.session.store
        assert store is not None and final.status == "finished"
        measured = [r for r in store.results(final.run_id) if r.phase == "measured"]
        assert len(measured) == 4 and view.results == measured
        assert sorted(view.series("ttft_ms")) == ["sim-70b-gqa", "sim-70b-mla"]
    finally:
        _close(window, loop)


class _CountingStore(RunStore):
    """The real history on a real file, counting the rows its read API hands back."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.rows_read = 0  # whole rows, as RequestResults
        self.ids_read = 0  # request ids only

    def results(self, run_id: str, skip: int = 0) -> list[RequestResult]:
        rows = super().results(run_id, skip)
        self.rows_read += len(rows)
        return rows

    def request_ids(self, run_id: str) -> list[str]:
        ids = super().request_ids(run_id)
        self.ids_read += len(ids)
        return ids


def _counting_window(loop: Any, tmp_path: Path) -> tuple[MainWindow, _CountingStore]:
    store = _CountingStore(tmp_path / "history.sqlite3")
    session = CompareController(store=store, time_scale=0.05)
    window = MainWindow(session, QSettings(str(tmp_path / "g4.ini"), QSettings.Format.IniFormat))
    loop.run_until_complete(session.start_local_provider())
    set_panes(window, ["sim-70b-gqa", "sim-70b-mla"])
    window.prompt.max_tokens.setValue(8)
    window.show()
    return window, store


def _run_sweep(window: MainWindow, qtbot: Any, loop: Any, repeats: int) -> Any:
    view = window.sweep_view
    click_tab(window, qtbot, view)
    for n, box in view.length_boxes.items():
        box.setChecked(n in (1024, 4096))
    view.repeats.setValue(repeats)
    qtbot.mouseClick(view.run_button, Qt.MouseButton.LeftButton)
    return run_for(loop, window.session._task, TIMEOUT)


def _assert_views_show_the_history(
    window: MainWindow, qtbot: Any, run_id: str, tmp_path: Path
) -> None:
    with RunStore(tmp_path / "history.sqlite3") as history:  # a reader of its own
        rows = [r for r in history.results(run_id) if r.phase != "warmup"]
        expected = _history_csv(history, run_id, tmp_path / "history.csv")
    assert window.results_view.results == rows
    measured = [r for r in rows if r.phase == "measured"]
    assert window.sweep_view.results == measured
    click_tab(window, qtbot, window.summary_view)
    assert sum(r.cell.n for r in window.summary_view.document.report.rows) == len(measured)
    exported = tmp_path / "export.csv"
    assert window.exports.export_csv(exported) == len(rows)
    assert _rows_by_id(exported) == _rows_by_id(expected)


def test_a_finished_run_reads_no_row_it_already_showed(qapp, loop, qtbot, tmp_path) -> None:
    window, store = _counting_window(loop, tmp_path)
    try:
        final = _run_sweep(window, qtbot, loop, repeats=3)
        assert final.status == "finished"
        click_tab(window, qtbot, window.summary_view)
        window.exports.export_csv(tmp_path / "first.csv")
        # 2 models x 2 lengths x 3 repeats, and each model's calibration: shown as recorded;
        # the run's end compared the ids and read no row again, nor did the summary or export
        assert len(final.results) >= 14
        assert store.rows_read == 0
        assert store.ids_read == len(store.request_ids(final.run_id))
        _assert_views_show_the_history(window, qtbot, final.run_id, tmp_path)
    finally:
        _close(window, loop)


_WRITE_A_ROW = """
import dataclasses, sys
from workbench.core.history.run_history import RunStore
with RunStore(sys.argv[1], recover=False) as store:
    row = store.results(sys.argv[2])[-1]
    store.record(dataclasses.replace(row, request_id=row.request_id + "-other"))
"""


def test_rows_another_process_wrote_are_read_at_the_runs_end(qapp, loop, qtbot, tmp_path) -> None:
    window, store = _counting_window(loop, tmp_path)
    written: list[str] = []

    def other_process_writes(result: RequestResult) -> None:
        if result.phase == "measured" and not written:  # once, in the middle of the run
            written.append(result.run_id)
            argv = [sys.executable, "-c", _WRITE_A_ROW, str(store.path), result.run_id]
            subprocess.run(argv, check=True, timeout=60)

    window.session.request_finished.connect(other_process_writes)
    try:
        final = _run_sweep(window, qtbot, loop, repeats=2)
        total = len(store.request_ids(final.run_id))
        assert written and total == len(final.results) + 1
        # read from the other process's row on (it and the rows recorded after it), not all
        assert 1 <= store.rows_read < total
        shown = {r.request_id for r in window.results_view.results}
        assert any(i.endswith("-other") for i in shown)
        _assert_views_show_the_history(window, qtbot, final.run_id, tmp_path)
    finally:
        _close(window, loop)
