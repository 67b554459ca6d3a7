"""Cold start (issue 16): nothing that can wait runs before the window's first paint.

The window is started as a user starts it (`workbench gui`, offscreen, a fresh data and settings
folder); what it loaded by its first paint is read in that process, at the app's own log line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication

from workbench.core.foundation.results import RequestResult
from workbench.core.history.run_history import RunStore
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
    "workbench.core.run.runner",
    "workbench.core.transport.clients",
    "workbench.core.transport.streaming",
    "httpx2",
    "importlib.metadata",
    "openai",
    "keyring",
    "aiohttp",
    "workbench.ui.provider_panel",
    "workbench.ui.provider_controller",
    "workbench.core.doctor",
    "workbench.core.importers",
    "workbench.core.history.result_import",
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
    assert {"workbench.core.saved.provider_store", "tomlkit", "pydantic"} & loaded == set()


# Two providers a user saved, and the last session's panes on them (gui.ini, as the window
# saves it): the window opens on those panes.
TWO_PROVIDERS = """
[providers.deepseek]
base_url = "http://127.0.0.1:9/deepseek/v1"
models = ["deepseek-chat", "deepseek-reasoner"]

[providers.gateway]
base_url = "http://127.0.0.1:9/gateway/v1"
models = ["llama-3-70b"]
"""
LAST_PANES = "[General]\npanes=deepseek|deepseek-chat, gateway|llama-3-70b\n"

# Runs `workbench gui`; prints, as JSON lines, the modules loaded and the panes (each picker's
# key, each pane's target URL) at the first paint, then the panes and pickers once the window
# is ready (its Run enabled), and ends the process.
PANES_AT_FIRST_PAINT_AND_READY = """
import json, logging, os, sys
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

def window():
    from workbench.ui.main_window import MainWindow
    return next(w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow))

def panes(w):
    pickers = [p.picker.currentData() for p in w.pane_set.widgets[: len(w.pane_set.keys)]]
    urls = [p.target.base_url if p.target else None for p in w.session.panes]
    return {"pickers": pickers, "urls": urls}

def when_ready(w):
    if w.run_action.isEnabled():
        picker = w.pane_set.widgets[0].picker
        offered = [picker.itemData(i) for i in range(picker.count())]
        print(json.dumps({**panes(w), "offered": offered}), flush=True)
        os._exit(0)

class AtFirstPaint(logging.Handler):
    def emit(self, record):
        if record.getMessage().startswith("main window shown"):
            w = window()
            print(json.dumps({**panes(w), "modules": sorted(sys.modules)}), flush=True)
            timer = QTimer(w)
            timer.timeout.connect(lambda: when_ready(w))
            timer.start(20)

logging.getLogger("workbench.ui.app").addHandler(AtFirstPaint())
from workbench.cli import main
main(["gui"])
"""


def test_saved_providers_are_read_after_the_first_paint_with_the_panes_kept(
    tmp_path: Path,
) -> None:
    """Issue 31: two saved providers do not hold the first paint (pydantic and the schemas stay
    out of it); the panes show the last session's models on them from the first frame, and
    get those providers' URLs once the file is read."""
    config = tmp_path / "config"
    config.mkdir()
    (config / "providers.toml").write_text(TWO_PROVIDERS, encoding="utf-8")
    (config / "gui.ini").write_text(LAST_PANES, encoding="utf-8")
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        "WORKBENCH_DATA_DIR": str(tmp_path / "data"),
        "WORKBENCH_CONFIG_DIR": str(config),
        "TMPDIR": str(tmp_path),
    }
    done = subprocess.run(
        [sys.executable, "-c", PANES_AT_FIRST_PAINT_AND_READY],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    first, ready = (json.loads(line) for line in done.stdout.splitlines()[-2:])
    assert "workbench.ui.main_window" in first["modules"]
    late = {"pydantic", "pydantic_core", "tomlkit", "workbench.core.saved.provider_store"}
    assert late & set(first["modules"]) == set()
    keys = ["deepseek|deepseek-chat", "gateway|llama-3-70b"]
    assert first["pickers"] == keys
    assert ready["pickers"] == keys
    assert ready["urls"] == ["http://127.0.0.1:9/deepseek/v1", "http://127.0.0.1:9/gateway/v1"]
    assert {"deepseek|deepseek-reasoner", "gateway|llama-3-70b"} <= set(ready["offered"])


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
        "Capacity",
        "Results",
        "History",
        "Summary",
        "Providers",
        "Kernels",
    ]
    assert watcher.history_rows == 0
    assert code == 0
