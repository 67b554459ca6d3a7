"""The import preview dialog of the Providers tab: what an import found and what Save will do,
keys redacted; nothing is written until the user presses Save."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from workbench.core.access.providers import Provider
from workbench.core.foundation.i18n import Phrase, localize
from workbench.core.foundation.redaction import redact
from workbench.core.foundation.token_counts import tokens_label
from workbench.core.importers import FoundKey
from workbench.core.importers.save import NEW
from workbench.ui.model_list import Facts
from workbench.ui.provider_controller import ImportPreview


class ImportPreviewDialog(QDialog):
    """The preview in words; Save or Cancel. `facts(model_id, provider)` describes a model."""

    def __init__(
        self,
        preview: ImportPreview,
        facts: Callable[[str, Provider], Facts],
        parent: QWidget | None,
    ) -> None:
        super().__init__(parent)
        self.preview = preview
        self._facts = facts
        self.setWindowTitle(self.tr("Import providers"))
        self.resize(760, 520)
        self.summary = QPlainTextEdit()
        self.summary.setReadOnly(True)
        self.summary.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.summary.setPlainText(redact("\n".join(self.lines())))
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        self.save_button = self.buttons.button(QDialogButtonBox.StandardButton.Save)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        intro = QLabel(
            self.tr(
                "Nothing is saved until you press Save. Keys are never written to a file: "
                "they stay environment-variable references or go to the OS keyring."
            )
        )
        intro.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.summary, 1)
        layout.addWidget(self.buttons)

    def lines(self) -> list[str]:
        """Providers, base URLs, models, where each key comes from; then keyring and warnings."""
        result, plan = self.preview.result, self.preview.plan
        lines = [self.tr("Found: %1 (%2)").replace("%1", result.source).replace("%2", result.kind)]
        for kind, file in result.parts:
            lines.append(self.tr("  read %1 (%2)").replace("%1", file).replace("%2", kind))
        for planned in plan.providers:
            provider = next(
                (p for p in result.providers if p.name == planned.imported_as), planned.provider
            )
            said = planned.said.render(QCoreApplication.translate)
            note = "" if planned.said is NEW else f" — {said}"
            action = self._actions().get(planned.action, planned.action)
            lines += ["", f"{planned.name}  [{action}]{note}"]
            lines += self._provider_lines(provider, result.url_notes.get(provider.name, ()))
            found = result.keys.get(provider.name, FoundKey.missing())
            source = found.said().render(QCoreApplication.translate)
            lines.append(self.tr("  key       from %1").replace("%1", source))
            key_plan = plan.key_for(planned.name)
            if key_plan is not None:
                lines.append(f"            → {key_plan.said.render(QCoreApplication.translate)}")
        if any(k.action in ("keyring", "unsaved") for k in plan.keys):
            lines += [
                "",
                self.tr("Keyring: %1").replace(
                    "%1", self.preview.keyring.render(QCoreApplication.translate)
                ),
            ]
        if result.warnings:
            lines += ["", self.tr("Warnings:")]
            lines += [f"  - {localize(w, QCoreApplication.translate)}" for w in result.warnings]
        if not plan.changes:
            lines += ["", self.tr("Nothing new: these providers are already saved.")]
        return [redact(line) for line in lines]

    def _actions(self) -> dict[str, str]:
        """What Save does to a provider, in the window's language."""
        return {
            "new": self.tr("new"),
            "update": self.tr("update"),
            "unchanged": self.tr("unchanged"),
        }

    def _provider_lines(self, provider: Provider, url_notes: tuple[Phrase, ...]) -> list[str]:
        lines = [self.tr("  base URL  %1").replace("%1", provider.base_url)]
        for url_note in url_notes:  # what the base URL's normalisation changed, in our language
            said = url_note.render(QCoreApplication.translate)
            lines.append(self.tr("            note: %1").replace("%1", said))
        if not provider.models:
            lines.append(self.tr("  models    (none in the file)"))
        for model in provider.models:
            facts = self._facts(model.id, provider)
            ctx = tokens_label(facts.context_window) if facts.context_window else "?"
            lines.append(
                self.tr("  model     %1  %2, %3 ctx")
                .replace("%1", model.id)
                .replace("%2", facts.attention or "?")
                .replace("%3", ctx)
            )
        if provider.headers:
            lines.append(self.tr("  headers   %1").replace("%1", ", ".join(provider.headers)))
        return lines
