"""Logs and crash reports a user can send (issue 31): the rotating log in the data folder, and
the dialog, crash file and fault file of an unexpected error, none of them carrying a key.

The app is started as a user starts it (`workbench gui`, offscreen, fresh folders) with a crash
forced by WORKBENCH_TEST_CRASH; the key it echoes comes from an environment variable, resolved
the way a provider's key is, and has no key shape: only redaction by value can mask it.
"""

from __future__ import annotations

import logging
import os
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication

from workbench.core.foundation.redaction import register_secret
from workbench.core.system import app_log
from workbench.ui.error_sink import ErrorSink

CANARY = "Qx7-LanternQuokka-99"  # a key with no recognisable shape


def _env(home: Path, **extra: str) -> dict[str, str]:
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        "WORKBENCH_DATA_DIR": str(home / "data"),
        "WORKBENCH_CONFIG_DIR": str(home / "config"),
        "TMPDIR": str(home),
        "WORKBENCH_TEST_CRASH_KEY": CANARY,
        **extra,
    }
    env.pop(app_log.TEST_CRASH_ENV, None)
    env.update(extra)
    return env


def _start(home: Path, **extra: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "workbench", "gui"],
        env=_env(home, **extra),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )


def _wait_for_log(proc: subprocess.Popen[bytes], log: Path, text: str, timeout: float = 60) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        content = log.read_text(encoding="utf-8") if log.exists() else ""
        if text in content:
            return content
        if proc.poll() is not None:
            break
        time.sleep(0.1)  # polling a file another process writes: no signal to wait on
    out = (
        proc.stdout.read().decode(errors="replace")
        if proc.poll() is not None and proc.stdout
        else ""
    )
    raise AssertionError(f"{text!r} never reached {log} (exit {proc.poll()}):\n{out[-3000:]}")


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    if proc.stdout:
        proc.stdout.close()


def _private(path: Path) -> bool:
    return stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_forced_exception_shows_the_dialog_and_writes_a_crash_file_without_the_key(
    tmp_path: Path,
) -> None:
    proc = _start(tmp_path, **{app_log.TEST_CRASH_ENV: "exception"})
    log = tmp_path / "data" / app_log.LOG_NAME
    try:
        text = _wait_for_log(proc, log, "crash report shown")
    finally:
        _stop(proc)
    crashes = sorted((tmp_path / "data").glob("crash-*.txt"))
    assert len(crashes) == 1
    crash = crashes[0].read_text(encoding="utf-8")
    assert "forced crash" in crash and "Bearer ***" in crash and "user:***@" in crash
    assert f"log: {log}" in crash and "Python" in crash and "Qt" in crash
    assert f"crash report shown: {crashes[0]}" in text
    assert "started: Attention Workbench" in text and "PySide6" in text
    for path in (*crashes, log):
        assert _private(path), path
        assert CANARY not in path.read_text(encoding="utf-8"), path


def test_a_fatal_signal_is_reported_at_the_next_start(tmp_path: Path) -> None:
    crashed = _start(tmp_path, **{app_log.TEST_CRASH_ENV: "segfault"})
    try:
        assert crashed.wait(timeout=60) == -signal.SIGSEGV
    finally:
        _stop(crashed)
    faults = tmp_path / "data" / app_log.FAULTS_NAME
    assert "Segmentation fault" in faults.read_text(encoding="utf-8")
    again = _start(tmp_path)
    try:
        _wait_for_log(again, tmp_path / "data" / app_log.LOG_NAME, "crash report shown")
    finally:
        _stop(again)
    (crash,) = (tmp_path / "data").glob("crash-*.txt")
    assert _private(crash)
    text = crash.read_text(encoding="utf-8")
    assert "ended on a fatal signal" in text and "Segmentation fault" in text
    assert "force_test_crash" in text  # the Python stack where it died
    assert faults.read_text(encoding="utf-8") == ""  # reported once, not at every start


