"""A 20,000-request vLLM result file through History → Import into the real main window (issue 16).

The file is imported as a user does it (`HistoryView.import_paths`, the path the Import dialog
takes) into a window on a real SQLite history; then the Sweep, Results, Summary and History tabs
are shown in turn until each holds the imported run. Reports the total time from the import's
start until every view is filled, the time after the store finished, the longest gap of a 15 ms
QTimer on the GUI thread (how long the window stood still), and where the time went: each phase
timed by wrapping the window's own methods (GUI thread) and the import's worker functions.

Goal: no GUI-thread gap over 100 ms, and the views filled within 2 s of the store's end.

    QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/import_fill.py
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import gc
import json
import os
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("QT_API", "pyside6")

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parent.parent / "tests"))  # the file's maker
import qasync
from large_results import large_vllm_file
from machine import RESULTS, machine_record, write_result
from PySide6.QtCore import QSettings, QTimer
from PySide6.QtWidgets import QApplication

import workbench.core.history.result_import as result_import
import workbench.ui.history_view as history_module
from workbench.core.history.run_history import RunStore
from workbench.ui.compare_controller import CompareController
from workbench.ui.main_window import MainWindow

GAP_GOAL_S = 0.100
FILL_GOAL_S = 2.0
BASELINE = "## Baseline"


class Phases:
    """Seconds spent in wrapped calls, by label and thread; the spans for locating a gap."""

    def __init__(self) -> None:
        self.spans: list[tuple[str, str, float, float]] = []  # (label, thread, start, seconds)

    def wrap(self, owner: Any, name: str, label: str) -> None:
        inner = getattr(owner, name)

        @functools.wraps(inner)
        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return inner(*args, **kwargs)
            finally:
                thread = (
                    "gui" if threading.current_thread() is threading.main_thread() else "worker"
                )
                self.spans.append((label, thread, start, time.perf_counter() - start))

        setattr(owner, name, timed)

    def watch_gc(self) -> Callable[[str, dict[str, Any]], None]:
        """Full collections as spans of their own (they stop every thread); returns the hook."""
        started: list[float] = []

        def on_gc(phase: str, info: dict[str, Any]) -> None:
            if phase == "start":
                started[:] = [time.perf_counter()]
            elif started and info.get("generation") == 2:
                thread = (
                    "gui" if threading.current_thread() is threading.main_thread() else "worker"
                )
                seconds = time.perf_counter() - started[0]
                self.spans.append(("full GC", thread, started[0], seconds))

        gc.callbacks.append(on_gc)
        return on_gc

    def gc_pauses(self, since: float) -> list[tuple[float, float, str]]:
        """(ms, at s, thread) of each full collection, longest first."""
        pauses = [(round(d * 1000), round(s - since, 2), th) for lb, th, s, d in self.spans
                  if lb == "full GC"]  # fmt: skip
        return sorted(pauses, reverse=True)

    def totals(self) -> dict[str, float]:
        out: dict[str, float] = {}
        for label, thread, _start, seconds in self.spans:
            key = f"{label} ({thread})"
            out[key] = round(out.get(key, 0.0) + seconds, 3)
        return out

    def inside(self, start: float, end: float) -> str:
        hits = [(lb, th, s, d) for lb, th, s, d in self.spans if s < end and s + d > start]
        return ", ".join(f"{lb} ({th}) {d * 1000:.0f} ms" for lb, th, _s, d in hits) or "-"


class GapProbe:
    """A 15 ms QTimer on the GUI thread: the longest time between two of its ticks."""

    def __init__(self) -> None:
        self.ticks: list[float] = []
        self.timer = QTimer()
        self.timer.setInterval(15)
        self.timer.timeout.connect(lambda: self.ticks.append(time.perf_counter()))

    def start(self) -> None:
        self.ticks = [time.perf_counter()]
        self.timer.start()

    def stop(self) -> None:
        self.timer.stop()
        self.ticks.append(time.perf_counter())

    def worst(self, count: int = 5) -> list[tuple[float, float, float]]:
        """(gap seconds, start, end) of the longest gaps, longest first."""
        gaps = [(b - a, a, b) for a, b in zip(self.ticks, self.ticks[1:], strict=False)]
        return sorted(gaps, reverse=True)[:count]


class StallSampler(threading.Thread):
    """--stacks: while the GUI thread's timer has not ticked for 100 ms, print where the GUI
    thread is (sampled every 50 ms): what a gap nothing wrapped accounts for is doing."""

    def __init__(self, probe: GapProbe) -> None:
        super().__init__(daemon=True)
        self.probe, self.running = probe, True

    def run(self) -> None:
        gui = threading.main_thread().ident
        while self.running:
            time.sleep(0.05)
            if self.probe.ticks and time.perf_counter() - self.probe.ticks[-1] > 0.1:
                frame = sys._current_frames().get(gui)
                lines = traceback.format_stack(frame, limit=6) if frame else []
                print("GUI thread stalled at:\n" + "".join(lines[-6:]))


def _instrument(window: MainWindow, phases: Phases) -> None:
    history = window.history_view
    phases.wrap(result_import, "read_files", "read file")
    phases.wrap(result_import, "store_files_at", "store rows")
    if hasattr(history_module, "store_and_load"):  # the rows read back on the worker thread
        phases.wrap(history_module, "store_and_load", "store and read back rows")
    phases.wrap(history, "_show_imported", "show imported (all)")
    phases.wrap(history, "refresh", "history list")
    phases.wrap(window.session, "load_run", "load rows from history")
    phases.wrap(window.session, "history", "history query")
    phases.wrap(window.results_view, "set_results", "results table")
    phases.wrap(window.sweep_view, "flush", "sweep chart")
    phases.wrap(window, "refresh_summary", "summary")
    optional = [  # the parts of the fill that newer code does apart (absent before the change)
        (window.results_view.requests_model, "_fill", "results rows formatted: sort"),
        (window.results_view.requests_model, "_resort", "results sort"),
        (window.summary_view, "set_report", "summary pages"),
        (window.shown_runs, "add_imported", "shown runs take the rows"),
        (window.sweep_view, "_redraw", "sweep chart items"),
        (window.sweep_view, "extend", "sweep takes the rows"),
        (window.results_view.requests_model, "set_results", "results model reset"),
    ]
    for owner, name, label in optional:
        if hasattr(owner, name):
            phases.wrap(owner, name, label)


def _table_filled(window: MainWindow, requests: int) -> bool:
    """Every row in the table, and sorted (a table that formats rows in slices sorts after)."""
    formatting = getattr(window.results_view.requests_model, "formatting", None)
    sorted_ = formatting is None or not formatting.pending
    return window.results_view.table.model().rowCount() == requests and sorted_


def _summarised(window: MainWindow) -> tuple[str, ...]:
    document = window.summary_view.document
    return () if document is None else document.report.models


async def _until(condition: Callable[[], bool], timeout: float = 120.0) -> None:
    deadline = time.perf_counter() + timeout
    while not condition():
        if time.perf_counter() > deadline:
            raise TimeoutError("a view was not filled in time")
        await asyncio.sleep(0.005)


async def _measure(args: argparse.Namespace, tmp: Path) -> dict[str, Any]:
    big = large_vllm_file(tmp / "big_vllm.json", args.requests)
    session = CompareController(store=RunStore(tmp / "history.sqlite3"))
    window = MainWindow(session, QSettings(str(tmp / "gui.ini"), QSettings.Format.IniFormat))
    window.resize(1600, 1000)
    window.show()
    # each tab shown once before the import: a tab's first show (layout, the charts' first
    # paint) costs the same with no rows at all, and is timed apart
    first_show = GapProbe()
    first_show.start()
    for tab in (window.sweep_view, window.results_view, window.summary_view):
        window.tabs.setCurrentWidget(tab)
        await asyncio.sleep(0.3)
    first_show.stop()
    phases, probe = Phases(), GapProbe()
    _instrument(window, phases)
    hook = phases.watch_gc()
    model = json.loads(big.read_text())["model_id"]
    history = window.history_view
    window.tabs.setCurrentWidget(history)
    await asyncio.sleep(0.05)
    probe.start()
    sampler = StallSampler(probe)
    if args.stacks:
        sampler.start()
    started = time.perf_counter()
    task = history.import_paths([str(big)])
    assert task is not None
    await task
    imported = time.perf_counter()
    stored = next(
        (s + d for lb, _t, s, d in phases.spans if lb == "store rows"), imported
    )  # the worker's store ended here
    filled: dict[str, float] = {}
    checks = [
        (window.sweep_view, lambda: model in window.sweep_view.legend.text()),
        (window.results_view, lambda: _table_filled(window, args.requests)),
        (window.summary_view, lambda: model in _summarised(window)),
        (history, lambda: history.table.rowCount() == 1),
    ]
    for tab, check in checks:
        window.tabs.setCurrentWidget(tab)
        await _until(check)
        await asyncio.sleep(0.02)  # its paint
        filled[type(tab).__name__] = round(time.perf_counter() - started, 3)
    done = time.perf_counter()
    await asyncio.sleep(0.1)
    probe.stop()
    sampler.running = False
    worst = probe.worst()
    gc.callbacks.remove(hook)
    window.close()
    await session.close()
    return {
        "requests": args.requests,
        "total_s": round(done - started, 3),
        "store_finished_s": round(stored - started, 3),
        "fill_after_store_s": round(done - stored, 3),
        "import_task_s": round(imported - started, 3),
        "longest_gui_gap_ms": round(worst[0][0] * 1000, 1),
        "first_show_of_the_tabs_before_import_longest_gap_ms": round(
            first_show.worst(1)[0][0] * 1000, 1
        ),
        "worst_gaps_ms_at_s": [(round(g * 1000), round(a - started, 2)) for g, a, _b in worst],
        "worst_gap_inside": phases.inside(worst[0][1], worst[0][2]),
        "tab_filled_at_s": filled,
        "phases_s": phases.totals(),
        "full_gc_ms_at_s": phases.gc_pauses(started)[:5],
    }


def _baseline_kept() -> str:
    """The "## Baseline" section of the recorded results (the figures before the change, with
    their machine and commit), kept when the benchmark is run again."""
    recorded = RESULTS / "import_fill.md"
    text = recorded.read_text() if recorded.exists() else ""
    at = text.find(BASELINE)
    return "" if at < 0 else "\n" + text[at:]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--requests", type=int, default=20_000)
    p.add_argument("--label", default="", help="a note for the record (before / after)")
    p.add_argument("--stacks", action="store_true", help="print the GUI thread's stack in gaps")
    p.add_argument("--quick", action="store_true", help="print only, record nothing")
    args = p.parse_args()
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setQuitOnLastWindowClosed(False)
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["WORKBENCH_DATA_DIR"] = tmp
        os.environ["WORKBENCH_CONFIG_DIR"] = tmp
        figures = qasync.run(_measure(args, Path(tmp)))
    lines = [f"- {k}: {v}" for k, v in figures.items()]
    ok = (
        figures["longest_gui_gap_ms"] < GAP_GOAL_S * 1000
        and figures["fill_after_store_s"] < FILL_GOAL_S
    )
    text = (
        (f"{args.label}\n\n" if args.label else "")
        + "\n".join(lines)
        + f"\n\nGoal: no GUI-thread gap over {GAP_GOAL_S * 1000:.0f} ms and the views filled "
        f"within {FILL_GOAL_S:.0f} s of the store's end: {'PASS' if ok else 'FAIL'}\n"
    )
    print(text)
    write_result(
        "import_fill",
        command=" ".join(["python", *sys.argv]),
        markdown=text + _baseline_kept(),
        data={"figures": figures, "machine": machine_record()},
        quick=args.quick,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
