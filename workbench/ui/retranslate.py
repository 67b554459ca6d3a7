"""A language switch reaching a widget: Qt sends every widget a LanguageChange event when a
translator is installed or removed; a widget with this mixin then sets its texts again."""

from __future__ import annotations

from PySide6.QtCore import QEvent


class Retranslating:
    """Mixed in before the Qt widget class; the widget defines `retranslate()`."""

    def retranslate(self) -> None:
        raise NotImplementedError

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)  # type: ignore[misc]
