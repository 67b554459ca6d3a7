"""The Providers tab's connection test: the doctor's checks in a table, one row each (mark,
name, evidence; a failure adds its cause and fix), and a summary that leads with the first fix.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QGroupBox,
    QHeaderView,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from workbench.core.doctor import passed
from workbench.core.foundation.i18n import Phrase
from workbench.core.foundation.redaction import redact
from workbench.ui.live_label import Compose, LiveLabel
from workbench.ui.provider_controller import DoctorReport
from workbench.ui.retranslate import Retranslating
from workbench.ui.theme import follow_item_status, mark_item, show_status

MARKS = {"ok": "✓", "fail": "✗", "skip": "–"}
MARK_STATUS = {"ok": "ok", "fail": "failed", "skip": "skipped"}  # a mark's theme colour
CHECK_ROLE = Qt.ItemDataRole.UserRole


def localized(phrases: tuple[Phrase, ...]) -> str:
    """A doctor's evidence, cause or fix in the UI's language."""
    return redact("".join(p.render(QCoreApplication.translate) for p in phrases))


class ConnectionTest(Retranslating, QGroupBox):
    """The last doctor report of the provider in the form; `report` is None until one ran."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.report: DoctorReport | None = None
        self.doctor_summary = LiveLabel()  # composed again on a language switch
        self.doctor_summary.setWordWrap(True)
        self.checks_table = QTableWidget(0, 3)
        follow_item_status(self.checks_table)
        self.checks_table.verticalHeader().hide()
        self.checks_table.setWordWrap(True)
        self.checks_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.checks_table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        header = self.checks_table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.checks_table.setMinimumHeight(160)
        layout = QVBoxLayout(self)
        layout.addWidget(self.doctor_summary)
        layout.addWidget(self.checks_table, 1)
        self.retranslate()
        self.clear()

    def retranslate(self) -> None:
        """The title, the headers and the rows of the report shown in the language installed
        (the doctor summary recomposes itself); the selected row stays selected."""
        self.setTitle(self.tr("Connection test"))
        self.checks_table.setAccessibleName(self.tr("Connection checks"))
        self.checks_table.setHorizontalHeaderLabels(["", self.tr("Check"), self.tr("Result")])
        if self.report is not None:
            self._fill_rows(self.report, self._check_titles())

    def clear(self) -> None:
        self.checks_table.setRowCount(0)
        self.show_phase(lambda: self.tr("Not run yet."))
        self.report = None

    def show_phase(self, compose: Compose) -> None:
        """A summary without a report (testing, not run), in the language shown."""
        show_status(self.doctor_summary, None)
        self.doctor_summary.show_text(compose)

    def show_report(self, report: DoctorReport) -> tuple[int, int, int]:
        """One row per check, and the summary; (passed, failed, skipped)."""
        self.report = report
        titles = self._check_titles()
        self.checks_table.setRowCount(len(report.checks))
        self._fill_rows(report, titles)
        self.checks_table.resizeRowsToContents()
        ran = [c for c in report.checks if not c.skipped]
        failed = len([c for c in ran if not c.ok])
        skipped = len(report.checks) - len(ran)
        self.doctor_summary.show_text(lambda: redact(self._summary(report, self._check_titles())))
        show_status(self.doctor_summary, "failed" if failed else None)
        return len(ran) - failed, failed, skipped

    def _fill_rows(self, report: DoctorReport, titles: dict[str, str]) -> None:
        """The table's rows from `report`: a mark, the check's title, its evidence."""
        for row, check in enumerate(report.checks):
            state = "skip" if check.skipped else ("ok" if check.ok else "fail")
            mark = QTableWidgetItem(MARKS[state])
            mark_item(mark, MARK_STATUS[state])
            mark.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
            title = titles.get(check.name, check.name)
            # which protocol and path the check sent to ("anthropic /v1/messages"), as the CLI says
            name = QTableWidgetItem(f"{title} ({check.tested})" if check.tested else title)
            name.setData(CHECK_ROLE, check.name)
            name.setToolTip(check.name)
            text = localized(check.evidence_phrases)
            if state == "fail":
                text += "\n" + self.tr("Cause: %1").replace("%1", localized(check.cause_phrases))
                text += "\n" + self.tr("Fix: %1").replace("%1", localized(check.fix_phrases))
                mark_item(name, "failed")
            details = QTableWidgetItem(redact(text))
            details.setToolTip(redact(text))
            for column, item in enumerate((mark, name, details)):
                self.checks_table.setItem(row, column, item)

    def _summary(self, report: DoctorReport, titles: dict[str, str]) -> str:
        """All passed, or how many failed and the first one's fix; then the key and warnings."""
        ran = [c for c in report.checks if not c.skipped]
        failed = [c for c in ran if not c.ok]
        if passed(report.checks):
            summary = (
                self.tr("✓ All checks passed (%1 passed, %2 skipped).")
                .replace("%1", str(len(ran)))
                .replace("%2", str(len(report.checks) - len(ran)))
            )
        else:
            first = failed[0]
            first_fix = localized(first.fix_phrases) or localized(first.cause_phrases)
            summary = (
                self.tr("✗ %1 check(s) failed. First: %2 — %3")
                .replace("%1", str(len(failed)))
                .replace("%2", titles.get(first.name, first.name))
                .replace("%3", first_fix)
            )
        key = report.key_source_shown or report.key_source
        summary += "\n" + self.tr("Key: %1").replace("%1", key)
        for warning in report.warnings:
            said = redact(warning.render(QCoreApplication.translate))
            summary += "\n" + self.tr("Warning: %1").replace("%1", said)
        return summary

    def check_row(self, name: str) -> tuple[str, str, str] | None:
        """(mark, title, details) of the check called `name` in the table."""
        for row in range(self.checks_table.rowCount()):
            title = self.checks_table.item(row, 1)
            if title is not None and title.data(CHECK_ROLE) == name:
                return (
                    self.checks_table.item(row, 0).text(),
                    title.text(),
                    self.checks_table.item(row, 2).text(),
                )
        return None

    def _check_titles(self) -> dict[str, str]:
        return {
            "base_url": self.tr("Base URL"),
            "proxy": self.tr("Proxy"),
            "dns": self.tr("DNS"),
            "tcp": self.tr("TCP connection"),
            "tls": self.tr("TLS"),
            "models_path": self.tr("API path (/v1)"),
            "auth": self.tr("Key (auth)"),
            "model": self.tr("Model"),
            "stream": self.tr("Streamed reply"),
            "rate_limit": self.tr("Rate limit / quota"),
            "html": self.tr("HTML instead of JSON"),
            "baseline": self.tr("Network round trip"),
        }
