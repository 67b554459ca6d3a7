"""The Kernels tab's row for measured results from a file: Open CSV…, the shipped H200 sweep,
and which shapes and batch of the loaded CSV the charts draw."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSignalBlocker, Qt, Signal
from PySide6.QtWidgets import QComboBox, QFileDialog, QHBoxLayout, QLabel, QPushButton, QWidget

from kernels_bridge.analytic import HardwareProfile
from workbench.local.kernel_preset import resolve_kernel_csv
from workbench.ui.kernel_csv import (
    Drawing,
    KernelCsvError,
    LoadedCsv,
    ShapeEntry,
    load_kernel_csv,
)
from workbench.ui.live_label import LiveLabel
from workbench.ui.retranslate import Retranslating

PRESET = "h200"  # resources/kernels/h200_decode.csv: the sweep on one H200


class CsvRow(Retranslating, QWidget):
    """Loads a kernel CSV; `loaded` after a load that worked, `failed(compose)` after one that
    did not (the last CSV stays), `choice_changed` when the shapes or batch drawn change."""

    loaded = Signal()
    failed = Signal(object)  # the message's compose: () -> str
    choice_changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.csv: LoadedCsv | None = None
        self._entries: list[ShapeEntry] = []
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        self.open_button = QPushButton()
        self.open_button.clicked.connect(self.open_dialog)
        self.preset_button = QPushButton()
        self.preset_button.clicked.connect(self.load_preset)
        self.source_label = LiveLabel()  # composed again on a language switch
        self.source_label.setWordWrap(True)  # a long file name wraps, the window keeps its width
        self.shape_label = QLabel()
        self.shape = QComboBox()
        self.shape.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.shape.setMinimumContentsLength(20)  # the full name is its tooltip
        self.shape.currentIndexChanged.connect(self._shape_chosen)
        self.batch_label = QLabel()
        self.batch = QComboBox()
        self.batch.currentIndexChanged.connect(self.choice_changed)
        self.backend_label = QLabel()
        self.backend = QComboBox()
        self.backend.currentIndexChanged.connect(self.choice_changed)
        for w in (self.open_button, self.preset_button, self.source_label):
            row.addWidget(w)
        row.addStretch(1)
        for w in self._choice_widgets():
            row.addWidget(w)
        self._show_choices(False)
        self.retranslate()

    def retranslate(self) -> None:
        """The row's texts and the loaded CSV's shape names in the language installed; the
        shapes, batch and backend chosen stay."""
        self.open_button.setText(self.tr("Open CSV…"))
        self.open_button.setToolTip(
            self.tr("Show a kernel CSV (workbench kernels --csv, benchmarks/gpu_decode.py)")
        )
        self.preset_button.setText(self.tr("Load the H200 measurements"))
        self.preset_button.setToolTip(
            self.tr("The decode sweep measured on one NVIDIA H200, shipped with the app")
        )
        self.shape_label.setText(self.tr("shapes"))
        self.batch_label.setText(self.tr("batch"))
        self.backend_label.setText(self.tr("backend"))
        every = self.backend.findData("")
        if every >= 0:  # a CSV is loaded
            self.backend.setItemText(every, self.tr("all"))
        if self.csv is not None:
            self._entries = self.csv.shape_entries()  # the same entries, named anew
            for index, entry in enumerate(self._entries):
                self.shape.setItemText(index, entry.label)
                self.shape.setItemData(index, entry.label, Qt.ItemDataRole.ToolTipRole)
            chosen = self.entry()
            self.shape.setToolTip(chosen.label if chosen else "")

    def open_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, self.tr("Open a kernel CSV"), "", self.tr("CSV (*.csv);;All files (*)")
        )
        if path:
            self.load(Path(path))

    def load_preset(self) -> None:
        self.load(resolve_kernel_csv(PRESET))

    def load(self, path: Path) -> bool:
        """Show the CSV at `path`; False (with `failed` emitted) when it cannot be shown."""
        try:
            csv = load_kernel_csv(path)
        except KernelCsvError as exc:
            self.failed.emit(exc.compose)  # the message, in the language shown
            return False
        self.csv = csv
        self._entries = csv.shape_entries()
        with QSignalBlocker(self.shape), QSignalBlocker(self.batch):
            self.shape.clear()
            for entry in self._entries:
                self.shape.addItem(entry.label)
                self.shape.setItemData(
                    self.shape.count() - 1, entry.label, Qt.ItemDataRole.ToolTipRole
                )
            self.batch.clear()
            for b in csv.batches():
                self.batch.addItem(str(b), b)
            self.batch.setCurrentIndex(self.batch.count() - 1)  # the largest: the headline
            self.backend.clear()
            self.backend.addItem(self.tr("all"), "")
            for name in csv.backends():
                self.backend.addItem(name, name)
            # one backend's curves by default: all of them at once bury the roofline
            self.backend.setCurrentIndex(max(0, self.backend.findData("triton")))
        self.shape.setEnabled(len(self._entries) > 1)
        self.source_label.show_text(
            lambda: (
                self.tr("%1: %2 rows, %3")
                .replace("%1", path.name)
                .replace("%2", str(len(csv.rows)))
                .replace("%3", csv.device or self.tr("no device named"))
            )
        )
        self.source_label.setToolTip(str(path))
        self._show_choices(True)
        self.loaded.emit()
        return True

    def forget(self) -> None:
        """Back to the tab's own sweeps: no CSV drawn."""
        self.csv = None
        self._entries = []
        self.source_label.clear()
        self._show_choices(False)

    def entry(self) -> ShapeEntry | None:
        index = self.shape.currentIndex()
        return self._entries[index] if 0 <= index < len(self._entries) else None

    def chosen_batch(self) -> int:
        return int(self.batch.currentData() or 1)

    def drawing(self, variants: list[str], profile: HardwareProfile) -> Drawing | None:
        """What the charts draw of the loaded CSV; None when none is loaded."""
        entry = self.entry()
        if self.csv is None or entry is None:
            return None
        backend = str(self.backend.currentData() or "")
        return self.csv.drawing(entry, self.chosen_batch(), variants, profile, backend)

    def _shape_chosen(self) -> None:
        entry = self.entry()
        self.shape.setToolTip(entry.label if entry else "")
        self.choice_changed.emit()

    def _choice_widgets(self) -> tuple[QWidget, ...]:
        return (
            self.shape_label,
            self.shape,
            self.batch_label,
            self.batch,
            self.backend_label,
            self.backend,
        )

    def _show_choices(self, visible: bool) -> None:
        for w in self._choice_widgets():
            w.setVisible(visible)
