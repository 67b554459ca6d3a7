"""The Kernels tab (issue 25, item 15): after a torch error the progress says the run did not
start and, once torch is installed, Connect asks the worker again; the KV bars name their shapes;
no CSV can be loaded into a running sweep."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest
import qasync
from PySide6.QtCore import Qt

from workbench.ui.kernels_view import KernelsView


@pytest.fixture
def view(loop: qasync.QEventLoop):
    v = KernelsView()
    v.resize(1400, 900)
    v.show()
    yield v
    loop.run_until_complete(asyncio.wait_for(v.aclose(), 15))
    v.close()
    v.deleteLater()


def click(view: KernelsView, loop: qasync.QEventLoop, qtbot, button) -> None:
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    pending = list(view._tasks)
    assert pending, "the click started nothing"
    loop.run_until_complete(asyncio.wait_for(asyncio.gather(*pending), 90))


@pytest.mark.skipif(os.name == "nt", reason="the venv layout below is POSIX")
def test_a_torch_error_ends_the_progress_and_installing_torch_is_seen_at_connect(
    view: KernelsView, loop: qasync.QEventLoop, qtbot, tmp_path: Path
) -> None:
    folder = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False, symlinks=True).create(folder)
    python = folder / "bin" / "python"
    view.use_python(str(python))
    view.set_variants(["gqa"])
    view.set_kv_lens([1024])
    view.set_dtype("fp32")
    view.iters.setValue(1)

    qtbot.mouseClick(view.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: view.last_outcome == "failed" and not view.running, timeout=60000)
    assert "torch" in view.message.text()
    progress = view.progress_label.text()
    assert "starting the worker" not in progress, progress
    assert progress.startswith("Not started"), progress

    # "install torch into that Python": this Python's packages become its packages
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    (Path(site) / "host.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    assert subprocess.run([str(python), "-c", "import torch"], check=False).returncode == 0
    click(view, loop, qtbot, view.connect_button)
    assert view.worker_status.text().startswith("Worker ready"), view.worker_status.text()
    assert view.hello is not None and view.hello.torch_version


def test_the_kv_bars_say_which_shapes_they_are_of(view: KernelsView, qtbot) -> None:
    view.set_dtype("bf16")
    view.redraw()
    axis = view.kv_plot.plotItem.getAxis("bottom")
    assert view.kv_bytes()["gqa"] == 4096
    assert axis.labelText == "shapes: default shapes (default-*)"
    qtbot.mouseClick(view.csv_row.preset_button, Qt.MouseButton.LeftButton)  # the H200 CSV
    view.redraw()
    assert axis.labelText == "shapes: 70B twins (sim-70b-*)"  # why GQA now reads 2,048 B
    bars = [i for i in view.kv_plot.plotItem.items if type(i).__name__ == "BarGraphItem"]
    assert 2048 in list(bars[0].opts["height"])


def test_no_csv_can_be_loaded_into_a_running_sweep(view: KernelsView, loop, qtbot) -> None:
    view.use_python(sys.executable)
    view.set_variants(["gqa"])
    view.set_kv_lens([1024])
    view.set_dtype("fp32")
    view.iters.setValue(1_000_000)
    qtbot.mouseClick(view.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: view.job is not None, timeout=60000)
    for button in (view.csv_row.preset_button, view.csv_row.open_button):
        assert not button.isEnabled()
        qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert view.rows == [] and view.progress_label.text().startswith("0 of 1")
    qtbot.mouseClick(view.cancel_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not view.running, timeout=10000)
    assert view.csv_row.preset_button.isEnabled()
