"""The Kernels tab: decode-attention kernel sweeps through the kernel worker, next to the roofline.

torch and Triton never load here: the sweep runs in `python -m kernels_bridge.worker`, started
lazily (first Run or Connect), or reached over TCP, by `kernels_bridge.client.run_controller`,
which runs the worker's life cycle and events for this view and `workbench kernels` alike; the
view is its listener and keeps the controls, charts, table and exports.
The analytic parts (KV bytes per token, roofline latency, peak bandwidth) need no worker. Every
failure of the worker shows up in the view's message line; none reaches the app as a crash.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QFileDialog,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from kernels_bridge.analytic import HardwareProfile
from kernels_bridge.bench_rows import analytic_row
from kernels_bridge.client.connection import KernelClient
from kernels_bridge.client.jobs import build_run, target_device, write_rows_csv
from kernels_bridge.client.launcher import WorkerError
from kernels_bridge.client.run_controller import KernelRunController, WorkerChoice, WorkerCrash
from kernels_bridge.protocol import Hello, ResultRow, Run
from workbench.ui.kernel_charts import KernelCharts, measured_series
from workbench.ui.kernel_choices import SweepChoices
from workbench.ui.kernel_csv import Drawing, translate
from workbench.ui.kernel_csv_row import CsvRow
from workbench.ui.kernel_run_row import RunRow
from workbench.ui.kernel_table import KernelTable
from workbench.ui.kernel_worker_row import WorkerRow, no_torch_words
from workbench.ui.live_label import Compose, LiveLabel
from workbench.ui.retranslate import Retranslating
from workbench.ui.theme import show_status

REDRAW_MS = 40  # one coalescing repaint of the charts, whatever the row rate
INSTALL_HINT = "pip install 'attention-workbench[kernels]'"

_NOTE_STYLE = "color: palette(mid);"


class KernelsView(Retranslating, QWidget):
    """Variants × KV lengths sweeps of decode kernels, their charts, table and exports."""

    running_changed = Signal(bool)
    worker_changed = Signal(bool)  # a worker is (not) connected

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.runs = KernelRunController(self)
        self.hello: Hello | None = None
        self.rows: list[ResultRow] = []
        self.last_outcome = ""
        self._tasks: set[asyncio.Task[object]] = set()
        self._busy = False
        self._cancel_requested = False
        self._closed = False

        self._redraw_timer = QTimer(self)
        self._redraw_timer.setSingleShot(True)
        self._redraw_timer.setInterval(REDRAW_MS)
        self._redraw_timer.timeout.connect(self.redraw)

        layout = QVBoxLayout(self)
        layout.addWidget(self._build_choices())
        layout.addWidget(self._build_worker_row())
        layout.addWidget(self._build_run_row())
        layout.addWidget(self._build_csv_row())
        self.message = LiveLabel()  # composed again on a language switch
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.message.hide()
        layout.addWidget(self.message)
        splitter = QSplitter(Qt.Orientation.Vertical)
        self.chart_row = KernelCharts()
        self.charts = self.chart_row.charts  # the exportable charts, as the window tests see them
        self.latency_plot = self.chart_row.latency_plot
        self.bandwidth_plot = self.chart_row.bandwidth_plot
        self.kv_plot = self.chart_row.kv_plot
        self.peak_label = self.chart_row.peak_label
        self.table = KernelTable()
        splitter.addWidget(self.chart_row)
        splitter.addWidget(self.table)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        layout.addWidget(splitter, 1)

        self._show_device()
        self.redraw()

    # ---- building ----

    def _build_choices(self) -> SweepChoices:
        self.choices = SweepChoices()
        self.choices.changed.connect(self.schedule_redraw)
        self.choices.dtype.currentIndexChanged.connect(self._show_device)
        self.profiles = self.choices.profiles
        self.batch, self.q_len = self.choices.batch, self.choices.q_len
        self.iters = self.choices.iters
        self.dtype, self.backend = self.choices.dtype, self.choices.backend
        self.profile = self.choices.profile
        return self.choices

    def _build_worker_row(self) -> WorkerRow:
        self.worker_row = WorkerRow()
        self.worker_row.connect_button.clicked.connect(self.start_connect)
        self.worker_mode = self.worker_row.worker_mode
        self.python_edit = self.worker_row.python_edit
        self.connect_button = self.worker_row.connect_button
        self.worker_status = self.worker_row.worker_status
        return self.worker_row

    def _build_run_row(self) -> RunRow:
        self.run_row = RunRow()
        self.run_row.run_button.clicked.connect(self.start_run)
        self.run_row.cancel_button.clicked.connect(self.request_cancel)
        self.run_row.export_csv_button.clicked.connect(self._export_csv_dialog)
        self.run_row.export_charts_button.clicked.connect(self._export_charts_dialog)
        self.run_button, self.cancel_button = self.run_row.run_button, self.run_row.cancel_button
        self.progress, self.progress_label = self.run_row.progress, self.run_row.progress_label
        self.device_label = self.run_row.device_label
        self.export_csv_button = self.run_row.export_csv_button
        self.export_charts_button = self.run_row.export_charts_button
        return self.run_row

    def _build_csv_row(self) -> CsvRow:
        self.csv_row = CsvRow()
        self.csv_row.loaded.connect(self._show_loaded)
        self.csv_row.failed.connect(self._show_error)  # the rows shown stay as they were
        self.csv_row.choice_changed.connect(self.schedule_redraw)
        return self.csv_row

    # ---- choices ----

    def variants(self) -> list[str]:
        return self.choices.variants()

    def kv_lens(self) -> list[int]:
        return self.choices.kv_lens()

    def set_variants(self, variants: list[str]) -> None:
        self.choices.set_variants(variants)

    def set_kv_lens(self, lengths: list[int]) -> None:
        self.choices.set_kv_lens(lengths)

    def set_dtype(self, dtype: str) -> None:
        self.choices.set_dtype(dtype)

    def set_backend(self, backend: str) -> None:
        self.choices.set_backend(backend)

    def set_profile(self, key: str) -> None:
        self.choices.set_profile(key)

    def selected_profile(self) -> HardwareProfile:
        return self.choices.selected_profile()

    def use_python(self, path: str) -> None:
        """Run the worker with this interpreter (instead of the auto-detected one)."""
        self.worker_row.use_python(path)

    def worker_choice(self) -> WorkerChoice:
        """The worker the controls ask for; ValueError carrying the user's fix."""
        return self.worker_row.choice()

    # ---- messages ----

    def _show_error(self, compose: Compose) -> None:
        show_status(self.message, "failed")
        self.message.show_text(compose)
        self.message.show()

    def _show_info(self, compose: Compose) -> None:
        show_status(self.message, None)
        self.message.setStyleSheet(_NOTE_STYLE)
        self.message.show_text(compose)
        self.message.setVisible(bool(self.message.text()))

    def _show_notes(self, hello: Hello) -> None:
        """The worker's own notes (its words), or nothing."""
        notes = " ".join(hello.notes)
        self._show_info(lambda: notes)

    def _no_torch_text(self, hello: Hello) -> str:
        words = no_torch_words(hello)
        return (
            self.tr("The kernel worker cannot run kernels: %1").replace("%1", words)
            + "\n"
            + self.tr(
                "Fix: install torch into that Python (%1), or choose another Python under "
                "Worker. The KV bytes/token bars and the roofline lines work without it."
            ).replace("%1", INSTALL_HINT)
        )

    def _show_device(self) -> None:
        self.run_row.show_device(self.hello, str(self.dtype.currentData()))

    def on_cpu(self) -> bool:
        return self.hello is None or target_device(self.hello) == "cpu"

    # ---- worker ----

    def _on_hello(self, hello: Hello) -> None:
        self.hello = hello
        self.choices.fill_backends(hello)
        if hello.torch_version is None:
            self.worker_row.show_status(
                lambda: self.tr("Worker without torch: %1").replace("%1", hello.python)
            )
            self._show_error(lambda: self._no_torch_text(hello))
        else:
            torch = hello.torch_version
            self.worker_row.show_status(
                lambda: (
                    self.tr("Worker ready: torch %1, Triton %2, %3")
                    .replace("%1", torch)
                    .replace("%2", hello.triton_version or self.tr("none"))
                    .replace("%3", hello.python)
                )
            )
            self._show_notes(hello)
            self.choices.apply_device_defaults(hello, target_device(hello) == "cpu")
        self._show_device()
        self.worker_changed.emit(True)
        self.schedule_redraw()

    def start_connect(self) -> asyncio.Task[object] | None:
        """The Connect button: start (or restart with changed settings) the worker."""
        if self._busy or self._closed:
            return None
        return self._keep(self._connect_clicked())

    async def _connect_clicked(self) -> bool:
        self.connect_button.setEnabled(False)
        try:
            return await self.ensure_worker() is not None
        finally:
            self.connect_button.setEnabled(not self._busy)

    @property
    def client(self) -> KernelClient | None:
        """The running worker's connection, None when there is none."""
        return self.runs.client

    @property
    def job(self) -> Run | None:
        """The sweep the worker runs now."""
        return self.runs.job

    async def ensure_worker(self) -> KernelClient | None:
        """The running worker the controls ask for, started if needed; None (with the reason
        shown) when it cannot start or the start was cancelled."""
        try:
            choice = self.worker_choice()
        except ValueError as exc:
            fix = str(exc)  # already in the language shown
            self._show_error(lambda: fix)
            return None
        try:
            hello = await self.runs.ensure_worker(choice)
        except WorkerError as exc:
            why = str(exc)
            self.worker_row.show_status(lambda: self.tr("No worker."))
            self._show_error(
                lambda: (
                    self.tr("The kernel worker could not start: %1").replace("%1", why)
                    + "\n"
                    + self.tr(
                        "Fix: choose a Python that has torch under Worker (%1), or connect to "
                        "a worker started with --listen. The KV bytes/token bars and the "
                        "roofline lines work without it."
                    ).replace("%1", INSTALL_HINT)
                )
            )
            return None
        if hello is None:
            self.worker_row.show_status(lambda: self.tr("Worker start cancelled."))
            return None
        if hello is not self.hello:  # a worker (re)started
            self._on_hello(hello)
        return self.client

    # ---- what the worker says (RunListener) ----

    def worker_starting(self) -> None:
        self.worker_row.show_status(lambda: self.tr("Starting the kernel worker…"))

    def worker_stopped(self) -> None:
        if not self._closed:  # after aclose the widget may be gone
            self.worker_row.show_status(lambda: self.tr("Worker stopped."))
            self.worker_changed.emit(False)

    def worker_crashed(self, crash: WorkerCrash) -> None:
        if self._closed:
            return
        tail = crash.stderr_tail
        self._show_error(
            lambda: (
                self.tr("The kernel worker stopped unexpectedly (exit code %1). %2")
                .replace("%1", str(crash.exit_code))
                .replace("%2", self.tr("Run again to restart it."))
                + ("\n" + tail[-1500:] if tail else "")
            )
        )
        self.worker_row.show_status(lambda: self.tr("Worker stopped."))
        self.worker_changed.emit(False)

    def worker_error(self, message: str) -> None:
        if not self._closed:
            self._show_error(lambda: self.tr("Kernel worker: %1").replace("%1", message))

    def job_progress(self, done: int, total: int, message: str) -> None:
        if not self._closed:
            self.run_row.set_progress(done, total, lambda: message)

    def job_row(self, row: ResultRow) -> None:
        if self._closed:
            return
        self.add_row(row)
        total = self.job.combos() if self.job else len(self.rows)
        self.run_row.set_progress(len(self.rows), total)

    # ---- runs ----

    def _keep(self, coro: Coroutine[Any, Any, object]) -> asyncio.Task[object]:
        task: asyncio.Task[object] = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    @property
    def running(self) -> bool:
        return self._busy

    def start_run(self) -> asyncio.Task[object] | None:
        """The Run button: one sweep at a time; returns its task (resolving to the outcome),
        or None when a sweep already runs or the choices are incomplete."""
        if not self._claim_run():
            return None
        return self._keep(self._sweep())

    def request_cancel(self) -> asyncio.Task[object] | None:
        if not self._busy:
            return None
        return self._keep(self.cancel())

    def _set_running(self, running: bool) -> None:
        self._busy = running
        self.run_row.set_running(running)
        self.worker_row.set_running(running)
        # a CSV loaded mid-run mixed its rows into the run's counts ("305 of 32")
        for button in (self.csv_row.open_button, self.csv_row.preset_button):
            button.setEnabled(not running)
        self.running_changed.emit(running)

    def _claim_run(self) -> bool:
        """Mark a sweep as running (synchronously, so a second click is refused)."""
        if self._busy or self._closed:
            return False
        if not self.variants() or not self.kv_lens():
            self._show_error(lambda: self.tr("Pick at least one variant and one KV length."))
            return False
        self._cancel_requested = False
        self._set_running(True)
        return True

    async def run_sweep(self) -> str:
        """Run the sweep the controls describe: 'finished', 'cancelled', 'failed' or 'refused'."""
        if not self._claim_run():
            return "refused"
        return await self._sweep()

    async def _sweep(self) -> str:
        variants, kv_lens = self.variants(), self.kv_lens()
        outcome, started = "failed", False
        try:
            self.run_row.set_progress(0, 0, lambda: self.tr("starting the worker…"))
            if await self.ensure_worker() is None or self.hello is None:
                outcome = "cancelled" if self._cancel_requested else "failed"
                return outcome
            if self._cancel_requested:
                outcome = "cancelled"
                return outcome
            hello = self.hello
            if hello.torch_version is None:
                self._show_error(lambda: self._no_torch_text(hello))
                return outcome
            backend = str(self.backend.currentData())
            if backend in hello.unavailable or backend not in hello.backends:
                unavailable = hello.unavailable.get(backend)  # the worker's words
                self._show_error(
                    lambda: (
                        self.tr("Backend %1 is not available on this worker: %2")
                        .replace("%1", backend)
                        .replace("%2", unavailable or self.tr("the worker did not offer it"))
                    )
                )
                return outcome
            job = build_run(
                variants,
                [backend],
                on_cpu=target_device(hello) == "cpu",
                kv_lens=kv_lens,
                batch=self.batch.value(),
                q_len=self.q_len.value(),
                dtype=str(self.dtype.currentData()),
                iters=self.iters.value() or None,
                gpu_profile=self.selected_profile().key,
            )
            self.clear_results()
            self._show_notes(hello)
            self.run_row.set_progress(0, job.combos())
            started = True
            outcome = await self.runs.run(job)
            return outcome
        except WorkerError as exc:
            why = str(exc)
            self._show_error(lambda: self.tr("Kernel worker: %1").replace("%1", why))
            return outcome
        finally:
            self.last_outcome = outcome
            if outcome == "cancelled":
                self.run_row.show_cancelled(len(self.rows))
            elif not started:  # else "0 of 0 starting the worker…" stayed for good
                self.run_row.show_not_started()
            self._set_running(False)
            self.redraw()

    async def cancel(self) -> None:
        """Stop the running sweep within a second: ask the worker, and stop it if it is slow."""
        if not self._busy:
            return
        self._cancel_requested = True
        await self.runs.cancel()

    async def aclose(self) -> None:
        """Cancel what runs and shut the worker down; the app awaits this on exit. Idempotent.

        Not `close()`: that is QWidget.close, which Qt (and pytest-qt) call synchronously.
        """
        if self._closed:
            return
        self._closed = True
        with contextlib.suppress(RuntimeError):  # the widget may already be deleted
            self._redraw_timer.stop()
        await self.runs.aclose(timeout_s=2.0)
        pending = [t for t in self._tasks if not t.done()]
        if pending:
            _done, still = await asyncio.wait(pending, timeout=3.0)
            for task in still:
                task.cancel()

    # ---- results ----

    def load_csv(self, path: str | Path) -> bool:
        """Show a kernel CSV's rows instead of the current ones; False (the reason shown, the
        current rows kept) when the file is not a kernel CSV."""
        return self.csv_row.load(Path(path))

    def _show_loaded(self) -> None:
        csv = self.csv_row.csv
        assert csv is not None  # emitted right after a load
        self.rows = list(csv.rows)
        self.table.set_rows(self.rows)
        self.choices.follow(self.rows, csv.profile())
        count = len(self.rows)
        self._show_info(
            lambda: (
                self.tr("Showing %1 measured rows from %2. Run replaces them with a new sweep.")
                .replace("%1", str(count))
                .replace("%2", str(csv.path))
            )
        )
        self.redraw()

    def clear_results(self) -> None:
        self.csv_row.forget()
        self.rows.clear()
        self.table.setRowCount(0)
        self.schedule_redraw()

    def add_row(self, row: ResultRow) -> None:
        self.rows.append(row)
        self.table.add_row(row)
        self.schedule_redraw()

    def measured_series(self, field: str) -> dict[str, list[tuple[int, float]]]:
        """label -> [(KV length, value)] of `field` per variant (and backend, when several)."""
        return measured_series(self.rows, field)

    def _analytic_rows(self) -> dict[str, list[ResultRow]]:
        profile = self.selected_profile()
        dtype = str(self.dtype.currentData())
        return {
            v: [
                analytic_row(v, dtype, self.batch.value(), n, self.q_len.value(), profile)
                for n in self.kv_lens()
            ]
            for v in self.variants()
        }

    def roofline_series(self) -> dict[str, list[tuple[int, float]]]:
        """variant -> [(KV length, roofline µs)] on the chosen profile for the chosen sweep."""
        return {
            v: [(r.kv_len, r.roofline_us or 0.0) for r in rows]
            for v, rows in self._analytic_rows().items()
        }

    def kv_bytes(self) -> dict[str, int]:
        """variant -> KV cache bytes per token of one layer in the chosen dtype (variants.py)."""
        dtype = str(self.dtype.currentData())
        return {
            v: analytic_row(v, dtype, 1, 1, 1, None).kv_bytes_per_token for v in self.variants()
        }

    @property
    def peak_gbps(self) -> float:
        return self.selected_profile().mem_bandwidth_tbs * 1000

    # ---- charts ----

    def retranslate(self) -> None:  # the charts' words are composed at each draw
        if not self._closed:
            self.redraw()

    def schedule_redraw(self) -> None:
        if not self._closed and not self._redraw_timer.isActive():
            self._redraw_timer.start()

    def redraw(self) -> None:
        self._redraw_timer.stop()
        profile = self.selected_profile()
        # a loaded CSV draws its chosen shapes at the chosen batch; else this tab's sweep
        d = self.csv_row.drawing(self.variants(), profile) or Drawing(
            self.rows,
            self.roofline_series(),
            self.kv_bytes(),
            self.kv_lens(),
            self.hello is not None and self.hello.torch_version is not None and self.on_cpu(),
            translate("KernelCsv", "default shapes (default-*)"),
        )
        dtype = str(self.dtype.currentData())
        self.chart_row.draw(
            d.rows, d.roofline, d.kv_bytes, d.kv_lens, profile, dtype, d.cpu, d.shapes
        )

    # ---- export ----

    def export_csv(self, path: str | Path) -> int:
        """The rows as `workbench kernels --csv` writes them (protocol.RESULT_COLUMNS)."""
        return write_rows_csv(Path(path), self.rows)

    def export_charts(self, folder: str | Path, suffix: str = ".png") -> list[Path]:
        self.redraw()
        return self.chart_row.export(Path(folder), suffix)

    def _export_csv_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self, self.tr("Export kernel results"), "kernels.csv", "CSV (*.csv)"
        )
        if path:
            self._report_export(
                lambda: self.export_csv(path), lambda: self.tr("Wrote %1 rows to %2"), path
            )

    def _export_charts_dialog(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, self.tr("Export charts to folder"))
        if folder:
            self._report_export(
                lambda: len(
                    self.export_charts(folder, ".png") + self.export_charts(folder, ".svg")
                ),
                lambda: self.tr("Wrote %1 chart files to %2"),
                folder,
            )

    def _report_export(self, write: Callable[[], int], done: Compose, where: str) -> None:
        try:
            count = write()
        except (OSError, ValueError) as exc:
            why = str(exc)
            self._show_error(lambda: self.tr("Export failed: %1").replace("%1", why))
            return
        self._show_info(lambda: done().replace("%1", str(count)).replace("%2", where))
