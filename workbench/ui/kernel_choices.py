"""The Kernels tab's sweep choices: variants, KV lengths, batch, query length, dtype, backend,
timed launches and the roofline's hardware profile.

Batch and profile follow the worker's device until the user sets them; the dtype never changes
by itself (the KV bytes chart and every row would silently mean another precision).
"""

from __future__ import annotations

from PySide6.QtCore import QSignalBlocker, Qt, Signal
from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from kernels_bridge.analytic import HardwareProfile, get_profile, load_hardware_profiles
from kernels_bridge.bench_names import BACKENDS
from kernels_bridge.client.jobs import defaults_for
from kernels_bridge.protocol import Hello, ResultRow
from kernels_bridge.specs import VARIANTS
from workbench.core.foundation.token_counts import tokens_label
from workbench.ui.fitted_text import ElidedComboBox
from workbench.ui.kernel_charts import KV_CHOICES
from workbench.ui.retranslate import Retranslating

DEFAULT_VARIANTS = ("gqa", "mla")
DEFAULT_KV = (1024, 4096, 16384)
DTYPE_CHOICES = ("bf16", "fp16", "fp32")
DEFAULT_PROFILE = "H200"


class SweepChoices(Retranslating, QWidget):
    """The controls of one sweep; `changed` whenever the charts' analytic parts change."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.profiles: dict[str, HardwareProfile] = load_hardware_profiles()
        self._touched: set[str] = set()
        self._hello: Hello | None = None  # what the worker offered, for the backends' tooltips
        self.labels: dict[str, QLabel] = {}  # the controls' labels, by what they name
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(self._build_selection())
        layout.addLayout(self._build_options())
        self.retranslate()

    def _label(self, name: str) -> QLabel:
        self.labels[name] = QLabel()
        return self.labels[name]

    def retranslate(self) -> None:
        """The labels and choices in the language installed; what is chosen stays."""
        for name, text in (
            ("variants", self.tr("Variants:")),
            ("kv", self.tr("KV lengths:")),
            ("batch", self.tr("batch")),
            ("q_len", self.tr("query length")),
            ("dtype", self.tr("dtype")),
            ("backend", self.tr("backend")),
            ("iters", self.tr("timed launches")),
            ("profile", self.tr("roofline on")),
        ):
            self.labels[name].setText(text)
        self.iters.setSpecialValueText(self.tr("auto"))
        self.iters.setToolTip(self.tr("Launches timed per row; auto: 5 on the CPU, 30 on a GPU"))
        for index in range(self.profile.count()):
            key = str(self.profile.itemData(index))
            p = self.profiles[key]
            self.profile.setItemText(
                index,
                self.tr("%1 (%2 TB/s, %3 TFLOP/s)")
                .replace("%1", key)
                .replace("%2", f"{p.mem_bandwidth_tbs:g}")
                .replace("%3", f"{p.peak_bf16_tflops:g}"),
            )
        self.fill_backends(self._hello)  # their tooltips

    # ---- building ----

    def _build_selection(self) -> QGridLayout:
        grid = QGridLayout()
        grid.addWidget(self._label("variants"), 0, 0)
        self.variant_boxes: dict[str, QCheckBox] = {}
        for i, v in enumerate(VARIANTS):
            box = QCheckBox(v)
            box.setChecked(v in DEFAULT_VARIANTS)
            box.toggled.connect(self.changed)
            self.variant_boxes[v] = box
            grid.addWidget(box, 0, 1 + i)
        grid.addWidget(self._label("kv"), 1, 0)
        self.kv_boxes: dict[int, QCheckBox] = {}
        for i, n in enumerate(KV_CHOICES):
            box = QCheckBox(tokens_label(n))
            box.setChecked(n in DEFAULT_KV)
            box.toggled.connect(self.changed)
            self.kv_boxes[n] = box
            grid.addWidget(box, 1, 1 + i)
        grid.setColumnStretch(len(VARIANTS) + 1, 1)
        return grid

    def _build_options(self) -> QHBoxLayout:
        row = QHBoxLayout()
        row.addWidget(self._label("batch"))
        self.batch = QSpinBox()
        self.batch.setRange(1, 4096)
        self.batch.setValue(1)
        self.batch.valueChanged.connect(lambda: self._touch("batch"))
        row.addWidget(self.batch)
        row.addWidget(self._label("q_len"))
        self.q_len = QSpinBox()
        self.q_len.setRange(1, 64)
        self.q_len.valueChanged.connect(self.changed)
        row.addWidget(self.q_len)
        row.addWidget(self._label("dtype"))
        self.dtype = QComboBox()
        for d in DTYPE_CHOICES:
            self.dtype.addItem(d, d)
        self.dtype.activated.connect(lambda: self._touch("dtype"))
        self.dtype.currentIndexChanged.connect(self.changed)
        row.addWidget(self.dtype)
        row.addWidget(self._label("backend"))
        self.backend = QComboBox()
        self.backend.setMinimumWidth(140)
        row.addWidget(self.backend)
        row.addWidget(self._label("iters"))
        self.iters = QSpinBox()
        self.iters.setRange(0, 1_000_000)
        row.addWidget(self.iters)
        row.addWidget(self._label("profile"))
        row.addWidget(self._build_profile())
        row.addStretch(1)
        return row

    def _build_profile(self) -> QComboBox:
        self.profile = ElidedComboBox()  # elided where the row is narrower than its text
        for key, p in self.profiles.items():
            self.profile.addItem(key, key)  # its text, with the figures, is set in retranslate
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
        self.profile.currentIndexChanged.connect(self.changed)
        return self.profile

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

    def follow(self, rows: list[ResultRow], profile: HardwareProfile | None) -> None:
        """Take the variants, KV lengths, dtype and roofline profile of loaded rows, so the
        bars, the roofline and the labels describe them."""
        self.set_variants(sorted({r.variant for r in rows}))
        self.set_kv_lens(sorted({r.kv_len for r in rows}))
        dtypes = {r.dtype for r in rows}
        if len(dtypes) == 1:
            self.set_dtype(dtypes.pop())
        if profile is not None:
            self.set_profile(profile.key)

    def selected_profile(self) -> HardwareProfile:
        key = self.profile.currentData()
        return self.profiles.get(key) or get_profile(DEFAULT_PROFILE)

    def _touch(self, name: str) -> None:
        self._touched.add(name)
        self.changed.emit()

    # ---- what the worker offers ----

    def fill_backends(self, hello: Hello | None) -> None:
        """All backends; those the worker says it cannot run are disabled, with its reason."""
        self._hello = hello
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

    def apply_device_defaults(self, hello: Hello, on_cpu: bool) -> None:
        """Batch and profile follow the device unless the user has chosen them. The dtype never
        changes by itself (the CPU reference runs bf16; the device label says fp32 is faster
        there)."""
        d = defaults_for(on_cpu)
        if "batch" not in self._touched:
            with QSignalBlocker(self.batch):
                self.batch.setValue(d.batch)
        if "profile" not in self._touched:
            detected = [x.get("profile") for x in hello.devices if x.get("profile")]
            key = str(detected[0]) if detected and not on_cpu else DEFAULT_PROFILE
            with QSignalBlocker(self.profile):
                self.profile.setCurrentIndex(max(0, self.profile.findData(key)))
