"""One window per user: real `workbench gui` processes (offscreen), not the guard in-process.

A second launch must bring the first window forward and exit 0; a socket left by a killed
instance must not stop the next start.
"""

from __future__ import annotations

import contextlib
import logging
import os
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

START_TIMEOUT = 90  # a cold start imports Qt, pyqtgraph and the SDK on a busy machine
SHOWN = "main window shown"


@pytest.fixture
def tmp_path() -> Iterator[Path]:
    """A short folder: the socket (TMPDIR/attention-workbench-<16 hex>) must fit a Unix socket
    path's 107 bytes, which pytest-xdist's deeper tmp_path (.../popen-gw0/test_...) overran."""
    with tempfile.TemporaryDirectory(prefix="wb-") as folder:
        yield Path(folder)


def gui_env(tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        QT_QPA_PLATFORM="offscreen",
        WORKBENCH_CONFIG_DIR=str(tmp_path / "config"),
        WORKBENCH_DATA_DIR=str(tmp_path / "data"),
        TMPDIR=str(tmp_path),  # where QLocalServer puts its socket file on Unix
    )
    return env


def start_gui(
    tmp_path: Path,
    log_name: str,
    nofile: tuple[int, int] | None = None,
    extra_env: dict[str, str] | None = None,
) -> tuple[subprocess.Popen, Path]:
    """A first instance; `nofile` is its (soft, hard) open-file limit from the start."""
    log = tmp_path / log_name

    def limit() -> None:
        if nofile is not None:
            resource.setrlimit(resource.RLIMIT_NOFILE, nofile)

    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "workbench", "gui", "--time-scale", "0.05"],
            env=gui_env(tmp_path) | (extra_env or {}),
            stdout=out,
            stderr=subprocess.STDOUT,
            preexec_fn=limit if nofile else None,
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


def limits_of(pid: int) -> tuple[int, int]:
    """The process's (soft, hard) RLIMIT_NOFILE, as the kernel reports it."""
    for line in Path(f"/proc/{pid}/limits").read_text().splitlines():
        if line.startswith("Max open files"):
            soft, hard = line.split()[3:5]
            return int(soft), int(hard)
    raise AssertionError("no open-file limit in /proc")


def settled_fd_count(pid: int, timeout: float = START_TIMEOUT) -> int:
    """The process's open fds once the count held still for 2 s (its start-up is over)."""
    deadline = time.monotonic() + timeout
    counts: list[int] = []
    while time.monotonic() < deadline:
        counts = [*counts[-9:], len(os.listdir(f"/proc/{pid}/fd"))]
        if len(counts) == 10 and len(set(counts)) == 1:
            return counts[0]
        time.sleep(0.2)
    raise AssertionError(f"the fd count never settled: {counts}")


def hold_connections(path: Path, at_most: int) -> list[socket.socket]:
    """Up to `at_most` connections that send nothing; stops early once the socket is gone."""
    held = []
    for _ in range(at_most):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.setblocking(False)
        try:
            sock.connect(str(path))
        except BlockingIOError:  # the backlog is full: this one waits in it
            pass
        except OSError:  # refused or no file: the server is gone
            sock.close()
            break
        held.append(sock)
    return held


def second_launch_finds_the_first(tmp_path: Path, first: subprocess.Popen, log: Path) -> None:
    second = subprocess.run(
        [sys.executable, "-m", "workbench", "gui"],
        env=gui_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=START_TIMEOUT,
    )
    assert second.returncode == 0 and "already running" in second.stdout, second.stderr[-2000:]
    wait_for(log, "a second launch asked for this window", first, timeout=20)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc and prlimit")
def test_a_low_soft_fd_limit_is_raised_and_idle_connections_do_not_lose_the_socket(
    tmp_path,
) -> None:
    # the case: `prlimit --nofile=256` and 300 connections that never speak
    first, log = start_gui(tmp_path, "first.log", nofile=(256, 4096))
    held: list[socket.socket] = []
    try:
        wait_for(log, SHOWN, first)
        assert limits_of(first.pid) == (4096, 4096)  # raised to the hard limit at start
        settled_fd_count(first.pid)  # start-up is over: the app is idle, as a user leaves it
        (path,) = socket_files(tmp_path)
        held = hold_connections(path, 300)
        assert len(held) == 300
        settled_fd_count(first.pid)  # it has taken them all in
        second_launch_finds_the_first(tmp_path, first, log)
    finally:
        for sock in held:
            sock.close()
        stop(first)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc and prlimit")
