"""One place for unexpected exceptions: logged, and shown one dialog at a time, never a flood."""

from __future__ import annotations

import asyncio
import logging
import sys
import traceback
from collections import deque
from types import TracebackType
from typing import Any

from PySide6.QtWidgets import QMessageBox, QWidget

from workbench.core.secrets import redact

log = logging.getLogger(__name__)


class ErrorSink:
    """Collects unexpected errors from sys.excepthook and the asyncio loop."""

    def __init__(self, parent: QWidget | None = None, show_dialogs: bool = True) -> None:
        self.parent = parent
        self.show_dialogs = show_dialogs
        self.pending: deque[str] = deque(maxlen=20)
        self.seen: list[str] = []
        self._open = False
        self._previous_hook = sys.excepthook
        self._loop: asyncio.AbstractEventLoop | None = None

    def install(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        sys.excepthook = self._excepthook
        loop.set_exception_handler(self._loop_handler)

    def uninstall(self) -> None:
        sys.excepthook = self._previous_hook
        if self._loop is not None:
            self._loop.set_exception_handler(None)

    def report(self, message: str) -> None:
        message = redact(message)
        log.error("unexpected error: %s", message)
        self.seen.append(message)
        self.pending.append(message)
        self._show_next()

    def _show_next(self) -> None:
        if self._open or not self.pending or not self.show_dialogs:
            return
        self._open = True
        text = self.pending.popleft()
        box = QMessageBox(
            QMessageBox.Icon.Warning,
            "Attention Workbench",
            text.splitlines()[0][:300],
            parent=self.parent,
        )
        box.setDetailedText(text)
        box.finished.connect(self._closed)
        box.open()

    def _closed(self, _result: int) -> None:
        self._open = False
        self._show_next()

    def _excepthook(
        self, kind: type[BaseException], value: BaseException, tb: TracebackType | None
    ) -> None:
        self.report("".join(traceback.format_exception(kind, value, tb)))

    def _loop_handler(self, _loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        exc = context.get("exception")
        if exc is not None:
            self.report("".join(traceback.format_exception(exc)))
        else:
            self.report(str(context.get("message", "unknown asyncio error")))
