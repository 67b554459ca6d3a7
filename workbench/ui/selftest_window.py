"""The Qt half of `workbench --self-test`: a real MainWindow streaming two panes offscreen.

Called by `workbench.selftest.main` after the resource checks; raises SelfTestError (with the
reason) on any failure, including an exception that escapes into the event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtCore import QLibraryInfo, QSettings, QTranslator, qVersion
from PySide6.QtWidgets import QApplication

from workbench.core.history.run_history import RunStore
from workbench.core.run.plan import LOCAL_PROVIDER
from workbench.selftest_error import SelfTestError
from workbench.ui.compare_controller import CompareController
from workbench.ui.main_window import PRESETS, MainWindow
from workbench.ui.panes_model import PaneState
from workbench.ui.window_late import reserve_tabs

PRESET = "real"  # the default comparison: a GQA and an MLA model, two panes


@dataclass
class Outcome:
    csv_path: Path
    models: list[str]
    notes: list[str] = field(default_factory=list)


def run(tmp: Path, args) -> Outcome:
    import qasync

    app = QApplication.instance() or QApplication(sys.argv[:1])
    assert isinstance(app, QApplication)
    app.setQuitOnLastWindowClosed(False)
    notes = [f"Qt {qVersion()}, platform {app.platformName()}"]
    notes.append(_check_qt_translation(app))
    errors: list[str] = []

    async def guarded() -> Outcome:
        loop = asyncio.get_running_loop()

        def on_error(_loop, context) -> None:
            exc = context.get("exception")
            errors.append(f"{context.get('message', 'error')}: {exc!r}" if exc else str(context))

        loop.set_exception_handler(on_error)
        return await asyncio.wait_for(_stream(tmp, args, notes), args.timeout)

    try:
        outcome = qasync.run(guarded())
    except TimeoutError as exc:
        raise SelfTestError(f"the comparison did not finish within {args.timeout:.0f} s") from exc
    if errors:
        raise SelfTestError("error in the event loop: " + "; ".join(errors))
    return outcome


def _check_qt_translation(app: QApplication) -> str:
    """Qt's own Chinese strings (dialog buttons), which the app loads for zh_CN."""
    folder = QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)
    translator = QTranslator(app)
    if not translator.load("qtbase_zh_CN", folder):
        raise SelfTestError(f"Qt translation qtbase_zh_CN.qm not found in {folder}")
    return "qtbase_zh_CN.qm loads"


async def _stream(tmp: Path, args, notes: list[str]) -> Outcome:
    store = RunStore(tmp / "history.sqlite3")
    session = CompareController(store=store, time_scale=args.time_scale)
    settings = QSettings(str(tmp / "gui.ini"), QSettings.Format.IniFormat)
    window = MainWindow(session, settings)
    try:
        url = await session.start_local_provider()
        notes.append(f"built-in provider at {url}")
        window.pane_set.set_choices(
            [(f"{LOCAL_PROVIDER}|{m.id}", m.id) for m in session.catalog.simulated()]
        )
        window.apply_preset(PRESET)
        window.prompt.set_tokens(args.prompt_tokens)
        window.prompt.max_tokens.setValue(args.max_tokens)
        window.show()
        task = window.run_all()
        if task is None:
            raise SelfTestError("the window refused to start the comparison")
        final = await task
        if final is None or final.status != "finished":
            raise SelfTestError(
                f"the comparison ended as {getattr(final, 'status', 'cancelled')!r}"
            )
        models = list(PRESETS[PRESET])
        for i, pane in enumerate(session.panes):
            if pane.state != PaneState.DONE:
                raise SelfTestError(f"pane {i + 1} ended in state {pane.state.name}")
            if not "".join(pane.text_parts).strip():
                raise SelfTestError(f"pane {i + 1} received no text")
        painted = [len(w.text.toPlainText()) for w in window.pane_set.widgets[: len(models)]]
        if min(painted, default=0) == 0:
            raise SelfTestError("a pane widget shows no streamed text")
        notes.append(
            f"streamed {len(models)} panes ({', '.join(models)}), {args.max_tokens} tokens each"
        )
        exports = window.exports
        charts = exports.export_charts(tmp / "charts", ".svg")
        charts += exports.export_charts(tmp / "charts", ".png")
        if not charts or any(p.stat().st_size == 0 for p in charts):
            raise SelfTestError("chart export wrote no files")
        notes.append(f"exported {len(charts)} chart files (SVG and PNG)")
        csv_path = tmp / "selftest.csv"
        written = window.exports.export_csv(csv_path)
        shown = window.results_view.shown_results()  # calibration rows are shown too
        measured = sum(1 for r in shown if r.phase == "measured")
        if written != len(shown) or measured != len(models):
            raise SelfTestError(
                f"CSV export wrote {written} rows ({measured} measured), expected {len(shown)} "
                f"({len(models)} measured)"
            )
        await _every_tab_and_pdf(window, session, tmp, notes)
        return Outcome(csv_path=csv_path, models=models, notes=notes)
    finally:
        window.close()
        with contextlib.suppress(Exception):
            await session.close()


async def _every_tab_and_pdf(
    window: MainWindow, session: CompareController, tmp: Path, notes: list[str]
) -> None:
    """Every tab shown and painted (the Providers and Kernels tabs built as the app builds
    them), then the run's summary exported as PDF: what a trimmed bundle must still carry."""
    from workbench.ui.app import build_hidden_tabs

    reserve_tabs(window)
    kernels_view = build_hidden_tabs(window, session)
    try:
        titles = []
        for i in range(window.tabs.count()):
            window.tabs.setCurrentIndex(i)
            titles.append(window.tabs.tabText(i).replace("&", ""))
            if window.tabs.currentWidget().grab().isNull():
                raise SelfTestError(f"the {titles[-1]} tab did not paint")
        notes.append(f"painted every tab: {', '.join(titles)}")
        pdf = window.summary_view.export(tmp / "summary.pdf")
        if not pdf.read_bytes().startswith(b"%PDF") or pdf.stat().st_size < 10_000:
            raise SelfTestError(f"the summary PDF is not a PDF ({pdf.stat().st_size} bytes)")
        notes.append(f"summary exported as PDF ({pdf.stat().st_size // 1024} KB)")
    finally:
        await kernels_view.aclose()
