"""An import is one transaction: `import-results` killed while it writes leaves no run, and the
same file imported again is complete. `workbench history delete RUN` (CLI, and the History tab's
Delete button with its confirmation) removes a run, after which it can be imported again."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from tests.support.large_results import large_vllm_file
from workbench.core.history.result_import import import_files
from workbench.core.history.run_history import RunStore

FIXTURE = Path(__file__).resolve().parent / "data" / "results" / "vllm_save_detailed.json"
REQUESTS = 40_000


def _env(tmp_path: Path) -> dict[str, str]:
    return {
        **os.environ,
        "WORKBENCH_DATA_DIR": str(tmp_path / "data"),
        "WORKBENCH_CONFIG_DIR": str(tmp_path / "config"),
    }


def _cli(tmp_path: Path, *args: str, **options: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "workbench", *args],
        capture_output=True, text=True, timeout=300, check=False, env=_env(tmp_path),
        cwd=tmp_path, **options,
    )  # fmt: skip


def _runs(history: Path) -> list[tuple[str, str, int]]:
    """(run id, status, rows) of every run, read as another process sees the file."""
    with sqlite3.connect(history) as conn:
        return conn.execute(
            "SELECT r.run_id, r.status, COUNT(q.request_id) FROM runs r"
            " LEFT JOIN requests q ON q.run_id = r.run_id GROUP BY r.run_id"
        ).fetchall()


def _writing(history: Path, pid: int) -> bool:
    """The import has begun to write: its rows are visible in the history (each committed on
    its own), or it holds SQLite's staging file, deleted on open (its rows kept apart)."""
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
        staging = any("etilqs_" in os.readlink(f"/proc/{pid}/fd/{fd}") for fd in fds)
        return staging or any(rows for _, _, rows in _runs(history))
    except (OSError, sqlite3.Error):
        return False


def test_an_import_killed_while_writing_leaves_nothing_and_a_reimport_completes(tmp_path) -> None:
    big = large_vllm_file(tmp_path / "big_vllm.json", REQUESTS)
    history = tmp_path / "data" / "history.sqlite3"
    proc = subprocess.Popen(
        [sys.executable, "-m", "workbench", "import-results", str(big)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env(tmp_path), cwd=tmp_path,
    )  # fmt: skip
    if not Path("/proc/self/fd").is_dir():
        pytest.skip("needs /proc to see the import's open files")
    try:
        deadline = time.monotonic() + 240
        while not _writing(history, proc.pid):
            assert proc.poll() is None, f"the import ended before it was killed: {proc.returncode}"
            assert time.monotonic() < deadline, "the import never began to write"
            time.sleep(0.005)  # polling the condition, not waiting for a guessed time
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait(timeout=60)
        proc.stdout.close()  # type: ignore[union-attr]
        proc.stderr.close()  # type: ignore[union-attr]
    assert proc.returncode == -signal.SIGKILL, "the import finished before the kill landed"
    assert _runs(history) == []  # no partial run, no "interrupted" run holding half the rows
    listed = _cli(tmp_path, "history", "list")
    assert listed.returncode == 0 and "import-" not in listed.stdout
    again = _cli(tmp_path, "import-results", str(big))
    assert again.returncode == 0, again.stderr
    assert f"{REQUESTS} requests): imported" in again.stdout
    [(run_id, status, rows)] = _runs(history)
    assert (status, rows) == ("finished", REQUESTS) and run_id.startswith("import-")
    with sqlite3.connect(history) as conn:  # in the file's order, as the history reads rows
        ids = [row[0] for row in conn.execute("SELECT request_id FROM requests ORDER BY rowid")]
    assert ids == [f"{run_id}-{i}" for i in range(REQUESTS)]


def test_history_delete_asks_then_removes_the_run_and_it_imports_again(tmp_path) -> None:
    assert _cli(tmp_path, "import-results", str(FIXTURE)).returncode == 0
    history = tmp_path / "data" / "history.sqlite3"
    [(run_id, _, rows)] = _runs(history)
    assert rows > 0
    # no terminal to ask on: nothing is deleted without --yes
    refused = _cli(tmp_path, "history", "delete", run_id[:14], stdin=subprocess.DEVNULL)
    assert refused.returncode == 2 and "add --yes" in refused.stderr
    assert len(_runs(history)) == 1
    missing = _cli(tmp_path, "history", "delete", "nosuchrun", "--yes")
    assert missing.returncode == 2 and "no run" in missing.stderr
    deleted = _cli(tmp_path, "history", "delete", run_id[:14], "--yes")
    assert deleted.returncode == 0 and f"deleted run {run_id}" in deleted.stdout
    assert _runs(history) == []
    with sqlite3.connect(history) as conn:  # its rows and aggregates went with it
        assert conn.execute("SELECT COUNT(*) FROM requests").fetchone() == (0,)
        assert conn.execute("SELECT COUNT(*) FROM run_aggregates").fetchone() == (0,)
    again = _cli(tmp_path, "import-results", str(FIXTURE))
    assert again.returncode == 0 and "imported" in again.stdout and "already" not in again.stdout


def test_history_delete_refuses_a_running_run_before_it_asks(tmp_path) -> None:
    # this process owns the run, so the CLI's store sees it running, not interrupted
    with RunStore(tmp_path / "data" / "history.sqlite3") as store:
        run_id = store.start_run("comparison", {})
        # no terminal and no --yes: the refusal is the run's state, not a missing confirmation
        refused = _cli(tmp_path, "history", "delete", run_id, stdin=subprocess.DEVNULL)
        assert refused.returncode == 2, refused.stderr
        assert "still running: stop it first" in refused.stderr
        assert "--yes" not in refused.stderr
        forced = _cli(tmp_path, "history", "delete", run_id, "--yes")
        assert forced.returncode == 2 and "still running" in forced.stderr
        assert store.has_run(run_id)


def test_the_history_tab_deletes_a_run_after_its_confirmation(qapp, loop, qtbot, tmp_path) -> None:
    from tests.support.gui_driver import click_tab, opened_window

    with opened_window(loop, tmp_path) as window:
        store = window.session.store
        assert store is not None
        [outcome] = import_files(store, [FIXTURE])
        view = window.history_view
        click_tab(window, qtbot, view)
        view.refresh()
        assert view.selected_run() == outcome.run_id  # the newest run, selected
        # Cancel keeps the run
        qtbot.mouseClick(view.delete_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: view.delete_box is not None and view.delete_box.isVisible())
        box = view.delete_box
        assert box is not None and "request(s) from the history" in box.text()
        cancel = box.button(QMessageBox.StandardButton.Cancel)
        qtbot.mouseClick(cancel, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: not box.isVisible())
        assert store.has_run(outcome.run_id)
        # Yes deletes it, and the table no longer lists it
        qtbot.mouseClick(view.delete_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: view.delete_box is not box and view.delete_box.isVisible())
        yes = view.delete_box.button(QMessageBox.StandardButton.Yes)
        qtbot.mouseClick(yes, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: not store.has_run(outcome.run_id))
        listed = [
            view.table.item(r, 0).data(Qt.ItemDataRole.UserRole)
            for r in range(view.table.rowCount())
        ]
        assert outcome.run_id not in listed
        assert "deleted" in view.import_status.text()
    with RunStore(tmp_path / "history.sqlite3") as reopened:
        assert not reopened.has_run(outcome.run_id)
