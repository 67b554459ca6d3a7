"""The runs list has one home in core (history/run_facts.py, issue 27): the window's History and
`workbench history list` read the same summaries, and the store refuses to delete a run still
running whoever asks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from workbench.core.history.run_history import DB_FILENAME, RunStore, StoreError
from workbench.ui.compare_controller import CompareController


def test_window_and_cli_list_the_same_models_for_a_run(tmp_path: Path, qtbot: object) -> None:
    """A plan with a target that names no model (an imported config can hold one): both faces
    list the run's models alike, from one summary."""
    db = tmp_path / DB_FILENAME
    config = {"targets": [{"model": "m-one"}, {"provider": "p"}], "prompt_lengths": [512, "x"]}
    with RunStore(db) as store:
        run_id = store.start_run("comparison", config)
        store.finish_run(run_id)
    env = {**os.environ, "WORKBENCH_DATA_DIR": str(tmp_path)}
    listed = subprocess.run(
        [sys.executable, "-m", "workbench", "history", "list", "--json"],
        env=env, capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    [cli] = json.loads(listed.stdout)
    controller = CompareController(store=RunStore(db))
    try:
        [window] = controller.records.history()
    finally:
        assert controller.store is not None
        controller.store.close()
    assert cli["models"] == window.models == ["m-one"]
    assert window.prompt_lengths == [512] and window.info.run_id == cli["run_id"] == run_id


def test_the_store_refuses_to_delete_a_run_still_running(tmp_path: Path) -> None:
    with RunStore(tmp_path / DB_FILENAME) as store:
        run_id = store.start_run("comparison", {})
        with pytest.raises(StoreError, match="still running: stop it first"):
            store.delete_run(run_id)
        assert store.has_run(run_id)
        store.finish_run(run_id)
        store.delete_run(run_id)
        assert not store.has_run(run_id)
