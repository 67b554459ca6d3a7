"""A run's status in the UI's language: the store's and runner's English keyword, and how many
of its requests failed ("finished, 1 failed"), so a run with failures never reads as clean, and
how many the user stopped ("cancelled, 2 stopped"): a stop is the user's choice, not a failure."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication


def run_status_text(status: str, failed: int = 0, stopped: int = 0) -> str:
    words = {
        "running": QCoreApplication.translate("RunStatus", "running"),
        "finished": QCoreApplication.translate("RunStatus", "finished"),
        "cancelled": QCoreApplication.translate("RunStatus", "cancelled"),
        "interrupted": QCoreApplication.translate("RunStatus", "interrupted"),
        "failed": QCoreApplication.translate("RunStatus", "failed"),
    }
    word = words.get(status, status)
    if failed:
        word += QCoreApplication.translate("RunStatus", ", %1 failed").replace("%1", str(failed))
    if stopped:
        word += QCoreApplication.translate("RunStatus", ", %1 stopped").replace("%1", str(stopped))
    return word
