"""The log file and the crash reports a user can send, both in the data folder and redacted.

- `workbench.log`: a rotating log (3 files of 1 MB) with the versions, the platform, the runs
  started and finished, and every warning and error; each record goes through `redact`.
- `crash-YYYYmmdd-HHMMSS.txt`: one per unexpected exception, redacted, with the versions.
- `fatal-signal.txt`: where faulthandler writes when the process dies of a signal (a crash in
  Qt or a C library). Nothing Python can run then, so the next start turns it into a crash file.
All three are owner-only (0600); no Qt here: the dialog that shows a crash lives in the UI.
"""

from __future__ import annotations

import faulthandler
import io
import logging
import os
import platform
import sys
import time
from logging.handlers import RotatingFileHandler
from pathlib import Path
from typing import IO

import workbench
from workbench.core.foundation.redaction import RedactingFilter, install_log_redaction, redact
from workbench.core.system.data_dir import default_data_dir
from workbench.core.system.private_files import PRIVATE_FILE_MODE, private_dir, private_file

LOG_NAME = "workbench.log"
LOG_BYTES = 1_000_000
LOG_FILES = 3  # the log and two older ones
FAULTS_NAME = "fatal-signal.txt"
FAULTS_READ_LIMIT = 256 * 1024  # a faulthandler dump is a few KB; more is not ours
TEST_CRASH_ENV = "WORKBENCH_TEST_CRASH"  # exception | segfault: a crash forced for a test

log = logging.getLogger(__name__)
_fault_file: IO[str] | None = None
_versions: dict[str, str] = {}  # what the UI adds (Qt, PySide6) for each crash file


class PrivateRotatingHandler(RotatingFileHandler):
    """A RotatingFileHandler whose files are created 0600 (rotation renames keep the mode)."""

    def _open(self) -> io.TextIOWrapper:
        private_file(Path(self.baseFilename))
        return open(self.baseFilename, "a", encoding=self.encoding, errors=self.errors)


def log_folder() -> Path:
    """Where the log and the crash files are: the data folder."""
    return default_data_dir()


def current_log_file() -> Path | None:
    """The log file this process writes, or None when it has none."""
    for handler in logging.getLogger().handlers:
        if isinstance(handler, PrivateRotatingHandler):
            return Path(handler.baseFilename)
    return None


def _platform() -> str:
    """The OS, its kernel and the machine, and the distribution's name where it has one
    (platform.platform() reads the Python binary to find the libc: ~8 ms before the paint)."""
    text = f"{platform.system()} {platform.release()} {platform.machine()}"
    try:
        name = platform.freedesktop_os_release().get("PRETTY_NAME")
    except OSError:  # not Linux, or no os-release file
        name = None
    return f"{text} ({name})" if name else text


def about_this_process(extra: dict[str, str] | None = None) -> str:
    """One line with the versions and the platform, for the log's start and each crash file."""
    parts = {
        "Attention Workbench": workbench.__version__,
        "Python": platform.python_version(),
        "platform": _platform(),
        **_versions,
        **(extra or {}),
    }
    return ", ".join(f"{name} {value}" for name, value in parts.items())


def install_file_log(folder: Path | None = None, extra: dict[str, str] | None = None) -> Path:
    """Add the rotating, redacted log file to the root logger; returns its path.

    Raises OSError when the folder cannot be written (the caller goes on without a log file)."""
    _versions.update(extra or {})
    folder = private_dir(folder or log_folder(), own=True)
    path = folder / LOG_NAME
    root = logging.getLogger()
    for handler in root.handlers:
        if isinstance(handler, PrivateRotatingHandler) and Path(handler.baseFilename) == path:
            return path
    handler = PrivateRotatingHandler(
        path, maxBytes=LOG_BYTES, backupCount=LOG_FILES - 1, encoding="utf-8"
    )
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(RedactingFilter())
    root.addHandler(handler)
    if root.getEffectiveLevel() > logging.INFO:  # the runs and the start line are INFO
        root.setLevel(logging.INFO)
    install_log_redaction()
    log.info("started: %s", about_this_process(extra))
    return path


def write_crash_file(details: str, folder: Path | None = None) -> Path:
    """Write a redacted crash report (0600) beside the log; returns its path."""
    folder = private_dir(folder or log_folder(), own=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    text = f"{about_this_process()}\nlog: {folder / LOG_NAME}\n\n{redact(details).rstrip()}\n"
    for n in range(100):
        path = folder / (f"crash-{stamp}.txt" if n == 0 else f"crash-{stamp}-{n}.txt")
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE_MODE)
        except FileExistsError:
            continue
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        return path
    raise FileExistsError(f"too many crash files named crash-{stamp}*.txt in {folder}")


def enable_fault_file(folder: Path | None = None) -> str | None:
    """Point faulthandler at the fault file; returns what an earlier process that died of a
    signal left there (redacted), or None. Raises OSError when the folder cannot be written."""
    global _fault_file
    folder = private_dir(folder or log_folder(), own=True)
    path = folder / FAULTS_NAME
    left = None
    if path.is_file():
        with open(path, encoding="utf-8", errors="replace") as old:
            left = redact(old.read(FAULTS_READ_LIMIT)).strip() or None
    private_file(path)
    previous, _fault_file = _fault_file, open(path, "w", encoding="utf-8")  # for life
    faulthandler.enable(_fault_file, all_threads=True)
    if previous is not None:
        previous.close()
    return left


def report_left_fault(text: str, folder: Path | None = None) -> Path:
    """Turn what the fault file held into a crash file, logged."""
    details = f"The previous session ended on a fatal signal:\n\n{text}"
    path = write_crash_file(details, folder)
    log.error("the previous session ended on a fatal signal; crash report %s", path)
    return path


def flush() -> None:
    """Flush the log file's handlers (before a forced crash, and at exit)."""
    for handler in logging.getLogger().handlers:
        handler.flush()
    sys.stderr.flush()
