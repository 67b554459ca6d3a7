"""The Kernels tab's run row: Run and Cancel, the sweep's progress, the device it times on,
and the exports; its texts follow a language switch, composed again from what they report."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QWidget,
)

from kernels_bridge.client.jobs import target_device
from kernels_bridge.protocol import Hello
from workbench.ui.live_label import Compose, LiveLabel
from workbench.ui.retranslate import Retranslating
from workbench.ui.theme import show_status


class RunRow(Retranslating, QWidget):
    """The buttons' clicks are wired by the view; the row shows what the view reports."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        self.run_button, self.cancel_button = QPushButton(), QPushButton()
        self.cancel_button.setEnabled(False)
        self.progress = QProgressBar()
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        self.progress.setMaximumWidth(260)
        self.progress_label = LiveLabel()
        self.device_label = QLabel()
        self.export_csv_button, self.export_charts_button = QPushButton(), QPushButton()
        for w in (self.run_button, self.cancel_button, self.progress):
            row.addWidget(w)
        # the two texts share the room half and half, wrapped: the CPU's warning on one line
        # widened the window by 400 px, and a width that followed the progress text moved the
        # Cancel button up and down under the pointer at every row
        for label in (self.progress_label, self.device_label):
            label.setWordWrap(True)
            policy = label.sizePolicy()
            policy.setHorizontalPolicy(QSizePolicy.Policy.Ignored)
            label.setSizePolicy(policy)
            row.addWidget(label, 1)
        row.addWidget(self.export_csv_button)
        row.addWidget(self.export_charts_button)
        self._device: tuple[Hello | None, str] = (None, "")  # the worker's hello, the dtype
        self.retranslate()

    def retranslate(self) -> None:
        """The buttons and the device in the language installed (the progress recomposes
        itself)."""
        self.run_button.setText(self.tr("Run"))
        self.cancel_button.setText(self.tr("Cancel"))
        self.export_csv_button.setText(self.tr("Export CSV…"))
        self.export_charts_button.setText(self.tr("Export charts…"))
        self.show_device(*self._device)

    def set_running(self, running: bool) -> None:
        self.run_button.setEnabled(not running)
        self.cancel_button.setEnabled(running)

    def set_progress(self, done: int, total: int, what: Compose | None = None) -> None:
        """`done` of `total` combinations, and what the worker does now."""
        self.progress.setRange(0, max(1, total))
        self.progress.setValue(min(done, max(1, total)))

        def text() -> str:
            counts = self.tr("%1 of %2").replace("%1", str(done)).replace("%2", str(total))
            return f"{counts}  {what() if what else ''}".rstrip()

        self.progress_label.show_text(text)

    def show_not_started(self) -> None:
        """A sweep that ended before its first combination (no worker, no torch, a backend
        missing): the bar empties and the text points at the reason shown above."""
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        self.progress_label.show_text(lambda: self.tr("Not started: see the message above."))

    def show_cancelled(self, rows: int) -> None:
        self.progress_label.show_text(
            lambda: self.tr("Cancelled after %1 rows.").replace("%1", str(rows))
        )

    def show_device(self, hello: Hello | None, dtype: str) -> None:
        """Where the sweep times: a CUDA device's name, or the CPU's wall clock (a warning)."""
        self._device = (hello, dtype)
        if hello is None or hello.torch_version is None:
            self.device_label.setText("")
            return
        if target_device(hello) == "cpu":
            self.device_label.setText(
                self.tr(
                    "CPU (wall-clock): no CUDA device; the reference backend times on the CPU "
                    "in %1 as chosen (fp32 runs faster there)"
                ).replace("%1", dtype)
            )
            show_status(self.device_label, "warning", bold=True)  # slower than a GPU
        else:
            names = [str(d.get("name", "?")) for d in hello.devices if d.get("kind") == "cuda"]
            self.device_label.setText(
                self.tr("%1 (CUDA events)").replace("%1", names[0] if names else "cuda")
            )
            show_status(self.device_label, "ok", bold=True)