def test_the_socket_lost_when_fds_run_out_is_re_created_and_reported(tmp_path) -> None:
    first, log = start_gui(tmp_path, "first.log")
    held: list[socket.socket] = []
    try:
        wait_for(log, SHOWN, first)
        # no fd to spare, soft and hard (the app cannot raise it): the next accept() fails
        used = settled_fd_count(first.pid)
        resource.prlimit(first.pid, resource.RLIMIT_NOFILE, (used + 3, used + 3))
        (path,) = socket_files(tmp_path)
        held = hold_connections(path, 40)
        wait_for(log, "single-instance socket lost", first, timeout=20)
        wait_for(log, "single-instance socket listening again", first, timeout=30)
        text = log.read_text(errors="replace")
        assert "file descriptors open" in text and "ulimit -n" in text
        # the app closed the silent connections, so the fds they held are free again
        deadline = time.monotonic() + 20
        for sock in held:
            sock.setblocking(True)
            sock.settimeout(max(0.1, deadline - time.monotonic()))
            with contextlib.suppress(ConnectionError):
                assert sock.recv(16) == b""
        second_launch_finds_the_first(tmp_path, first, log)
        assert first.poll() is None
    finally:
        for sock in held:
            sock.close()
        stop(first)


def test_a_deleted_socket_file_is_listened_on_again_and_said(qtbot, tmp_path, monkeypatch) -> None:
    from PySide6.QtWidgets import QStatusBar

    from workbench.ui.single_instance import ask_running_instance, claim

    monkeypatch.setenv("TMPDIR", str(tmp_path))
    name = "attention-workbench-test-deleted"
    guard = claim(name)
    assert guard is not None
    status = QStatusBar()
    qtbot.addWidget(status)
    guard.lost.connect(status.showMessage)
    Path(guard.server.fullServerName()).unlink()  # a tmp cleaner, or a user, removed it
    qtbot.waitUntil(lambda: "socket file was deleted" in status.currentMessage(), timeout=5000)
    qtbot.waitUntil(lambda: Path(guard.server.fullServerName()).exists(), timeout=5000)
    with qtbot.waitSignal(guard.activate_requested, timeout=5000):
        assert ask_running_instance(name)
    guard.server.close()
    guard.setParent(status)  # goes with the status bar, before the application


def long_folder(tmp_path: Path) -> Path:
    """A TMPDIR whose socket path is far over a Unix socket address (108 bytes)."""
    folder = tmp_path / ("t" * 60) / ("m" * 60)
    folder.mkdir(parents=True)
    return folder


@pytest.mark.skipif(sys.platform == "win32", reason="Unix socket paths")
def test_under_a_long_tmpdir_the_socket_moves_to_the_private_runtime_folder(tmp_path) -> None:
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    env = {"TMPDIR": str(long_folder(tmp_path)), "XDG_RUNTIME_DIR": str(runtime)}
    first, log = start_gui(tmp_path, "first.log", extra_env=env)
    try:
        wait_for(log, SHOWN, first)
        wait_for(log, f"single-instance guard listening on {runtime}/attention-workbench-", first)
        second = subprocess.run(
            [sys.executable, "-m", "workbench", "gui"],
            env=gui_env(tmp_path) | env,
            capture_output=True,
            text=True,
            timeout=START_TIMEOUT,
        )
        assert second.returncode == 0 and "already running" in second.stdout, second.stderr[-2000:]
        wait_for(log, "a second launch asked for this window", first, timeout=20)
    finally:
        stop(first)


@pytest.mark.skipif(sys.platform == "win32", reason="Unix socket paths")
def test_with_no_runtime_folder_the_socket_goes_to_a_private_folder_in_tmp(
    qtbot, tmp_path, monkeypatch
) -> None:
    from workbench.ui.single_instance import claim, server_name

    monkeypatch.setenv("TMPDIR", str(long_folder(tmp_path)))
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    monkeypatch.setenv("WORKBENCH_CONFIG_DIR", str(tmp_path / "config"))
    name = server_name()
    folder = Path(f"/tmp/attention-workbench-{os.getuid()}")
    assert Path(name).parent == folder
    assert folder.stat().st_mode & 0o777 == 0o700  # nobody else may enter it
    guard = claim(name)
    assert guard is not None and guard.problem() is None
    try:
        assert Path(guard.server.fullServerName()) == Path(name)
    finally:
        guard.server.close()
    assert not Path(name).exists()  # a clean close leaves no file in the shared folder


@pytest.mark.skipif(sys.platform == "win32", reason="Unix socket paths")
def test_a_socket_path_too_long_is_said_with_its_fix_and_not_retried(
    qtbot, tmp_path, caplog
) -> None:
    from workbench.ui.single_instance import MAX_SOCKET_PATH, InstanceGuard

    path = long_folder(tmp_path) / "attention-workbench-0123456789abcdef"
    guard = InstanceGuard(str(path))
    assert not guard.listen()
    with caplog.at_level(logging.WARNING, logger="workbench.ui.single_instance"):
        guard.log_state()
    (said,) = [r.getMessage() for r in caplog.records]
    assert "a second launch opens a second window" in said
    assert f"{len(os.fsencode(path))} bytes, over the {MAX_SOCKET_PATH}" in said
    assert "set TMPDIR" in said
    assert not guard._timer.isActive()  # a longer wait never makes the path fit
