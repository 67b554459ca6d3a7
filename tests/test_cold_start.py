"""Cold start (issue 16): nothing that can wait runs before the window's first paint.

The window is started as a user starts it (`workbench gui`, offscreen, a fresh data and settings
folder); what it loaded by its first paint is read in that process, at the app's own log line.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication

from workbench.core.results import RequestResult
from workbench.core.run_history import RunStore
from workbench.ui.app import run_window
from workbench.ui.main_window import MainWindow

# Modules the first frame does not need: the charts (pyqtgraph, numpy) and the Sweep tab, the
# runner with its HTTP client and the SDK, the Providers tab (its doctor, importers and
# keyring), the Kernels tab and its worker client, the headless commands, the demo scenes.
DEFERRED = (
    "pyqtgraph",
    "numpy",
    "workbench.ui.live_plots",
    "workbench.ui.sweep_view",
    "workbench.core.runner",
    "workbench.core.clients",
    "workbench.core.streaming",
    "httpx2",
    "importlib.metadata",
    "openai",
    "keyring",
    "aiohttp",
    "workbench.ui.provider_panel",
    "workbench.ui.provider_controller",
    "workbench.core.doctor",
    "workbench.core.importers",
    "workbench.core.result_import",
    "workbench.ui.kernels_view",
    "kernels_bridge.client.connection",
    "workbench.commands.bench",
    "workbench.ui.demo",
)

# Runs `workbench gui`; at the app's "main window shown" line (its first paint) it prints the
# names of the modules loaded so far and ends the process.
AT_FIRST_PAINT = """
import logging, os, sys

class AtFirstPaint(logging.Handler):
    def emit(self, record):
        if record.getMessage().startswith("main window shown"):
            sys.stdout.write("\\n".join(sorted(sys.modules)) + "\\n")
            sys.stdout.flush()
            os._exit(0)

logging.getLogger("workbench.ui.app").addHandler(AtFirstPaint())
from workbench.cli import main
main(["gui"])
"""


def modules_at_first_paint(home: Path) -> set[str]:
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        "WORKBENCH_DATA_DIR": str(home / "data"),
        "WORKBENCH_CONFIG_DIR": str(home / "config"),
        "TMPDIR": str(home),  # the single-instance socket, which os._exit leaves behind
    }
    done = subprocess.run(
        [sys.executable, "-c", AT_FIRST_PAINT],
        env=env,
        cwd=home,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return set(done.stdout.split())


def test_first_paint_waits_for_no_deferred_module(tmp_path: Path) -> None:
    loaded = modules_at_first_paint(tmp_path)
    assert "workbench.ui.main_window" in loaded  # the line came from the real window
    assert sorted(m for m in DEFERRED if m in loaded) == []
    # no providers file: nothing to parse, so not its schemas or TOML editor either; the
    # shipped catalog is read without its schema (test_catalog.py checks that file)
    assert {"workbench.core.provider_store", "tomlkit", "pydantic"} & loaded == set()


def test_saved_providers_are_read_before_the_first_paint(tmp_path: Path) -> None:
    """The panes may show a saved provider's model from the first frame."""
    config = tmp_path / "config"
    config.mkdir()
    (config / "providers.toml").write_text(
        '[providers.mine]\nbase_url = "http://127.0.0.1:9/v1"\nmodels = ["m"]\n'
    )
    loaded = modules_at_first_paint(tmp_path)
    assert "workbench.ui.main_window" in loaded
    assert "workbench.core.provider_store" in loaded


class FirstPaintTabs(QObject):
    """The main window's tab titles and History rows at its first paint event."""

    def __init__(self) -> None:
        super().__init__()
        self.titles: list[str] | None = None
        self.history_rows = -1

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if self.titles is None and isinstance(watched, MainWindow):
            if event.type() == QEvent.Type.Paint:
                tabs = watched.tabs
                self.titles = [tabs.tabText(i) for i in range(tabs.count())]
                self.history_rows = watched.history_view.table.rowCount()
        return False


def _past_run() -> str:
    """A finished run in the history the app opens."""
    store = RunStore()
    run_id = store.start_run("comparison", {"models": ["sim-70b-gqa"]})
    store.record(RequestResult(model="sim-70b-gqa", provider="local", run_id=run_id))
    store.finish_run(run_id)
    store.close()
    return run_id


def test_hidden_tabs_are_titled_from_the_first_frame_and_built_after_it(qapp, loop) -> None:
    run_id = _past_run()
    watcher = FirstPaintTabs()
    qapp.installEventFilter(watcher)
    qapp.setQuitOnLastWindowClosed(False)  # as the app's main() does: run_window ends the app
    args = argparse.Namespace(
        time_scale=0.05, kernel_csv=None, demo_screenshot=None, screenshot_when="done"
    )

    async def start_then_close() -> tuple[MainWindow, int]:
        earlier = set(QApplication.topLevelWidgets())  # windows other tests of this session left
        app = asyncio.ensure_future(run_window(args))
        deadline = time.monotonic() + 60
        while True:
            windows = [
                w
                for w in QApplication.topLevelWidgets()
                if isinstance(w, MainWindow) and w not in earlier
            ]
            if windows and windows[0].run_action.isEnabled():
                break
            if app.done():
                app.result()  # raises what ended the app early
            assert time.monotonic() < deadline, "the window never became ready"
            await asyncio.sleep(0.02)
        window = windows[0]
        ready = [window.tabs.tabText(i) for i in range(window.tabs.count())]
        assert ready == watcher.titles
        assert window.tabs.widget(ready.index("Providers")) is window.provider_panel
        assert window.tabs.widget(ready.index("Kernels")) is window.kernels_view
        assert window.history_view.selected_run() == run_id  # read after the first paint
        window.close()
        return window, await asyncio.wait_for(app, 30)

    try:
        _, code = loop.run_until_complete(start_then_close())
    finally:
        qapp.removeEventFilter(watcher)
        qapp.setQuitOnLastWindowClosed(True)
    assert watcher.titles == [
        "Compare",
        "Sweep",
        "Results",
        "History",
        "Summary",
        "Providers",
        "Kernels",
    ]
    assert watcher.history_rows == 0
    assert code == 0
