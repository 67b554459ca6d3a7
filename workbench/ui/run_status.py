"""A run's status word (the store's and runner's English keyword) in the UI's language."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication


def run_status_text(status: str) -> str:
    words = {
        "running": QCoreApplication.translate("RunStatus", "running"),
        "finished": QCoreApplication.translate("RunStatus", "finished"),
        "cancelled": QCoreApplication.translate("RunStatus", "cancelled"),
        "interrupted": QCoreApplication.translate("RunStatus", "interrupted"),
        "failed": QCoreApplication.translate("RunStatus", "failed"),
    }
    return words.get(status, status)
