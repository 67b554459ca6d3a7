"""The Kernels tab, offscreen, against a real kernel worker subprocess on the CPU (qasync)."""

from __future__ import annotations

import asyncio
import csv
import os
import signal
import subprocess
import sys
import time
import venv
from collections.abc import Awaitable, Iterator
from pathlib import Path
from typing import TypeVar

import pytest
import qasync

from kernels_bridge.analytic import get_profile
from kernels_bridge.protocol import RESULT_COLUMNS
from kernels_bridge.specs import DTYPES, VARIANTS, shape_for
from kernels_bridge.variants import kv_bytes_per_token_per_layer
from tests.support.gui_driver import until
from workbench.ui.kernels_view import KernelsView
from workbench.ui.window_late import add_kernels_tab

ROOT = Path(__file__).resolve().parent.parent
T = TypeVar("T")


@pytest.fixture
def view(loop: qasync.QEventLoop) -> Iterator[KernelsView]:
    v = KernelsView()
    v.resize(1400, 900)
    v.use_python(sys.executable)
    v.show()
    yield v
    # not qtbot.addWidget: pytest-qt deletes its widgets before fixtures end, and the view
    # must be alive while the app awaits its shutdown
    loop.run_until_complete(asyncio.wait_for(v.aclose(), 15))
    assert v.client is None
    v.close()
    v.deleteLater()


def _run(loop: qasync.QEventLoop, coro: Awaitable[T], timeout: float = 90) -> T:
    return loop.run_until_complete(asyncio.wait_for(coro, timeout))


def _tiny(view: KernelsView, variants: list[str], iters: int = 2) -> None:
    view.set_variants(variants)
    view.set_kv_lens([1024])
    view.batch.setValue(1)
    view.q_len.setValue(1)
    view.set_dtype("fp32")
    view.set_backend("reference")
    view.iters.setValue(iters)


def test_cpu_job_fills_table_and_charts_and_exports(
    view: KernelsView, loop: qasync.QEventLoop, tmp_path: Path
) -> None:
    _tiny(view, ["gqa", "mla"])
    task = view.start_run()
    assert task is not None
    assert view.start_run() is None  # one run at a time
    assert _run(loop, task) == "finished"

    hello = view.hello
    assert hello is not None and hello.torch_version
    assert "reference" in hello.backends
    model = view.backend.model()
    for name, why in hello.unavailable.items():  # disabled, with the worker's reason
        item = model.item(view.backend.findData(name))  # type: ignore[attr-defined]
        assert not item.isEnabled() and item.toolTip() == why
    if not hello.cuda_available:
        assert "CPU (wall-clock)" in view.device_label.text()
        assert view.device_label.isVisible()
        assert "CPU (wall-clock)" in view.latency_plot.plotItem.titleLabel.text

    assert [(r.variant, r.kv_len) for r in view.rows] == [("gqa", 1024), ("mla", 1024)]
    assert all(r.latency_us and r.latency_us > 0 and not r.error for r in view.rows)
    assert view.table.rowCount() == 2
    assert view.progress.value() == view.progress.maximum() == 2
    assert view.progress_label.text().startswith("2 of 2")
    assert set(view.measured_series("latency_us")) == {"gqa", "mla"}
    assert set(view.measured_series("achieved_gbps")) == {"gqa", "mla"}
    view.redraw()
    names = {item.name() for item in view.latency_plot.plotItem.listDataItems()}
    assert {"gqa", "mla", "gqa roofline", "mla roofline"} <= names
    assert {item.name() for item in view.bandwidth_plot.plotItem.listDataItems()} == {"gqa", "mla"}

    out = tmp_path / "kernels.csv"
    assert view.export_csv(out) == 2
    with out.open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert tuple(rows[0]) == RESULT_COLUMNS
    assert [r["variant"] for r in rows] == ["gqa", "mla"]
    assert all(r["backend"] == "reference" and r["dtype"] == "fp32" for r in rows)

    charts = view.export_charts(tmp_path / "charts", ".png")
    charts += view.export_charts(tmp_path / "charts", ".svg")
    assert len(charts) == 6 and all(p.stat().st_size > 1000 for p in charts)
    assert b"<svg" in charts[-1].read_bytes()[:400]


