"""`workbench import` on something that is not a regular file: a FIFO (which would block the
first read forever), a device, a socket. Each is a clear error (exit 2) at once, never a hang."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from workbench.core.importers import ConfigImportError, import_path

WORKBENCH = [sys.executable, "-m", "workbench"]


def _import_within(path: Path, seconds: float = 10) -> BaseException | object:
    """import_path(path) on a thread: what it raised or returned; fails the test if it hangs."""
    outcome: list[BaseException | object] = []

    def attempt() -> None:
        try:
            outcome.append(import_path(path))
        except BaseException as exc:  # the outcome under test
            outcome.append(exc)

    worker = threading.Thread(target=attempt, daemon=True)
    worker.start()
    worker.join(seconds)
    assert outcome, f"importing {path} hung"
    return outcome[0]


@pytest.mark.parametrize("name", ["settings.json", "config.toml", "cc-switch.db", "plain"])
def test_importing_a_fifo_is_refused_at_once(tmp_path, name) -> None:
    fifo = tmp_path / name
    os.mkfifo(fifo)
    outcome = _import_within(fifo)
    assert isinstance(outcome, ConfigImportError)
    assert "FIFO" in str(outcome) and str(fifo) in str(outcome)
    done = subprocess.run(
        [*WORKBENCH, "import", str(fifo), "--dry-run"],
        capture_output=True, text=True, timeout=60, check=False,
        env={**os.environ, "WORKBENCH_CONFIG_DIR": str(tmp_path / "cfg")},
    )  # fmt: skip
    assert done.returncode == 2 and "FIFO" in done.stderr and "Traceback" not in done.stderr


def test_importing_a_device_or_a_socket_is_refused(tmp_path) -> None:
    outcome = _import_within(Path("/dev/zero"))
    assert isinstance(outcome, ConfigImportError) and "device" in str(outcome)
    sock_path = tmp_path / "s.json"
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(sock_path))
        outcome = _import_within(sock_path)
    assert isinstance(outcome, ConfigImportError) and "socket" in str(outcome)


def test_a_fifo_in_a_home_folder_is_skipped_and_the_rest_imports(tmp_path) -> None:
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    (home / ".cc-switch").mkdir()
    os.mkfifo(home / ".cc-switch" / "cc-switch.db")
    (home / ".claude" / "settings.json").write_text(
        '{"env": {"ANTHROPIC_BASE_URL": "https://gw.example/v1", '
        '"ANTHROPIC_AUTH_TOKEN": "${GW_KEY}", "ANTHROPIC_MODEL": "m1"}}',
        encoding="utf-8",
    )
    outcome = _import_within(home)
    assert not isinstance(outcome, BaseException), outcome
    assert [p.base_url for p in outcome.providers] == ["https://gw.example/v1"]  # type: ignore[attr-defined]
