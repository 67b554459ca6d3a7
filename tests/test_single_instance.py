"""One window per user: real `workbench gui` processes (offscreen), not the guard in-process.

A second launch must bring the first window forward and exit 0; a socket left by a killed
instance must not stop the next start.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

START_TIMEOUT = 90  # a cold start imports Qt, pyqtgraph and the SDK on a busy machine
SHOWN = "main window shown"


def gui_env(tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        QT_QPA_PLATFORM="offscreen",
        WORKBENCH_CONFIG_DIR=str(tmp_path / "config"),
        WORKBENCH_DATA_DIR=str(tmp_path / "data"),
        TMPDIR=str(tmp_path),  # where QLocalServer puts its socket file on Unix
    )
    return env


def start_gui(tmp_path: Path, log_name: str) -> tuple[subprocess.Popen, Path]:
    log = tmp_path / log_name
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "workbench", "gui", "--time-scale", "0.05"],
            env=gui_env(tmp_path),
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    return proc, log


def wait_for(log: Path, text: str, proc: subprocess.Popen, timeout: float = START_TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if text in log.read_text(encoding="utf-8", errors="replace"):
            return
        if proc.poll() is not None:
            break
        time.sleep(0.1)
    raise AssertionError(f"{text!r} not logged; log:\n{log.read_text(errors='replace')[-3000:]}")


def stop(proc: subprocess.Popen, sig: int = signal.SIGTERM) -> None:
    if proc.poll() is None:
        proc.send_signal(sig)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=20)


def socket_files(tmp_path: Path) -> list[Path]:
    return [p for p in tmp_path.iterdir() if p.name.startswith("attention-workbench-")]


@pytest.mark.skipif(sys.platform == "win32", reason="socket files and signals are Unix's")
def test_second_launch_raises_the_first_window_and_exits_0(tmp_path) -> None:
    first, first_log = start_gui(tmp_path, "first.log")
    try:
        wait_for(first_log, SHOWN, first)
        second = subprocess.run(
            [sys.executable, "-m", "workbench", "gui"],
            env=gui_env(tmp_path),
            capture_output=True,
            text=True,
            timeout=START_TIMEOUT,
        )
        assert second.returncode == 0, second.stderr
        assert "already running" in second.stdout
        assert SHOWN not in second.stderr  # it opened no window of its own
        wait_for(first_log, "a second launch asked for this window", first, timeout=20)
        assert first.poll() is None  # the first one is still there
    finally:
        stop(first)


@pytest.mark.skipif(sys.platform == "win32", reason="socket files and signals are Unix's")
def test_socket_left_by_a_killed_instance_does_not_block_a_start(tmp_path) -> None:
    crashed, crashed_log = start_gui(tmp_path, "crashed.log")
    try:
        wait_for(crashed_log, SHOWN, crashed)
    finally:
        stop(crashed, signal.SIGKILL)  # no clean-up: its socket file stays behind
    assert socket_files(tmp_path), "the killed instance left no socket file to test with"
    fresh, fresh_log = start_gui(tmp_path, "fresh.log")
    try:
        wait_for(fresh_log, SHOWN, fresh)
        assert fresh.poll() is None
        # the new instance owns the name now: a later launch reaches it
        later = subprocess.run(
            [sys.executable, "-m", "workbench", "gui"],
            env=gui_env(tmp_path),
            capture_output=True,
            text=True,
            timeout=START_TIMEOUT,
        )
        assert later.returncode == 0 and "already running" in later.stdout
        wait_for(fresh_log, "a second launch asked for this window", fresh, timeout=20)
    finally:
        stop(fresh)
