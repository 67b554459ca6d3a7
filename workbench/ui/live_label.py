"""A label whose text is composed from state when shown and composed again on a language
switch: a status line ("3 models listed by …") keeps its facts and follows the language."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QLabel, QWidget

from workbench.ui.retranslate import Retranslating

Compose = Callable[[], str]


class LiveLabel(Retranslating, QLabel):
    """`compose` returns the text in the language installed; it runs now and on each switch."""

    def __init__(self, compose: Compose | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._compose: Compose | None = None
        if compose is not None:
            self.show_text(compose)

    def show_text(self, compose: Compose) -> None:
        self._compose = compose
        self.setText(compose())

    def clear(self) -> None:
        self._compose = None
        super().clear()

    def retranslate(self) -> None:
        if self._compose is not None:
            self.setText(self._compose())