@pytest.fixture
def file_log(tmp_path: Path) -> Iterator[Path]:
    root = logging.getLogger()
    level = root.level
    path = app_log.install_file_log(tmp_path / "data")
    yield path
    root.setLevel(level)
    for handler in [h for h in root.handlers if isinstance(h, app_log.PrivateRotatingHandler)]:
        root.removeHandler(handler)
        handler.close()


def test_the_log_rotates_over_three_private_files_of_1_mb(file_log: Path) -> None:
    register_secret(CANARY)
    log = logging.getLogger("workbench.test.rotation")
    line = "x" * 1000
    for n in range(3600):  # 3.6 MB: the oldest lines go
        log.warning("line %d key %s %s", n, CANARY, line)
    files = sorted(file_log.parent.glob(app_log.LOG_NAME + "*"))
    assert [f.name for f in files] == ["workbench.log", "workbench.log.1", "workbench.log.2"]
    for f in files:
        assert f.stat().st_size <= app_log.LOG_BYTES and _private(f)
        assert CANARY not in f.read_text(encoding="utf-8")
    assert "line 3599 key ***" in file_log.read_text(encoding="utf-8")


@pytest.mark.qt_no_exception_capture
def test_an_exception_in_a_slot_shows_details_copy_and_the_log_path(qtbot, file_log: Path) -> None:
    import asyncio

    register_secret(CANARY)
    sink = ErrorSink(folder=file_log.parent, log_file=file_log)
    loop = asyncio.new_event_loop()
    sink.install(loop)

    def fail() -> None:
        raise ValueError(f"a server echoed {CANARY}")

    try:
        QTimer.singleShot(0, fail)
        qtbot.waitUntil(lambda: sink.dialog is not None and sink.dialog.isVisible(), timeout=5000)
        dialog = sink.dialog
        assert "ValueError: a server echoed ***" in dialog.text.toPlainText()
        (crash,) = file_log.parent.glob("crash-*.txt")
        assert str(file_log) in dialog.paths.text() and str(crash) in dialog.paths.text()
        QApplication.clipboard().clear()
        qtbot.mouseClick(dialog.copy_button, Qt.MouseButton.LeftButton)
        copied = QApplication.clipboard().text()
        assert "ValueError: a server echoed ***" in copied and str(crash) in copied
        assert CANARY not in copied
        dialog.reject()
        qtbot.waitUntil(lambda: sink.dialog is None, timeout=3000)
    finally:
        sink.uninstall()
        loop.close()
    for path in (crash, file_log):
        assert CANARY not in path.read_text(encoding="utf-8") and _private(path)


def test_the_log_records_each_run_started_and_finished(qtbot, loop, tmp_path, file_log) -> None:
    from gui_driver import click_run, make_window

    window = make_window(loop, tmp_path)
    try:
        finished = click_run(window, qtbot, loop)
    finally:
        window.close()
        loop.run_until_complete(window.session.close())
    text = file_log.read_text(encoding="utf-8")
    assert "run started: comparison, 2 targets" in text
    assert f"run {finished.run_id} finished: {len(finished.results)} requests" in text


@pytest.mark.qt_no_exception_capture
def test_an_exception_in_another_thread_reaches_the_dialog_on_the_ui_thread(
    qtbot, loop, file_log: Path
) -> None:
    import threading

    from gui_driver import run_for, until

    sink = ErrorSink(folder=file_log.parent, log_file=file_log)
    sink.install(loop)

    def fail() -> None:
        raise OSError(f"worker lost its socket; key {CANARY}")

    register_secret(CANARY)
    try:
        worker = threading.Thread(target=fail, name="probe-worker")
        worker.start()
        worker.join()
        run_for(loop, until(lambda: sink.dialog is not None, timeout=10), 15)
        details = sink.dialog.text.toPlainText()
        assert "in thread probe-worker" in details and "OSError: worker lost its socket" in details
        assert CANARY not in details
        sink.dialog.reject()
    finally:
        sink.uninstall()
    (crash,) = file_log.parent.glob("crash-*.txt")
    assert "probe-worker" in crash.read_text(encoding="utf-8")
