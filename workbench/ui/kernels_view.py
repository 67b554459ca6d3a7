"""The Kernels tab: decode-attention kernel sweeps through the kernel worker, next to the roofline.

torch and Triton never load here: the sweep runs in `python -m kernels_bridge.worker`, started
lazily (first Run or Connect) through `kernels_bridge.client.KernelClient`, or reached over TCP.
The analytic parts (KV bytes per token, roofline latency, peak bandwidth) need no worker. Every
failure of the worker shows up in the view's message line; none reaches the app as a crash.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import QT_TRANSLATE_NOOP, QSignalBlocker, Qt, QTimer, Signal
from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from kernels_bridge.analytic import HardwareProfile, get_profile, load_hardware_profiles
from kernels_bridge.bench_names import BACKENDS
from kernels_bridge.bench_rows import analytic_row
from kernels_bridge.client import Closed, Event, KernelClient, WorkerError
from kernels_bridge.jobs import build_run, defaults_for, target_device, write_rows_csv
from kernels_bridge.protocol import Done, Error, Hello, Progress, Result, ResultRow, Run
from kernels_bridge.specs import VARIANTS
from workbench.ui.chart_export import ExportableChart
from workbench.ui.prompt_slider import tokens_label

KV_CHOICES = (1024, 4096, 16384, 32768, 65536, 131072)
DEFAULT_VARIANTS = ("gqa", "mla")
DEFAULT_KV = (1024, 4096, 16384)
DTYPE_CHOICES = ("bf16", "fp16", "fp32")
DEFAULT_PROFILE = "H200"
CANCEL_GRACE_S = 0.6  # after this the worker is stopped: a launch can outlast one cancel check
REDRAW_MS = 40  # one coalescing repaint of the charts, whatever the row rate
INSTALL_HINT = "pip install 'attention-workbench[kernels]'"
BACKEND_SYMBOLS = ("o", "s", "t", "d", "x", "+")

_ERROR_STYLE = "color: #c62828;"
_NOTE_STYLE = "color: palette(mid);"
_CPU_STYLE = "color: #b9770e; font-weight: bold;"
_GPU_STYLE = "color: #1e8449; font-weight: bold;"

# (ResultRow field, header, formatter) of the results table; the CSV keeps every column.
TABLE_COLUMNS: tuple[tuple[str, str], ...] = (
    ("variant", QT_TRANSLATE_NOOP("KernelsView", "variant")),
    ("backend", QT_TRANSLATE_NOOP("KernelsView", "backend")),
    ("device", QT_TRANSLATE_NOOP("KernelsView", "device")),
    ("dtype", QT_TRANSLATE_NOOP("KernelsView", "dtype")),
    ("batch", QT_TRANSLATE_NOOP("KernelsView", "batch")),
    ("kv_len", QT_TRANSLATE_NOOP("KernelsView", "KV length")),
    ("q_len", QT_TRANSLATE_NOOP("KernelsView", "q length")),
    ("latency_us", QT_TRANSLATE_NOOP("KernelsView", "latency µs")),
    ("achieved_gbps", QT_TRANSLATE_NOOP("KernelsView", "GB/s")),
    ("achieved_tflops", QT_TRANSLATE_NOOP("KernelsView", "TFLOP/s")),
    ("frac_peak_bw", QT_TRANSLATE_NOOP("KernelsView", "% peak BW")),
    ("roofline_us", QT_TRANSLATE_NOOP("KernelsView", "roofline µs")),
    ("kv_bytes_per_token", QT_TRANSLATE_NOOP("KernelsView", "KV B/token")),
    ("timing", QT_TRANSLATE_NOOP("KernelsView", "timing")),
    ("error", QT_TRANSLATE_NOOP("KernelsView", "error")),
)


def _cell(field: str, value: object) -> str:
    if value is None or value == "":
        return "–"
    if field == "frac_peak_bw" and isinstance(value, float):
        return f"{100 * value:.0f} %"
    if field == "kv_len" and isinstance(value, int):
        return tokens_label(value)
    if isinstance(value, float):
        return f"{value:,.3g}" if abs(value) < 100 else f"{value:,.0f}"
    return str(value)


TITLE_SIZE = "10pt"
# kernel variants, not models: the Kernels tab compares attention kinds on one device
VARIANT_COLORS = {
    "MHA": "#c0392b", "MQA": "#d35400", "GQA": "#2471a3", "GTA": "#148f77",
    "MLA": "#7d3c98", "GLA": "#1e8449", "NSA": "#b7950b", "MOBA": "#6e2c00",
}  # fmt: skip


def variant_color(variant: str) -> str:
    return VARIANT_COLORS.get(variant.upper(), "#566573")


def parse_host_port(text: str) -> tuple[str, int]:
    """'host:port' -> (host, port); a bare ':port' means 127.0.0.1. ValueError otherwise."""
    host, sep, port = text.strip().rpartition(":")
    if not sep or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(text)
    return host or "127.0.0.1", int(port)


@dataclass(frozen=True)
class WorkerChoice:
    """Which worker to use: auto-detected Python, a given Python, or a TCP address."""

    mode: str  # auto | python | connect
    python: str | None = None
    connect: tuple[str, int] | None = None
    token: str = ""

    def client(self) -> KernelClient:
        if self.connect is not None:
            return KernelClient(connect=self.connect, token=self.token)
        return KernelClient(self.python)


class KernelsView(QWidget):
    """Variants × KV lengths sweeps of decode kernels, their charts, table and exports."""

    running_changed = Signal(bool)
    worker_changed = Signal(bool)  # a worker is (not) connected

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.client: KernelClient | None = None
        self.hello: Hello | None = None
        self.rows: list[ResultRow] = []
        self.job: Run | None = None
        self.last_outcome = ""
        self._job_done: asyncio.Future[str] | None = None
        self._pump: asyncio.Task[None] | None = None
        self._starting: asyncio.Task[Hello] | None = None
        self._client_key: WorkerChoice | None = None
        self._start_lock = asyncio.Lock()
        self._tasks: set[asyncio.Task[object]] = set()
        self._busy = False
        self._cancel_requested = False
        self._closed = False
        self._touched: set[str] = set()
        self.profiles: dict[str, HardwareProfile] = load_hardware_profiles()

        self._redraw_timer = QTimer(self)
        self._redraw_timer.setSingleShot(True)
        self._redraw_timer.setInterval(REDRAW_MS)
        self._redraw_timer.timeout.connect(self.redraw)

        layout = QVBoxLayout(self)
        layout.addLayout(self._build_selection())
        layout.addLayout(self._build_options())
        layout.addLayout(self._build_worker_row())
        layout.addLayout(self._build_run_row())
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.message.hide()
        layout.addWidget(self.message)
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(self._build_charts())
        splitter.addWidget(self._build_table())
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        layout.addWidget(splitter, 1)

        self._fill_backends(None)
        self._on_worker_mode()
        self._show_device()
        self.redraw()

    # ---- building ----

    def _build_selection(self) -> QGridLayout:
        grid = QGridLayout()
        grid.addWidget(QLabel(self.tr("Variants:")), 0, 0)
        self.variant_boxes: dict[str, QCheckBox] = {}
        for i, v in enumerate(VARIANTS):
            box = QCheckBox(v)
            box.setChecked(v in DEFAULT_VARIANTS)
            box.toggled.connect(self.schedule_redraw)
            self.variant_boxes[v] = box
            grid.addWidget(box, 0, 1 + i)
        grid.addWidget(QLabel(self.tr("KV lengths:")), 1, 0)
        self.kv_boxes: dict[int, QCheckBox] = {}
        for i, n in enumerate(KV_CHOICES):
            box = QCheckBox(tokens_label(n))
            box.setChecked(n in DEFAULT_KV)
            box.toggled.connect(self.schedule_redraw)
            self.kv_boxes[n] = box
            grid.addWidget(box, 1, 1 + i)
        grid.setColumnStretch(len(VARIANTS) + 1, 1)
        return grid

    def _build_options(self) -> QHBoxLayout:
        row = QHBoxLayout()
        row.addWidget(QLabel(self.tr("batch")))
        self.batch = QSpinBox()
        self.batch.setRange(1, 4096)
        self.batch.setValue(1)
        self.batch.valueChanged.connect(lambda: self._touch("batch"))
        row.addWidget(self.batch)
        row.addWidget(QLabel(self.tr("query length")))
        self.q_len = QSpinBox()
        self.q_len.setRange(1, 64)
        self.q_len.valueChanged.connect(self.schedule_redraw)
        row.addWidget(self.q_len)
        row.addWidget(QLabel(self.tr("dtype")))
        self.dtype = QComboBox()
        for d in DTYPE_CHOICES:
            self.dtype.addItem(d, d)
        self.dtype.activated.connect(lambda: self._touch("dtype"))
        self.dtype.currentIndexChanged.connect(self.schedule_redraw)
        self.dtype.currentIndexChanged.connect(self._show_device)
        row.addWidget(self.dtype)
        row.addWidget(QLabel(self.tr("backend")))
        self.backend = QComboBox()
        self.backend.setMinimumWidth(140)
        row.addWidget(self.backend)
        row.addWidget(QLabel(self.tr("timed launches")))
        self.iters = QSpinBox()
        self.iters.setRange(0, 1_000_000)
        self.iters.setSpecialValueText(self.tr("auto"))
        self.iters.setToolTip(self.tr("Launches timed per row; auto: 5 on the CPU, 30 on a GPU"))
        row.addWidget(self.iters)
        row.addWidget(QLabel(self.tr("roofline on")))
        self.profile = QComboBox()
        for key, p in self.profiles.items():
            self.profile.addItem(
                self.tr("%1 (%2 TB/s, %3 TFLOP/s)")
                .replace("%1", key)
                .replace("%2", f"{p.mem_bandwidth_tbs:g}")
                .replace("%3", f"{p.peak_bf16_tflops:g}"),
                key,
            )
            self.profile.setItemData(
                self.profile.count() - 1, p.source, Qt.ItemDataRole.ToolTipRole
            )
        self.profile.setCurrentIndex(max(0, self.profile.findData(DEFAULT_PROFILE)))
        # the longest choice ("H200 (4.8 TB/s, 989.4 TFLOP/s)") must not set the tab's width
        self.profile.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.profile.setMinimumContentsLength(16)
        self.profile.activated.connect(lambda: self._touch("profile"))
        self.profile.currentIndexChanged.connect(self.schedule_redraw)
        row.addWidget(self.profile)
        row.addStretch(1)
        return row

    def _build_worker_row(self) -> QHBoxLayout:
        row = QHBoxLayout()
        row.addWidget(QLabel(self.tr("Worker:")))
        self.worker_mode = QComboBox()
        self.worker_mode.addItem(self.tr("Auto-detect a Python with torch"), "auto")
        self.worker_mode.addItem(self.tr("This Python"), "python")
        self.worker_mode.addItem(self.tr("Connect to HOST:PORT"), "connect")
        self.worker_mode.currentIndexChanged.connect(self._on_worker_mode)
        row.addWidget(self.worker_mode)
        self.python_edit = QLineEdit()
        self.python_edit.setAccessibleName(self.tr("Worker Python"))
        self.python_edit.setPlaceholderText(self.tr("path of a Python interpreter that has torch"))
        row.addWidget(self.python_edit, 2)
        self.host_edit = QLineEdit()
        self.host_edit.setAccessibleName(self.tr("Worker address"))
        self.host_edit.setPlaceholderText(self.tr("127.0.0.1:7777 (an SSH tunnel to the GPU box)"))
        row.addWidget(self.host_edit, 1)
        self.token_edit = QLineEdit()
        self.token_edit.setAccessibleName(self.tr("Worker token"))
        self.token_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.token_edit.setPlaceholderText(self.tr("token"))
        row.addWidget(self.token_edit)
        self.connect_button = QPushButton(self.tr("Connect"))
        self.connect_button.clicked.connect(self.start_connect)
        row.addWidget(self.connect_button)
        self.worker_status = QLabel(self.tr("No worker yet: it starts on Run or Connect."))
        self.worker_status.setStyleSheet(_NOTE_STYLE)
        row.addWidget(self.worker_status, 3)
        return row

    def _build_run_row(self) -> QHBoxLayout:
        row = QHBoxLayout()
        self.run_button = QPushButton(self.tr("Run"))
        self.run_button.clicked.connect(self.start_run)
        self.cancel_button = QPushButton(self.tr("Cancel"))
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.request_cancel)
        self.progress = QProgressBar()
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        self.progress.setMaximumWidth(260)
        self.progress_label = QLabel()
        self.device_label = QLabel()
        self.export_csv_button = QPushButton(self.tr("Export CSV…"))
        self.export_csv_button.clicked.connect(self._export_csv_dialog)
        self.export_charts_button = QPushButton(self.tr("Export charts…"))
        self.export_charts_button.clicked.connect(self._export_charts_dialog)
        for w in (self.run_button, self.cancel_button, self.progress, self.progress_label):
            row.addWidget(w)
        row.addWidget(self.device_label, 1)
        row.addWidget(self.export_csv_button)
        row.addWidget(self.export_charts_button)
        return row

    def _new_plot(self, title: str, left: str, bottom: str) -> pg.PlotWidget:
        plot = pg.PlotWidget(title=title)
        plot.setLabel("left", left)
        plot.setLabel("bottom", bottom)
        plot.showGrid(x=True, y=True, alpha=0.2)
        plot.addLegend(offset=(10, 10))
        return plot

    def _build_charts(self) -> QWidget:
        host = QWidget()
        row = QHBoxLayout(host)
        row.setContentsMargins(0, 0, 0, 0)
        kv_axis = self.tr("KV length (tokens)")
        self.latency_plot = self._new_plot(
            self.tr("Latency per decode step"), self.tr("µs (log)"), kv_axis
        )
        self.bandwidth_plot = self._new_plot(
            self.tr("Achieved bandwidth"), self.tr("GB/s (log)"), kv_axis
        )
        self.kv_plot = self._new_plot(
            self.tr("KV cache bytes per token (one layer)"), self.tr("bytes"), ""
        )
        self.kv_plot.plotItem.legend.hide()
        ticks = [[(math.log10(n), tokens_label(n)) for n in KV_CHOICES]]
        for plot in (self.latency_plot, self.bandwidth_plot):
            plot.setLogMode(x=False, y=True)  # x is placed at log10(KV) so ticks read 1K, 4K…
            plot.getAxis("bottom").setTicks(ticks)
        self.peak_line = pg.InfiniteLine(
            angle=0, pen=pg.mkPen("#808080", width=1.5, style=Qt.PenStyle.DashLine)
        )
        self.peak_label = pg.TextItem(color="#808080", anchor=(0, 1))
        self.charts = [
            ExportableChart("kernels_latency", self.latency_plot),
            ExportableChart("kernels_bandwidth", self.bandwidth_plot),
            ExportableChart("kernels_kv_bytes", self.kv_plot),
        ]
        for chart in self.charts:
            row.addWidget(chart.widget)
        return host

    def _build_table(self) -> QTableWidget:
        self.table = QTableWidget(0, len(TABLE_COLUMNS))
        self.table.setAccessibleName(self.tr("Kernel timings"))
        self.table.setHorizontalHeaderLabels([self.tr(h) for _, h in TABLE_COLUMNS])
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        return self.table

    # ---- choices ----

    def variants(self) -> list[str]:
        return [v for v, box in self.variant_boxes.items() if box.isChecked()]

    def kv_lens(self) -> list[int]:
        return [n for n, box in self.kv_boxes.items() if box.isChecked()]

    def set_variants(self, variants: list[str]) -> None:
        for v, box in self.variant_boxes.items():
            box.setChecked(v in variants)

    def set_kv_lens(self, lengths: list[int]) -> None:
        for n, box in self.kv_boxes.items():
            box.setChecked(n in lengths)

    def set_dtype(self, dtype: str) -> None:
        self.dtype.setCurrentIndex(max(0, self.dtype.findData(dtype)))
        self._touched.add("dtype")

    def set_backend(self, backend: str) -> None:
        self.backend.setCurrentIndex(max(0, self.backend.findData(backend)))

    def set_profile(self, key: str) -> None:
        self.profile.setCurrentIndex(max(0, self.profile.findData(key)))
        self._touched.add("profile")

    def selected_profile(self) -> HardwareProfile:
        key = self.profile.currentData()
        return self.profiles.get(key) or get_profile(DEFAULT_PROFILE)

    def _touch(self, name: str) -> None:
        self._touched.add(name)
        self.schedule_redraw()

    def _on_worker_mode(self) -> None:
        mode = self.worker_mode.currentData()
        self.python_edit.setVisible(mode == "python")
        self.host_edit.setVisible(mode == "connect")
        self.token_edit.setVisible(mode == "connect")

    def use_python(self, path: str) -> None:
        """Run the worker with this interpreter (instead of the auto-detected one)."""
        self.worker_mode.setCurrentIndex(self.worker_mode.findData("python"))
        self.python_edit.setText(path)

    def worker_choice(self) -> WorkerChoice:
        """The worker the controls ask for; ValueError carrying the user's fix."""
        mode = str(self.worker_mode.currentData())
        if mode == "python":
            path = self.python_edit.text().strip()
            if not path:
                raise ValueError(self.tr("Enter the path of a Python interpreter that has torch."))
            return WorkerChoice(mode, python=path)
        if mode == "connect":
            try:
                address = parse_host_port(self.host_edit.text())
            except ValueError:
                raise ValueError(
                    self.tr("Enter the worker's address as HOST:PORT, e.g. 127.0.0.1:7777.")
                ) from None
            return WorkerChoice(mode, connect=address, token=self.token_edit.text())
        return WorkerChoice("auto")

    # ---- messages ----

    def _show_error(self, text: str) -> None:
        self.message.setStyleSheet(_ERROR_STYLE)
        self.message.setText(text)
        self.message.show()

    def _show_info(self, text: str) -> None:
        self.message.setStyleSheet(_NOTE_STYLE)
        self.message.setText(text)
        self.message.setVisible(bool(text))

    def _no_torch_text(self, hello: Hello) -> str:
        words = " ".join(hello.notes) or self.tr("the worker's Python cannot import torch")
        return (
            self.tr("The kernel worker cannot run kernels: %1").replace("%1", words)
            + "\n"
            + self.tr(
                "Fix: install torch into that Python (%1), or choose another Python under "
                "Worker. The KV bytes/token bars and the roofline lines work without it."
            ).replace("%1", INSTALL_HINT)
        )

    def _show_device(self) -> None:
        hello = self.hello
        if hello is None or hello.torch_version is None:
            self.device_label.setText("")
            return
        if target_device(hello) == "cpu":
            self.device_label.setText(
                self.tr(
                    "CPU (wall-clock): no CUDA device; the reference backend times on the CPU "
                    "in %1 as chosen (fp32 runs faster there)"
                ).replace("%1", str(self.dtype.currentData()))
            )
            self.device_label.setStyleSheet(_CPU_STYLE)
        else:
            names = [str(d.get("name", "?")) for d in hello.devices if d.get("kind") == "cuda"]
            self.device_label.setText(
                self.tr("%1 (CUDA events)").replace("%1", names[0] if names else "cuda")
            )
            self.device_label.setStyleSheet(_GPU_STYLE)

    def on_cpu(self) -> bool:
        return self.hello is None or target_device(self.hello) == "cpu"

    # ---- worker ----

    def _fill_backends(self, hello: Hello | None) -> None:
        """All backends; those the worker says it cannot run are disabled, with its reason."""
        current = self.backend.currentData() or "reference"
        names = list(BACKENDS)
        if hello is not None:
            names += [b for b in (*hello.backends, *hello.unavailable) if b not in names]
        blocker = QSignalBlocker(self.backend)
        self.backend.clear()
        model = self.backend.model()
        for i, name in enumerate(names):
            self.backend.addItem(name, name)
            why = None if hello is None else hello.unavailable.get(name)
            if hello is not None and why is None and name not in hello.backends:
                why = self.tr("the worker did not offer it")
            if why is not None and isinstance(model, QStandardItemModel):
                item = model.item(i)
                item.setEnabled(False)
                item.setToolTip(why)
            elif hello is None:
                self.backend.setItemData(
                    i,
                    self.tr("Available backends are known once the worker has started."),
                    Qt.ItemDataRole.ToolTipRole,
                )
        index = self.backend.findData(current)
        if hello is not None and current in hello.unavailable:
            index = self.backend.findData(hello.backends[0]) if hello.backends else -1
        self.backend.setCurrentIndex(max(0, index))
        del blocker

    def _on_hello(self, hello: Hello) -> None:
        self.hello = hello
        self._fill_backends(hello)
        if hello.torch_version is None:
            self.worker_status.setText(
                self.tr("Worker without torch: %1").replace("%1", hello.python)
            )
            self._show_error(self._no_torch_text(hello))
        else:
            self.worker_status.setText(
                self.tr("Worker ready: torch %1, Triton %2, %3")
                .replace("%1", hello.torch_version)
                .replace("%2", hello.triton_version or self.tr("none"))
                .replace("%3", hello.python)
            )
            self._show_info(" ".join(hello.notes))
            self._apply_device_defaults(hello)
        self._show_device()
        self.worker_changed.emit(True)
        self.schedule_redraw()

    def _apply_device_defaults(self, hello: Hello) -> None:
        """Batch and profile follow the device unless the user has chosen them. The dtype never
        changes by itself: the KV bytes chart and every row would silently mean another
        precision (the CPU reference runs bf16; the device label says fp32 is faster there)."""
        on_cpu = target_device(hello) == "cpu"
        d = defaults_for(on_cpu)
        if "batch" not in self._touched:
            with QSignalBlocker(self.batch):
                self.batch.setValue(d.batch)
        if "profile" not in self._touched:
            detected = [x.get("profile") for x in hello.devices if x.get("profile")]
            key = str(detected[0]) if detected and not on_cpu else DEFAULT_PROFILE
            with QSignalBlocker(self.profile):
                self.profile.setCurrentIndex(max(0, self.profile.findData(key)))

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

    async def ensure_worker(self) -> KernelClient | None:
        """The running worker the controls ask for, started if needed; None (with the reason
        shown) when it cannot start or the start was cancelled."""
        async with self._start_lock:
            try:
                key = self.worker_choice()
            except ValueError as exc:
                self._show_error(str(exc))
                return None
            if self.client is not None and self.client.is_running and key == self._client_key:
                return self.client
            await self._stop_worker()
            client = key.client()
            self.worker_status.setText(self.tr("Starting the kernel worker…"))
            starting = asyncio.ensure_future(client.start())
            self._starting = starting
            try:
                await asyncio.wait({starting})
            except asyncio.CancelledError:
                starting.cancel()
                await self._discard(client)
                raise
            finally:
                self._starting = None
            if starting.cancelled():
                await self._discard(client)
                self.worker_status.setText(self.tr("Worker start cancelled."))
                return None
            failure = starting.exception()
            if failure is not None:
                await self._discard(client)
                if not isinstance(failure, (WorkerError, OSError)):
                    raise failure
                self.worker_status.setText(self.tr("No worker."))
                self._show_error(
                    self.tr("The kernel worker could not start: %1").replace("%1", str(failure))
                    + "\n"
                    + self.tr(
                        "Fix: choose a Python that has torch under Worker (%1), or connect to "
                        "a worker started with --listen. The KV bytes/token bars and the "
                        "roofline lines work without it."
                    ).replace("%1", INSTALL_HINT)
                )
                return None
            self.client, self._client_key = client, key
            self._pump = asyncio.ensure_future(self._pump_events(client))
            self._on_hello(starting.result())
            return client

    @staticmethod
    async def _discard(client: KernelClient) -> None:
        with contextlib.suppress(Exception):
            await client.shutdown(timeout_s=0.2)

    async def _stop_worker(self, timeout_s: float = 5.0) -> None:
        client, pump = self.client, self._pump
        self.client, self._pump, self._client_key = None, None, None
        if client is not None:
            with contextlib.suppress(Exception):
                await client.shutdown(timeout_s=timeout_s)
        if pump is not None:
            try:
                await asyncio.wait_for(pump, 1.0)
            except (TimeoutError, asyncio.CancelledError):
                pump.cancel()
        if client is not None and not self._closed:  # after aclose the widget may be gone
            self.worker_status.setText(self.tr("Worker stopped."))
            self.worker_changed.emit(False)

    async def _pump_events(self, client: KernelClient) -> None:
        async for ev in client.events():
            try:
                self._on_event(client, ev)
            except Exception:  # a bad message must not end the stream of the good ones
                import logging

                logging.getLogger(__name__).exception("kernels view: bad worker event %r", ev)

    def _finish_job(self, outcome: str) -> None:
        if self._job_done is not None and not self._job_done.done():
            self._job_done.set_result(outcome)

    def _on_event(self, client: KernelClient, ev: Event) -> None:
        if self._closed:
            return
        job_id = self.job.job_id if self.job else None
        if isinstance(ev, Closed):
            if client is self.client:  # it died on its own; a stop we asked for is not news
                self.client, self._client_key, self._pump = None, None, None
                tail = ev.stderr_tail.strip()
                self._show_error(
                    self.tr("The kernel worker stopped unexpectedly (exit code %1). %2")
                    .replace("%1", str(ev.exit_code))
                    .replace("%2", self.tr("Run again to restart it."))
                    + ("\n" + tail[-1500:] if tail else "")
                )
                self.worker_status.setText(self.tr("Worker stopped."))
                self.worker_changed.emit(False)
                self._finish_job("failed")
            return
        if isinstance(ev, Progress) and ev.job_id == job_id:
            self._set_progress(ev.done, ev.total, ev.message)
        elif isinstance(ev, Result) and ev.job_id == job_id:
            self.add_row(ev.result_row)
            total = self.job.combos() if self.job else len(self.rows)
            self._set_progress(len(self.rows), total, "")
        elif isinstance(ev, Done) and ev.job_id == job_id:
            self._finish_job("cancelled" if ev.cancelled else "finished")
        elif isinstance(ev, Error):
            self._show_error(self.tr("Kernel worker: %1").replace("%1", ev.message))
            if job_id is not None and (ev.job_id == job_id or ev.fatal):
                self._finish_job("failed")

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
        self.run_button.setEnabled(not running)
        self.cancel_button.setEnabled(running)
        self.connect_button.setEnabled(not running)
        self.worker_mode.setEnabled(not running)
        self.running_changed.emit(running)

    def _set_progress(self, done: int, total: int, what: str) -> None:
        self.progress.setRange(0, max(1, total))
        self.progress.setValue(min(done, max(1, total)))
        text = self.tr("%1 of %2").replace("%1", str(done)).replace("%2", str(total))
        self.progress_label.setText(f"{text}  {what}".rstrip())

    def _claim_run(self) -> bool:
        """Mark a sweep as running (synchronously, so a second click is refused)."""
        if self._busy or self._closed:
            return False
        if not self.variants() or not self.kv_lens():
            self._show_error(self.tr("Pick at least one variant and one KV length."))
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
        outcome = "failed"
        try:
            self._set_progress(0, 0, self.tr("starting the worker…"))
            client = await self.ensure_worker()
            if client is None or self.hello is None:
                outcome = "cancelled" if self._cancel_requested else "failed"
                return outcome
            if self._cancel_requested:
                outcome = "cancelled"
                return outcome
            hello = self.hello
            if hello.torch_version is None:
                self._show_error(self._no_torch_text(hello))
                return outcome
            backend = str(self.backend.currentData())
            if backend in hello.unavailable or backend not in hello.backends:
                why = hello.unavailable.get(backend, self.tr("the worker did not offer it"))
                self._show_error(
                    self.tr("Backend %1 is not available on this worker: %2")
                    .replace("%1", backend)
                    .replace("%2", why)
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
            self._show_info(" ".join(hello.notes))
            self.job = job
            self._job_done = asyncio.get_running_loop().create_future()
            self._set_progress(0, job.combos(), "")
            await client.run(job)
            outcome = await self._job_done
            return outcome
        except WorkerError as exc:
            self._show_error(self.tr("Kernel worker: %1").replace("%1", str(exc)))
            return outcome
        finally:
            self.last_outcome = outcome
            if outcome == "cancelled":
                self.progress_label.setText(
                    self.tr("Cancelled after %1 rows.").replace("%1", str(len(self.rows)))
                )
            self.job, self._job_done = None, None
            self._set_running(False)
            self.redraw()

    async def cancel(self) -> None:
        """Stop the running sweep within a second: ask the worker, and stop it if it is slow."""
        if not self._busy:
            return
        self._cancel_requested = True
        if self._starting is not None:
            self._starting.cancel()
            return
        job, done, client = self.job, self._job_done, self.client
        if job is None or done is None or client is None:
            return
        with contextlib.suppress(WorkerError):
            await client.cancel(job.job_id)
        try:
            await asyncio.wait_for(asyncio.shield(done), CANCEL_GRACE_S)
        except TimeoutError:
            # one launch outlasts the grace (a long CPU step): a fresh worker starts next Run
            await self._stop_worker(timeout_s=0.1)
            self._finish_job("cancelled")

    async def aclose(self) -> None:
        """Cancel what runs and shut the worker down; the app awaits this on exit. Idempotent.

        Not `close()`: that is QWidget.close, which Qt (and pytest-qt) call synchronously.
        """
        if self._closed:
            return
        self._closed = True
        with contextlib.suppress(RuntimeError):  # the widget may already be deleted
            self._redraw_timer.stop()
        if self._starting is not None:
            self._starting.cancel()
        self._finish_job("cancelled")
        await self._stop_worker(timeout_s=2.0)
        pending = [t for t in self._tasks if not t.done()]
        if pending:
            _done, still = await asyncio.wait(pending, timeout=3.0)
            for task in still:
                task.cancel()

    # ---- results ----

    def clear_results(self) -> None:
        self.rows.clear()
        self.table.setRowCount(0)
        self.schedule_redraw()

    def add_row(self, row: ResultRow) -> None:
        self.rows.append(row)
        r = self.table.rowCount()
        self.table.insertRow(r)
        for c, (field, _) in enumerate(TABLE_COLUMNS):
            value = getattr(row, field)
            item = QTableWidgetItem(_cell(field, value))
            if field == "error" and value:
                item.setForeground(pg.mkColor("#c62828"))
                item.setToolTip(str(value))
            self.table.setItem(r, c, item)
        self.schedule_redraw()

    def measured_series(self, field: str) -> dict[str, list[tuple[int, float]]]:
        """label -> [(KV length, value)] of `field` (latency_us, achieved_gbps) per variant
        (and backend, when several), from the rows without errors."""
        backends = {r.backend for r in self.rows}
        out: dict[str, list[tuple[int, float]]] = {}
        for r in self.rows:
            value = getattr(r, field)
            if r.error or value is None or value <= 0:
                continue
            label = r.variant if len(backends) == 1 else f"{r.variant} · {r.backend}"
            out.setdefault(label, []).append((r.kv_len, float(value)))
        for points in out.values():
            points.sort()
        return out

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

    def schedule_redraw(self) -> None:
        if not self._closed and not self._redraw_timer.isActive():
            self._redraw_timer.start()

    def redraw(self) -> None:
        self._redraw_timer.stop()
        profile = self.selected_profile()
        cpu = self.hello is not None and self.hello.torch_version is not None and self.on_cpu()
        suffix = self.tr(" — CPU (wall-clock)") if cpu else ""
        # short titles: pyqtgraph makes a title's width the chart's minimum, and a long one
        # pushed the latency chart past its column at every window size
        self.latency_plot.setTitle(
            self.tr("Latency per decode step%1").replace("%1", suffix), size=TITLE_SIZE
        )
        self.latency_plot.setLabel(
            "left", self.tr("µs (log); dashed: %1 roofline").replace("%1", profile.key)
        )
        self.bandwidth_plot.setTitle(
            self.tr("Achieved bandwidth%1").replace("%1", suffix), size=TITLE_SIZE
        )
        self._draw_latency()
        self._draw_bandwidth(profile)
        self._draw_kv_bars()

    @staticmethod
    def _reset(plot: pg.PlotWidget) -> None:
        plot.clear()
        legend = plot.plotItem.legend
        if legend is not None:
            legend.clear()

    def _draw_measured(self, plot: pg.PlotWidget, field: str) -> None:
        backends = sorted({r.backend for r in self.rows})
        for label, points in sorted(self.measured_series(field).items()):
            variant, _, backend = label.partition(" · ")
            color = variant_color(variant)
            symbol = BACKEND_SYMBOLS[backends.index(backend) % 6] if backend in backends else "o"
            plot.plot(
                [math.log10(p[0]) for p in points],
                [p[1] for p in points],
                pen=pg.mkPen(color, width=2),
                symbol=symbol,
                symbolSize=7,
                symbolBrush=color,
                name=label,
            )

    def _draw_latency(self) -> None:
        plot = self.latency_plot
        self._reset(plot)
        self._draw_measured(plot, "latency_us")
        for variant, points in self.roofline_series().items():
            points = [p for p in points if p[1] > 0]
            if not points:
                continue
            plot.plot(
                [math.log10(p[0]) for p in points],
                [p[1] for p in points],
                pen=pg.mkPen(variant_color(variant), width=1.5, style=Qt.PenStyle.DashLine),
                name=self.tr("%1 roofline").replace("%1", variant),
            )
        # the measured lengths with a margin on both sides, as the bandwidth chart has: an
        # auto range put the last point on the frame and cut its tick label
        xs = [math.log10(n) for n in self.kv_lens()] or [math.log10(KV_CHOICES[0])]
        plot.setXRange(min(xs) - 0.1, max(xs) + 0.1, padding=0)

    def _draw_bandwidth(self, profile: HardwareProfile) -> None:
        plot = self.bandwidth_plot
        self._reset(plot)
        self._draw_measured(plot, "achieved_gbps")
        peak = self.peak_gbps
        self.peak_line.setPos(math.log10(peak))  # the y axis is in log mode: place at log10
        plot.addItem(self.peak_line, ignoreBounds=False)
        self.peak_label.setText(
            self.tr("%1 peak %2 GB/s").replace("%1", profile.key).replace("%2", f"{peak:,.0f}")
        )
        xs = [math.log10(n) for n in self.kv_lens()] or [math.log10(KV_CHOICES[0])]
        self.peak_label.setPos(min(xs), math.log10(peak))
        plot.addItem(self.peak_label, ignoreBounds=True)
        plot.setXRange(min(xs) - 0.1, max(xs) + 0.1)

    def _draw_kv_bars(self) -> None:
        plot = self.kv_plot
        self._reset(plot)
        values = self.kv_bytes()
        names = list(values)
        if not names:
            return
        heights = [values[v] for v in names]
        bars = pg.BarGraphItem(
            x=list(range(len(names))),
            height=heights,
            width=0.7,
            brushes=[pg.mkBrush(variant_color(v)) for v in names],
            pens=[pg.mkPen(variant_color(v)) for v in names],
        )
        plot.addItem(bars)
        for i, h in enumerate(heights):
            text = pg.TextItem(f"{h:,}", color="#5d6d7e", anchor=(0.5, 1))
            text.setPos(i, h)
            plot.addItem(text)
        plot.getAxis("bottom").setTicks([list(enumerate(names))])
        plot.setYRange(0, max(heights) * 1.15)
        plot.setXRange(-0.6, len(names) - 0.4)
        plot.setTitle(
            self.tr("KV bytes per token, one layer, %1").replace(
                "%1", str(self.dtype.currentData())
            ),
            size=TITLE_SIZE,
        )

    # ---- export ----

    def export_csv(self, path: str | Path) -> int:
        """The rows as `workbench kernels --csv` writes them (protocol.RESULT_COLUMNS)."""
        return write_rows_csv(Path(path), self.rows)

    def export_charts(self, folder: str | Path, suffix: str = ".png") -> list[Path]:
        self.redraw()
        return [c.export(Path(folder) / f"{c.name}{suffix}") for c in self.charts]

    def _export_csv_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self, self.tr("Export kernel results"), "kernels.csv", "CSV (*.csv)"
        )
        if path:
            self._report_export(lambda: self.export_csv(path), self.tr("Wrote %1 rows to %2"), path)

    def _export_charts_dialog(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, self.tr("Export charts to folder"))
        if folder:
            self._report_export(
                lambda: len(
                    self.export_charts(folder, ".png") + self.export_charts(folder, ".svg")
                ),
                self.tr("Wrote %1 chart files to %2"),
                folder,
            )

    def _report_export(self, write: Callable[[], int], done: str, where: str) -> None:
        try:
            count = write()
        except (OSError, ValueError) as exc:
            self._show_error(self.tr("Export failed: %1").replace("%1", str(exc)))
            return
        self._show_info(done.replace("%1", str(count)).replace("%2", where))