def test_kv_bars_and_roofline_need_no_worker(view: KernelsView) -> None:
    view.set_variants(list(VARIANTS))
    view.set_kv_lens([4096, 65536])
    view.set_dtype("bf16")
    view.batch.setValue(128)
    view.set_profile("H100")
    view.redraw()
    assert view.client is None and view.hello is None
    expected = {v: kv_bytes_per_token_per_layer(shape_for(v), DTYPES["bf16"]) for v in VARIANTS}
    assert view.kv_bytes() == expected
    assert expected["gqa"] == 4096 and expected["mla"] == 1152  # docs/attention.md's numbers
    bars = [i for i in view.kv_plot.plotItem.items if type(i).__name__ == "BarGraphItem"]
    assert len(bars) == 1 and list(bars[0].opts["height"]) == [expected[v] for v in VARIANTS]
    roof = view.roofline_series()
    assert set(roof) == set(VARIANTS)
    assert all(len(p) == 2 and p[1][1] > p[0][1] > 0 for p in roof.values())
    assert view.peak_gbps == pytest.approx(get_profile("H100").mem_bandwidth_tbs * 1000)
    assert "H100" in view.peak_label.toPlainText()


def _python_without_torch(folder: Path) -> Path:
    """A fresh virtual environment: this Python's interpreter, none of its packages."""
    venv.EnvBuilder(with_pip=False, symlinks=os.name != "nt").create(folder)
    bin_dir = folder / ("Scripts" if os.name == "nt" else "bin")
    python = bin_dir / ("python.exe" if os.name == "nt" else "python")
    probe = subprocess.run([str(python), "-c", "import torch"], capture_output=True, check=False)
    assert b"No module named 'torch'" in probe.stderr, probe.stderr
    return python


def test_worker_without_torch_shows_its_words_and_the_fix(
    view: KernelsView, loop: qasync.QEventLoop, tmp_path: Path
) -> None:
    python = _python_without_torch(tmp_path / "venv")
    view.use_python(str(python))
    _tiny(view, ["gqa"])
    assert _run(loop, view.run_sweep()) == "failed"
    text = view.message.text()
    assert f"the worker's Python ({python}" in text and "cannot import torch" in text
    assert "No module named 'torch'" in text and "pip install" in text  # its words, the fix
    assert view.message.isVisible()
    assert view.rows == [] and view.kv_bytes() == {"gqa": 8192}  # fp32, no worker needed


def test_a_python_that_does_not_exist_is_reported_in_the_view(
    view: KernelsView, loop: qasync.QEventLoop
) -> None:
    view.use_python("/nonexistent/python3")
    _tiny(view, ["gqa"])
    assert _run(loop, view.run_sweep()) == "failed"
    assert "could not start" in view.message.text() and "Fix:" in view.message.text()
    assert view.run_button.isEnabled() and not view.cancel_button.isEnabled()


def test_cancel_mid_job_ends_within_a_second(view: KernelsView, loop: qasync.QEventLoop) -> None:
    _tiny(view, ["gqa", "mla"], iters=1_000_000)
    task = view.start_run()
    assert task is not None

    async def cancel_when_timing() -> float:
        # "0 of N": the worker announced its first combination and is timing it now
        await until(lambda: view.job is not None and view.progress_label.text().startswith("0 of"))
        start = time.perf_counter()
        view.cancel_button.click()
        await task
        return time.perf_counter() - start

    elapsed = _run(loop, cancel_when_timing())
    assert elapsed < 1.0
    assert task.result() == "cancelled"
    assert view.run_button.isEnabled() and not view.cancel_button.isEnabled()


def test_killed_worker_is_reported_and_the_next_run_restarts_it(
    view: KernelsView, loop: qasync.QEventLoop
) -> None:
    _tiny(view, ["gqa"], iters=1_000_000)
    task = view.start_run()
    assert task is not None

    async def kill_mid_job() -> str:
        await until(lambda: view.job is not None and view.progress_label.text().startswith("0 of"))
        assert view.client is not None and view.client.pid is not None
        os.kill(view.client.pid, signal.SIGKILL)
        return await task  # type: ignore[return-value]

    assert _run(loop, kill_mid_job(), timeout=30) == "failed"
    assert "stopped unexpectedly" in view.message.text()
    assert str(-signal.SIGKILL) in view.message.text()
    assert view.client is None and view.run_button.isEnabled()

    view.iters.setValue(2)
    assert _run(loop, view.run_sweep()) == "finished"
    assert view.client is not None and view.client.is_running
    assert len(view.rows) == 1 and not view.rows[0].error


