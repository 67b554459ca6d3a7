"""One place for unexpected exceptions: logged, written to a crash file, and shown one dialog at a
time (its details, Copy, the crash file's and the log's paths), never a flood."""

from __future__ import annotations

import asyncio
import logging
import sys
import threading
import traceback
from collections import deque
from pathlib import Path
from types import TracebackType
from typing import Any

from PySide6.QtWidgets import QWidget

from workbench.core.foundation.redaction import redact
from workbench.core.system.app_log import write_crash_file

log = logging.getLogger(__name__)


class ErrorSink:
    """Collects unexpected errors from sys.excepthook, threads and the asyncio loop.

    With `folder`, each error is written to a crash file there; `log_file` is the log's path
    the dialog names (None when the app runs without a log file)."""

    def __init__(
        self,
        parent: QWidget | None = None,
        show_dialogs: bool = True,
        folder: Path | None = None,
        log_file: Path | None = None,
    ) -> None:
        self.parent = parent
        self.show_dialogs = show_dialogs
        self.folder = folder
        self.log_file = log_file
        self.pending: deque[tuple[str, Path | None]] = deque(maxlen=20)
        self.seen: list[str] = []
        self.dialog: Any = None
        self._previous_hook = sys.excepthook
        self._previous_thread_hook = threading.excepthook
        self._loop: asyncio.AbstractEventLoop | None = None

    def install(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        sys.excepthook = self._excepthook
        threading.excepthook = self._thread_hook
        loop.set_exception_handler(self._loop_handler)

    def uninstall(self) -> None:
        sys.excepthook = self._previous_hook
        threading.excepthook = self._previous_thread_hook
        if self._loop is not None:
            self._loop.set_exception_handler(None)

    def report(self, message: str, crash_file: Path | None = None) -> None:
        message = redact(message)
        if crash_file is None and self.folder is not None:
            try:
                crash_file = write_crash_file(message, self.folder)
            except OSError as exc:
                log.warning("cannot write a crash file in %s: %s", self.folder, exc)
        log.error("unexpected error (crash report %s): %s", crash_file, message)
        self.seen.append(message)
        self.pending.append((message, crash_file))
        self._show_next()

    def _show_next(self) -> None:
        if self.dialog is not None or not self.pending or not self.show_dialogs:
            return
        from workbench.ui.crash_dialog import CrashDialog

        text, crash_file = self.pending.popleft()
        self.dialog = CrashDialog(text, crash_file, self.log_file, parent=self.parent)
        self.dialog.finished.connect(self._closed)
        self.dialog.open()
        log.info("crash report shown: %s", crash_file)

    def _closed(self, _result: int) -> None:
        self.dialog = None
        self._show_next()

    def _excepthook(
        self, kind: type[BaseException], value: BaseException, tb: TracebackType | None
    ) -> None:
        self.report("".join(traceback.format_exception(kind, value, tb)))

    def _thread_hook(self, args: threading.ExceptHookArgs) -> None:
        text = "".join(
            traceback.format_exception(args.exc_type, args.exc_value, args.exc_traceback)
        )
        name = args.thread.name if args.thread is not None else "a thread"
        message = f"in thread {name}:\n{text}"
        if self._loop is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self.report, message)  # Qt widgets: UI thread only
        else:
            log.error("unexpected error %s", message)

    def _loop_handler(self, _loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        exc = context.get("exception")
        if exc is not None:
            self.report("".join(traceback.format_exception(exc)))
        else:
            self.report(str(context.get("message", "unknown asyncio error")))
