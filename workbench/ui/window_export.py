"""File > Export CSV and Export charts of the main window: what the Results table and the
charts show, written as they show it."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QFileDialog

from workbench.core.history.csv_export import write_csv, write_table

if TYPE_CHECKING:
    from workbench.ui.window_host import WindowHost

    _Base = WindowHost
else:
    _Base = object


class WindowExport(_Base):
    """Mixed into MainWindow; its texts are in the window's translation context."""

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
        charts = self.plots.charts + self.sweep_view.charts
        self.sweep_view.flush()
        return [c.export(Path(folder) / f"{c.name}{suffix}") for c in charts]

    def _export_csv_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self,
            QCoreApplication.translate("MainWindow", "Export CSV"),
            "results.csv",
            "CSV (*.csv)",
        )
        if path:
            count = self.export_csv(path)
            self.statusBar().showMessage(
                QCoreApplication.translate("MainWindow", "Wrote %1 rows to %2")
                .replace("%1", str(count))
                .replace("%2", path),
                5000,
            )

    def _export_charts_dialog(self) -> None:
        folder = QFileDialog.getExistingDirectory(
            self, QCoreApplication.translate("MainWindow", "Export charts to folder")
        )
        if folder:
            written = self.export_charts(folder, ".png") + self.export_charts(folder, ".svg")
            self.statusBar().showMessage(
                QCoreApplication.translate("MainWindow", "Wrote %1 chart files").replace(
                    "%1", str(len(written))
                ),
                5000,
            )
