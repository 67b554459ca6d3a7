"""The summary page without a window, for `workbench summary` (a QGuiApplication is enough)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from PySide6.QtGui import QGuiApplication

from workbench.core.foundation.results import RequestResult
from workbench.core.history.run_facts import RunFacts
from workbench.core.history.summary import build_report
from workbench.ui.summary_page import SummaryDocument, render_pdf, render_png
from workbench.ui.translators import install_translators


def write_summary(
    results: Sequence[RequestResult],
    kind: str,
    path: Path,
    paper: str = "A4",
    baseline: str | None = None,
    order: Sequence[str] = (),
    language: str | None = None,
    runs: Sequence[RunFacts] = (),
) -> int:
    """Write the run's summary as PDF or PNG (by suffix); returns the page count."""
    render = {".pdf": render_pdf, ".png": render_png}.get(path.suffix.lower())
    if render is None:
        raise ValueError(f"{path.name}: the summary is written as .pdf or .png")
    app = QGuiApplication.instance() or QGuiApplication(["workbench"])
    install_translators(app, language)
    path.parent.mkdir(parents=True, exist_ok=True)
    report = build_report(results, kind=kind, order=order, runs=runs)
    document = SummaryDocument(report, baseline or (report.models[0] if report.models else None))
    return render(document, str(path), paper)
