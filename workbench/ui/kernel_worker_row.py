"""The Kernels tab's worker row: which worker to use (an auto-detected Python, a given one, or
a TCP address and token), the Connect button and the worker's status line."""

from __future__ import annotations

import re

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QLineEdit, QPushButton, QWidget

from kernels_bridge.client.run_controller import WorkerChoice
from kernels_bridge.protocol import Hello
from workbench.ui.live_label import Compose, LiveLabel
from workbench.ui.retranslate import Retranslating

NOTE_STYLE = "color: palette(mid);"
# the exception in the worker's note "torch is not importable in X (Type: text); install it ..."
_RAISED = re.compile(r"\((\w+: .*)\); install")


def no_torch_words(hello: Hello) -> str:
    """Why a worker without torch cannot run kernels, in the UI's language; the exception its
    Python raised is quoted verbatim, as a server's message is (the worker's note is English)."""
    raised = next((m.group(1) for n in hello.notes if (m := _RAISED.search(n))), None)
    if raised is None:
        return " ".join(hello.notes) or QCoreApplication.translate(
            "KernelsView", "the worker's Python cannot import torch"
        )
    return (
        QCoreApplication.translate(
            "KernelsView", "the worker's Python (%1) cannot import torch: %2"
        )
        .replace("%1", hello.python)
        .replace("%2", raised)
    )


def parse_host_port(text: str) -> tuple[str, int]:
    """'host:port' -> (host, port); a bare ':port' means 127.0.0.1. ValueError otherwise."""
    host, sep, port = text.strip().rpartition(":")
    if not sep or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(text)
    return host or "127.0.0.1", int(port)


class WorkerRow(Retranslating, QWidget):
    """The fields of the chosen mode only; the token field never shows its text."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        self.worker_label = QLabel()
        row.addWidget(self.worker_label)
        self.worker_mode = QComboBox()
        for mode in ("auto", "python", "connect"):
            self.worker_mode.addItem("", mode)
        self.worker_mode.currentIndexChanged.connect(self._on_worker_mode)
        row.addWidget(self.worker_mode)
        self.python_edit = QLineEdit()
        row.addWidget(self.python_edit, 2)
        self.host_edit = QLineEdit()
        row.addWidget(self.host_edit, 1)
        self.token_edit = QLineEdit()
        self.token_edit.setEchoMode(QLineEdit.EchoMode.Password)
        row.addWidget(self.token_edit)
        self.connect_button = QPushButton()
        row.addWidget(self.connect_button)
        # the worker's state, composed again on a language switch
        self.worker_status = LiveLabel(
            lambda: self.tr("No worker yet: it starts on Run or Connect.")
        )
        self.worker_status.setStyleSheet(NOTE_STYLE)
        self.worker_status.setWordWrap(True)  # a long status takes lines, not the window's width
        row.addWidget(self.worker_status, 3)
        self.retranslate()
        self._on_worker_mode()

    def retranslate(self) -> None:
        """The row's texts in the language installed; the mode chosen and the fields stay."""
        self.worker_label.setText(self.tr("Worker:"))
        for mode, text in (
            ("auto", self.tr("Auto-detect a Python with torch")),
            ("python", self.tr("This Python")),
            ("connect", self.tr("Connect to HOST:PORT")),
        ):
            self.worker_mode.setItemText(self.worker_mode.findData(mode), text)
        self.python_edit.setAccessibleName(self.tr("Worker Python"))
        self.python_edit.setPlaceholderText(self.tr("path of a Python interpreter that has torch"))
        self.host_edit.setAccessibleName(self.tr("Worker address"))
        self.host_edit.setPlaceholderText(self.tr("127.0.0.1:7777 (an SSH tunnel to the GPU box)"))
        self.token_edit.setAccessibleName(self.tr("Worker token"))
        self.token_edit.setPlaceholderText(self.tr("token"))
        self.connect_button.setText(self.tr("Connect"))

    def show_status(self, compose: Compose) -> None:
        """The worker's state, in the language shown now and after each switch."""
        self.worker_status.show_text(compose)

    def _on_worker_mode(self) -> None:
        mode = self.worker_mode.currentData()
        self.python_edit.setVisible(mode == "python")
        self.host_edit.setVisible(mode == "connect")
        self.token_edit.setVisible(mode == "connect")

    def use_python(self, path: str) -> None:
        """Run the worker with this interpreter (instead of the auto-detected one)."""
        self.worker_mode.setCurrentIndex(self.worker_mode.findData("python"))
        self.python_edit.setText(path)

    def choice(self) -> WorkerChoice:
        """The worker the fields ask for; ValueError carrying the user's fix."""
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

    def set_running(self, running: bool) -> None:
        """No worker changes while a sweep runs."""
        self.connect_button.setEnabled(not running)
        self.worker_mode.setEnabled(not running)