def test_main_window_gets_a_kernels_tab(loop: qasync.QEventLoop, tmp_path: Path) -> None:
    from PySide6.QtCore import QSettings

    from workbench.core.history.run_history import RunStore
    from workbench.ui.compare_controller import CompareController
    from workbench.ui.main_window import MainWindow

    session = CompareController(store=RunStore(tmp_path / "history.sqlite3"))
    window = MainWindow(session, QSettings(str(tmp_path / "gui.ini"), QSettings.Format.IniFormat))
    view = KernelsView()
    add_kernels_tab(window, view)
    tabs = [window.tabs.tabText(i) for i in range(window.tabs.count())]
    assert tabs[-1] == "Kernels" and window.tabs.widget(len(tabs) - 1) is view
    _run(loop, view.aclose())
    _run(loop, session.close())
    window.close()
    window.deleteLater()


def test_importing_the_view_and_window_never_imports_torch() -> None:
    code = (
        "import sys\n"
        "import workbench.ui.kernels_view, workbench.ui.main_window, workbench.ui.app\n"
        "bad = [m for m in ('torch', 'triton') if m in sys.modules]\n"
        "assert not bad, bad\n"
    )
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60, env=env
    )
    assert proc.returncode == 0, proc.stderr[-2000:]


def test_a_cpu_worker_keeps_the_chosen_bf16_and_says_how_the_cpu_runs_it(
    view: KernelsView, loop: qasync.QEventLoop, qtbot
) -> None:
    from PySide6.QtCore import Qt

    assert view.dtype.currentData() == "bf16"
    bars_before = view.kv_bytes()
    qtbot.mouseClick(view.connect_button, Qt.MouseButton.LeftButton)
    _run(loop, until(lambda: view.hello is not None and not view._busy))
    assert view.dtype.currentData() == "bf16"  # never switched to fp32 behind the user's back
    assert view.kv_bytes() == bars_before
    if not view.hello.cuda_available:
        assert "in bf16 as chosen (fp32 runs faster there)" in view.device_label.text()


def _click_and_settle(view: KernelsView, loop: qasync.QEventLoop, qtbot, button) -> None:
    """A real click, then wait for what it started (the view keeps its tasks)."""
    from PySide6.QtCore import Qt

    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    pending = list(view._tasks)
    assert pending, "the click started nothing"
    _run(loop, asyncio.gather(*pending))


def test_clicking_connect_reuses_the_worker_and_a_changed_python_restarts_it(
    view: KernelsView, loop: qasync.QEventLoop, qtbot
) -> None:
    changes: list[bool] = []
    view.worker_changed.connect(changes.append)
    _click_and_settle(view, loop, qtbot, view.connect_button)
    assert view.worker_status.text().startswith("Worker ready")
    first = view.client.pid if view.client else None
    assert first is not None and changes == [True]

    _click_and_settle(view, loop, qtbot, view.connect_button)  # the same choice: kept
    assert view.client is not None and view.client.pid == first and changes == [True]

    here = Path(sys.executable)
    view.python_edit.setText(f"{here.parent}/./{here.name}")  # another spelling: a restart
    _click_and_settle(view, loop, qtbot, view.connect_button)
    assert changes == [True, False, True]
    assert view.client is not None and view.client.pid != first
    assert view.worker_status.text().startswith("Worker ready")
    assert view.connect_button.isEnabled()


def test_clicking_run_fills_the_table_and_clicking_cancel_stops_the_next_run(
    view: KernelsView, loop: qasync.QEventLoop, qtbot
) -> None:
    from PySide6.QtCore import Qt

    _tiny(view, ["gqa"])
    qtbot.mouseClick(view.run_button, Qt.MouseButton.LeftButton)
    assert view.running and not view.run_button.isEnabled()
    _run(loop, until(lambda: not view.running))
    assert view.last_outcome == "finished" and view.table.rowCount() == 1
    assert not view.rows[0].error and view.progress_label.text().startswith("1 of 1")

    view.iters.setValue(1_000_000)
    qtbot.mouseClick(view.run_button, Qt.MouseButton.LeftButton)

    def timing() -> bool:  # the worker announced its first combination ("0 of N")
        return view.job is not None and view.progress_label.text().startswith("0 of")

    _run(loop, until(timing))
    start = time.perf_counter()
    qtbot.mouseClick(view.cancel_button, Qt.MouseButton.LeftButton)
    _run(loop, until(lambda: not view.running, timeout=5))
    assert time.perf_counter() - start < 1.5
    assert view.last_outcome == "cancelled" and view.run_button.isEnabled()
    assert view.progress_label.text() == "Cancelled after 0 rows."
