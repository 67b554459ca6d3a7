"""The dialog an unexpected error shows: its details, a Copy button, and where the crash file
and the log are, so a user can send them (all redacted, workbench/core/system/app_log.py)."""

from __future__ import annotations

import faulthandler
import logging
from pathlib import Path

from PySide6.QtCore import Qt, QTimer, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from workbench.core.access.keys import key_from_env
from workbench.core.foundation.redaction import redact
from workbench.core.system import app_log

log = logging.getLogger(__name__)


class CrashDialog(QDialog):
    """Details (redacted), the crash file's and the log's paths, Copy, Open the log folder."""

    def __init__(
        self,
        details: str,
        crash_file: Path | None,
        log_file: Path | None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("crashDialog")
        self.setWindowTitle(self.tr("Attention Workbench: unexpected error"))
        self.details = redact(details)
        self.crash_file = crash_file
        self.log_file = log_file
        layout = QVBoxLayout(self)
        intro = QLabel(
            self.tr(
                "Something went wrong. The details below, the crash file and the log help find "
                "the cause; keys and passwords are masked in all of them."
            )
        )
        intro.setWordWrap(True)
        layout.addWidget(intro)
        self.text = QPlainTextEdit(self.details)
        self.text.setObjectName("crashDetails")
        self.text.setReadOnly(True)
        layout.addWidget(self.text)
        self.paths = QLabel(self.paths_text())
        self.paths.setObjectName("crashPaths")
        self.paths.setWordWrap(True)
        self.paths.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.paths)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.copy_button = QPushButton(self.tr("Copy"))
        self.copy_button.setObjectName("crashCopy")
        self.copy_button.clicked.connect(self.copy)
        buttons.addButton(self.copy_button, QDialogButtonBox.ButtonRole.ActionRole)
        self.folder_button = QPushButton(self.tr("Open the log folder"))
        self.folder_button.clicked.connect(open_log_folder)
        buttons.addButton(self.folder_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.resize(640, 420)

    def paths_text(self) -> str:
        lines = []
        if self.crash_file is not None:
            lines.append(self.tr("Crash file: {0}").format(self.crash_file))
        if self.log_file is not None:
            lines.append(self.tr("Log: {0}").format(self.log_file))
        return "\n".join(lines)

    def copy(self) -> None:
        """The details and the paths onto the clipboard, ready to paste into a report."""
        QApplication.clipboard().setText(f"{self.details.rstrip()}\n\n{self.paths_text()}\n")


def open_log_folder() -> bool:
    """The data folder (the log and the crash files) in the desktop's file manager."""
    folder = app_log.current_log_file()
    folder = folder.parent if folder is not None else app_log.log_folder()
    return QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder)))


def force_test_crash(kind: str) -> None:
    """$WORKBENCH_TEST_CRASH: `exception` raises in a Qt slot, with a key from
    $WORKBENCH_TEST_CRASH_KEY in its text as a server's echo would carry one; `segfault` dies
    of SIGSEGV. Only tests set it."""
    if kind == "segfault":
        app_log.flush()
        faulthandler._sigsegv()  # type: ignore[attr-defined]
    elif kind == "exception":
        key = key_from_env("WORKBENCH_TEST_CRASH_KEY") or "none"

        def fail() -> None:
            raise RuntimeError(
                f"forced crash ({app_log.TEST_CRASH_ENV}): the server echoed "
                f"'Authorization: Bearer {key}' for https://user:{key}@127.0.0.1/v1"
            )

        QTimer.singleShot(0, fail)
    else:
        log.warning("%s=%r is not a crash this build can force", app_log.TEST_CRASH_ENV, kind)
