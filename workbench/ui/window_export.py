"""File > Export CSV and Export charts of the main window, an object the window owns: what the
Results table and the charts show, written as they show it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QFileDialog, QMainWindow

from workbench.core.history.csv_export import write_csv, write_table
from workbench.ui.shown_runs import ShownRuns

if TYPE_CHECKING:
    from workbench.ui.chart_export import ExportableChart
    from workbench.ui.results_view import ResultsView

translate = QCoreApplication.translate  # the window's texts, in its translation context


class WindowExport:
    """The window's exports; `charts` gives every chart shown, each ready to draw."""

    def __init__(
        self,
        window: QMainWindow,
        results_view: ResultsView,
        shown_runs: ShownRuns,
        charts: Callable[[], list[ExportableChart]],
    ) -> None:
        self.window = window
        self.results_view = results_view
        self.shown_runs = shown_runs
        self.charts = charts

    def export_csv(self, path: str | Path) -> int:
        """The rows the Results table shows, in its order: per request, every request of the
        runs it holds as the run history holds it; per model and prompt length, those rows
        as shown (their header and cells)."""
        view = self.results_view
        if view.view_mode.currentData() == "aggregate":
            return write_table(Path(path), *view.shown_table())
        shown = (r.request_id for r in view.shown_results())
        return write_csv(Path(path), self.shown_runs.in_order(shown))

    def export_charts(self, folder: str | Path, suffix: str = ".png") -> list[Path]:
        return [c.export(Path(folder) / f"{c.name}{suffix}") for c in self.charts()]

    def csv_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self.window, translate("MainWindow", "Export CSV"), "results.csv", "CSV (*.csv)"
        )
        if path:
            count = self.export_csv(path)
            self.window.statusBar().showMessage(
                translate("MainWindow", "Wrote %1 rows to %2")
                .replace("%1", str(count))
                .replace("%2", path),
                5000,
            )

    def charts_dialog(self) -> None:
        folder = QFileDialog.getExistingDirectory(
            self.window, translate("MainWindow", "Export charts to folder")
        )
        if folder:
            written = self.export_charts(folder, ".png") + self.export_charts(folder, ".svg")
            self.window.statusBar().showMessage(
                translate("MainWindow", "Wrote %1 chart files").replace("%1", str(len(written))),
                5000,
            )
